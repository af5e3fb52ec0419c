"""The CLI loads only what a command needs: help from a table, arguments from the one
command module argparse reaches, and a keyword search without ingest, peer, context,
setup, MCP, serve or vector code (issue 23)."""

from __future__ import annotations

import argparse
import os
from importlib import import_module
from pathlib import Path

import pytest

from clihelp import call
from daemons import modules_after
from recall.cli.parser import COMMANDS, build_parser, commands

FORBIDDEN = (
    "recall.ingest",
    "recall.sync",
    "recall.hooks",
    "recall.peers",
    "recall.context",
    "recall.setup",
    "recall.mcp",
    "recall.serve",
    "recall.memory.vectors",
    "recall.semantic",
    "recall.doctor",
    "recall.agents",
    *(f"recall.cli.{name}" for name in COMMANDS if name != "search"),
)
"""Modules (and their submodules) a keyword `recall search` must not import."""


def _eager() -> argparse.ArgumentParser:
    """The parser as it was built before it was lazy: every module's add_parser, at once."""
    lazy = build_parser()
    parser = argparse.ArgumentParser(prog="recall", description=lazy.description)
    parser.add_argument("--version", action="store_true", help="print version and core, then exit")
    subs = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMANDS:
        import_module(f"recall.cli.{name}").add_parser(subs)
    return parser


def test_help_is_the_same_as_when_every_command_module_was_imported(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("COLUMNS", "80")
    eager, lazy = _eager(), build_parser()
    assert lazy.format_help() == eager.format_help()
    eager_subs = next(a for a in eager._actions if isinstance(a, argparse._SubParsersAction))
    assert list(commands(lazy).choices) == list(eager_subs.choices)
    for name, parser in eager_subs.choices.items():
        assert commands(lazy).load(name).format_help() == parser.format_help(), name


def test_the_top_level_help_imports_no_command_module() -> None:
    loaded = modules_after(["--help"])
    assert "recall.cli.parser" in loaded  # the probe saw the parser run
    assert not [m for m in loaded if m.startswith("recall.cli.") and m != "recall.cli.parser"]


def test_a_command_gets_its_arguments_and_a_bad_one_is_a_usage_error(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, _, err = call(capsys, "search", "--limit", "0", "x")
    assert code == 2 and "limit must be between 1 and" in err
    code, _, err = call(capsys, "search", "--nope", "x")
    assert code == 2 and "unrecognized arguments: --nope" in err


@pytest.mark.parametrize(
    ("argv", "env"),
    [
        (["search", "kafka", "--mode", "keyword"], {}),
        (["search", "kafka"], {"RECALL_EMBEDDING": "none"}),
    ],
)
def test_a_keyword_search_imports_only_search_code(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: list[str], env: dict[str, str]
) -> None:
    src = tmp_path / "chat.jsonl"
    src.write_text('{"session": "s1", "role": "user", "text": "kafka retry budget"}\n')
    assert call(capsys, "ingest", "--format", "jsonl", str(src))[0] == 0
    loaded = modules_after(argv, env={**os.environ, **env})
    assert "recall.search.keyword" in loaded  # the probe saw a real search
    assert "recall.search.engine" in loaded  # through the one engine
    # the request record lives in search.request: no peer module comes along at all
    bad = sorted(m for m in loaded if any(m == f or m.startswith(f + ".") for f in FORBIDDEN))
    assert not bad, bad
