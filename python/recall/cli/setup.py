"""`recall setup`: hooks and the MCP server into every installed agent, then the first sync.

Claude Code, Codex and Gemini CLI get hooks and the MCP server; Cursor its MCP
server and a `stop` hook; OpenCode, Cline and Roo Code the MCP server alone
(they have no hook recall could index a turn from: sync and the daemon find
their sessions).

`recall hooks install|uninstall|status` does the same per agent, without the
sync. Every change is shown as a diff and backed up; running it again
changes nothing; `recall hooks uninstall` takes it all back out.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

AFTER = {
    "claude": "Claude Code: restart running sessions to load the hooks and the recall MCP server.",
    "codex": "Codex: open /hooks in Codex and trust recall's hooks (Codex runs new hooks only "
    "once you have reviewed them); restart Codex to load the MCP server.",
    "gemini": "Gemini CLI: restart it to load the hooks and the MCP server.",
    "cursor": "Cursor: restart it (or turn recall on under Settings > MCP) to load the MCP "
    "server; its stop hook runs from the next turn.",
    "opencode": "OpenCode: restart it to load the MCP server.",
    "cline": "Cline: reload the editor window (or restart the server in Cline's MCP "
    "Servers view) to load the MCP server.",
    "roo": "Roo Code: reload the editor window (or refresh its MCP Servers view) to load the "
    "MCP server.",
}
NAMES = "Claude Code, Codex, Gemini CLI, Cursor, OpenCode, Cline or Roo Code"


def add_parser(subs: Any) -> None:
    p = subs.add_parser(
        "setup",
        help="hook recall into your agents (Claude Code, Codex, Gemini CLI, Cursor, OpenCode, "
        "Cline, Roo Code), register its MCP server, sync",
    )
    add_options(p)
    p.add_argument("--no-sync", action="store_true", help="skip the first `recall sync`")
    p.set_defaults(run=run)


def add_options(p: argparse.ArgumentParser, uninstall: bool = False) -> None:
    from recall.setup.where import AGENTS

    p.add_argument(
        "--agent",
        action="append",
        choices=AGENTS,
        default=[],
        help="only this agent (repeatable; default: every agent installed here)",
    )
    p.add_argument(
        "--context",
        action="store_true",
        help="remove only the context hooks (indexing and the MCP server stay)"
        if uninstall
        else "also inject context at session start and prompt submit (`recall context`; "
        "Claude Code, Codex and Gemini CLI)",
    )
    p.add_argument("--dry-run", action="store_true", help="show the diff, write nothing")


def chosen(asked: list[str], home: Path) -> list[str]:
    from recall.setup.where import AGENTS, installed

    return list(dict.fromkeys(asked)) or [a for a in AGENTS if installed(a, home)]


def change(agents: list[str], home: Path, installing: bool, context: bool, dry_run: bool) -> int:
    """Install or uninstall for `agents`, printing diffs and what was written; 1 when a
    file had to be left untouched. One setup at a time changes files (`state.locked`)."""
    import contextlib

    from recall.setup import state
    from recall.setup.commands import executable
    from recall.setup.jsonfile import SettingsError

    program = executable() if installing else None
    problems: list[str] = []
    try:
        _check_program(program)
        with contextlib.nullcontext() if dry_run else state.locked():
            for agent in agents:
                problems += _change_one(agent, home, program, context, dry_run)
    except SettingsError as exc:
        problems.append(str(exc))
    for problem in problems:
        sys.stderr.write(f"recall: {problem}\n")
    return 1 if problems else 0


def _change_one(
    agent: str, home: Path, program: list[str] | None, context: bool, dry_run: bool
) -> list[str]:
    """One agent's edits: shown, then written (unless a dry run); the problems met. The
    diff is redacted: its context lines can hold an MCP server's token (the file is not)."""
    from recall.privacy.redaction import redact_text
    from recall.setup.apply import commit, plan

    outcome = plan(agent, home, program, context)
    changed = [e for e in outcome.edits if e.changed]
    for edit in changed:
        sys.stdout.write(redact_text(edit.diff()))
    done, failed = ([], []) if dry_run else commit(changed, program is not None)
    for line in done:
        print(f"{agent}: {line}")
    for note in outcome.notes:
        print(note)
    if not changed and not outcome.problems:
        print(f"{agent}: nothing to change")
    elif dry_run and changed:
        print(f"{agent}: dry run, nothing written")
    return [*outcome.problems, *failed]


def _check_program(program: list[str] | None) -> None:
    """Settings files are UTF-8 text: a recall installed under a path that is not UTF-8
    cannot be named in them."""
    from recall.setup.jsonfile import SettingsError
    from recall.setup.where import shown

    for word in program or []:
        try:
            word.encode("utf-8")
        except UnicodeEncodeError:
            raise SettingsError(
                f"recall is installed under {shown(word)}, a path that is not UTF-8, which the "
                "agents' settings cannot hold: install recall under another folder"
            ) from None


def run(args: argparse.Namespace) -> int:
    home = Path.home()
    agents = chosen(args.agent, home)
    if not agents:
        from recall.setup.where import shown

        print(f"No {NAMES} configuration found in " + shown(home))
        code = 0
    else:
        code = change(agents, home, True, args.context, args.dry_run)
        if not args.dry_run:
            from recall.setup.commands import command_line, executable
            from recall.setup.where import shown

            print(f"\nThe hooks run {shown(command_line(executable()))}. Still to do:")
            for agent in agents:
                print(f"- {AFTER[agent]}")
    if not args.no_sync and not args.dry_run:
        from recall.cli.sync import run as sync

        print("\nIndexing what is already there (recall sync):")
        sync(argparse.Namespace(agent=[], force=False, quiet=False, no_embed=True))
    return code
