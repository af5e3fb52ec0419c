"""The argparse tree: one subparser per command module (`recall.cli.<name>`).

Kept apart from `recall.cli` so the hook command, served without argparse,
never imports it.
"""

from __future__ import annotations

import argparse
import sys
from importlib import import_module

COMMANDS = (
    "ingest",
    "sync",
    "search",
    "show",
    "status",
    "demo",
    "embed",
    "model",
    "doctor",
    "redact",
    "forget",
    "mcp",
    "context",
    "setup",
    "hooks",
    "remember",
    "memories",
    "memory",
    "digest",
    "serve",
    "peers",
    "service",
)
"""Subcommands, each a module of this package with `add_parser(subs)` and `run(args)`."""


class _Parser(argparse.ArgumentParser):
    """argparse that reports usage errors through RecallError's one-line path."""

    def error(self, message: str) -> None:  # type: ignore[override]
        # one line, as every other usage error: the usage block is a --help away
        sys.stderr.write(f"{self.prog}: {message} (see `{self.prog} --help`)\n")
        raise SystemExit(2)


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The parser for every subcommand, or only for `only` when the command line
    names one: a hook then imports and builds one subcommand, not all of `COMMANDS`."""
    parser = _Parser(
        prog="recall",
        description="Search every Claude Code, Codex and Gemini conversation on this computer.",
    )
    parser.add_argument("--version", action="store_true", help="print version and core, then exit")
    subs = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    for name in COMMANDS if only not in COMMANDS else (only,):
        import_module(f"recall.cli.{name}").add_parser(subs)
    return parser
