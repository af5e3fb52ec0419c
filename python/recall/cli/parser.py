"""The argparse tree, resolved lazily: names and one-line help from a table here,
each subcommand's arguments from its module (`recall.cli.<name>.add_parser`) only
when argparse reaches that subcommand.

So `recall search` imports `recall.cli.search` and none of the other 21 command
modules, and `recall --help` imports none. Kept apart from `recall.cli` so the
hook command, served without argparse, never imports it.
`tests/cli/test_lazy_cli.py` holds the table to the modules' own help.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Iterator, Mapping
from importlib import import_module
from typing import Any

COMMANDS: dict[str, str] = {
    "ingest": "index transcripts now (also the agents' hook command)",
    "sync": "index every agent transcript on this computer",
    "search": "search past conversations",
    "show": "print one session's conversation",
    "resume": "reopen a session in its own agent, in the folder it ran in",
    "pick": "search as you type, preview, Enter to show or resume (full terminal)",
    "status": "what is indexed, where, how fresh, which core",
    "demo": "index sample sessions into a throwaway home and search them",
    "embed": "embed new messages for semantic search (resumable)",
    "model": "show or install the local embedding model",
    "doctor": "check the index, SQLite, the write lock and the hooks; say how to fix",
    "redact": "redact secrets from text, or re-apply the rules (--rescan)",
    "forget": "delete sessions for good (they stay forgotten)",
    "mcp": "serve search_history and show_session to an agent (MCP over stdio)",
    "context": "print what an agent should know at session start or prompt submit (a hook)",
    "setup": "hook recall into your agents (Claude Code, Codex, Gemini CLI, Cursor, OpenCode, "
    "Cline, Roo Code, Copilot CLI, Qwen Code, Crush, Continue, Goose), register its MCP "
    "server, sync",
    "hooks": "install, remove or show recall's hooks and MCP entry",
    "remember": "keep a fact (a preference, a decision, a name...)",
    "memories": "list, search, edit or forget memories",
    "memory": "the long-term MEMORY.md: edit it, or print its path",
    "digest": "summarise a day's conversations into daily/DATE.md",
    "serve": "run the daemon: peer API, index worker, warm model",
    "peers": "other computers' daemons to search (add, list, remove, test)",
    "service": "run `recall serve` at login (systemd user unit, launchd)",
    "team": "the team's index on Postgres: init, status, push",
}
"""Subcommand → its `--help` line; each is a module of this package with `add_parser(subs)`
and `run(args)`, whose `add_parser` gives the same help."""

_SETTABLE = frozenset({"description", "epilog", "usage", "formatter_class"})
"""What a command module may pass to `subs.add_parser` besides `help`: set on the parser
already made."""


class _Parser(argparse.ArgumentParser):
    """argparse that reports usage errors through RecallError's one-line path."""

    def error(self, message: str) -> None:  # type: ignore[override]
        # one line, as every other usage error: the usage block is a --help away
        sys.stderr.write(f"{self.prog}: {message} (see `{self.prog} --help`)\n")
        raise SystemExit(2)


class _Fill:
    """What a command module's `add_parser(subs)` is handed: its `subs.add_parser` returns
    the subcommand's parser, already made, so the module adds its arguments to it."""

    def __init__(self, name: str, parser: argparse.ArgumentParser) -> None:
        self.name = name
        self.parser = parser

    def add_parser(self, name: str, **kwargs: Any) -> argparse.ArgumentParser:
        unknown = set(kwargs) - _SETTABLE - {"help"}
        if name != self.name or unknown:
            raise TypeError(f"recall.cli.{self.name}: add_parser({name!r}, {sorted(unknown)})")
        for key, value in kwargs.items():
            if key != "help":
                setattr(self.parser, key, value)
        return self.parser


class _Parsers(Mapping[str, argparse.ArgumentParser]):
    """Each subcommand's parser, made and given its arguments when first looked up (argparse
    looks one up only to dispatch to it); membership and order come from `COMMANDS`."""

    def __init__(self, make: Callable[[str], argparse.ArgumentParser]) -> None:
        self._make = make
        self._made: dict[str, argparse.ArgumentParser] = {}

    def __getitem__(self, name: str) -> argparse.ArgumentParser:
        if name not in COMMANDS:
            raise KeyError(name)
        if name not in self._made:
            self._made[name] = self._make(name)
        return self._made[name]

    def __contains__(self, name: object) -> bool:
        return name in COMMANDS

    def __iter__(self) -> Iterator[str]:
        return iter(COMMANDS)

    def __len__(self) -> int:
        return len(COMMANDS)


class _Commands(argparse._SubParsersAction):  # type: ignore[type-arg]
    """The subcommands: names and help lines from `COMMANDS`, each parser from its module
    when argparse dispatches to it (or `load` asks)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.parsers = _Parsers(self._made)
        self._name_parser_map = self.choices = self.parsers  # type: ignore[assignment]
        for name, text in COMMANDS.items():
            self._choices_actions.append(self._ChoicesPseudoAction(name, (), text))

    def _made(self, name: str) -> argparse.ArgumentParser:
        parser: argparse.ArgumentParser = self._parser_class(prog=f"{self._prog_prefix} {name}")
        import_module(f"recall.cli.{name}").add_parser(_Fill(name, parser))
        return parser

    def load(self, name: str) -> argparse.ArgumentParser:
        return self.parsers[name]


def build_parser() -> argparse.ArgumentParser:
    """The whole tree, at the cost of one parser: no subcommand's parser, no command module."""
    parser = _Parser(
        prog="recall",
        description="Search every Claude Code, Codex and Gemini conversation on this computer.",
    )
    parser.add_argument("--version", action="store_true", help="print version and core, then exit")
    parser.register("action", "parsers", _Commands)
    parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    return parser


def commands(parser: argparse.ArgumentParser) -> _Commands:
    """The subcommands action of a parser `build_parser` made."""
    return next(a for a in parser._actions if isinstance(a, _Commands))
