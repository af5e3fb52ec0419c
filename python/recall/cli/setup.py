"""`recall setup`: hooks and the MCP server into every installed agent, then the first sync.

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
}


def add_parser(subs: Any) -> None:
    p = subs.add_parser(
        "setup",
        help="hook recall into Claude Code, Codex and Gemini CLI, register its MCP server, sync",
    )
    add_options(p)
    p.add_argument("--no-sync", action="store_true", help="skip the first `recall sync`")
    p.set_defaults(run=run)


def add_options(p: argparse.ArgumentParser) -> None:
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
        help="also inject context at session start and prompt submit (`recall context`)",
    )
    p.add_argument("--dry-run", action="store_true", help="show the diff, write nothing")


def chosen(asked: list[str], home: Path) -> list[str]:
    from recall.setup.where import AGENTS, agent_dir

    return list(dict.fromkeys(asked)) or [a for a in AGENTS if agent_dir(a, home).is_dir()]


def change(agents: list[str], home: Path, installing: bool, context: bool, dry_run: bool) -> int:
    """Install or uninstall for `agents`, printing diffs and what was written; 1 when a
    file had to be left untouched."""
    from recall.setup.apply import commit, plan
    from recall.setup.commands import executable

    program = executable() if installing else None
    problems: list[str] = []
    for agent in agents:
        outcome = plan(agent, home, program, context)
        problems += outcome.problems
        changed = [e for e in outcome.edits if e.changed]
        for edit in changed:
            sys.stdout.write(edit.diff())
        for line in [] if dry_run else commit(changed, installing):
            print(f"{agent}: {line}")
        if not changed and not outcome.problems:
            print(f"{agent}: nothing to change")
        elif dry_run and changed:
            print(f"{agent}: dry run, nothing written")
    for problem in problems:
        sys.stderr.write(f"recall: {problem}\n")
    return 1 if problems else 0


def run(args: argparse.Namespace) -> int:
    home = Path.home()
    agents = chosen(args.agent, home)
    if not agents:
        print("No Claude Code, Codex or Gemini CLI configuration found in " + str(home))
        code = 0
    else:
        code = change(agents, home, True, args.context, args.dry_run)
        if not args.dry_run:
            from recall.setup.commands import command_line, executable

            print(f"\nThe hooks run {command_line(executable())}. Still to do:")
            for agent in agents:
                print(f"- {AFTER[agent]}")
    if not args.no_sync and not args.dry_run:
        from recall.cli.sync import run as sync

        print("\nIndexing what is already there (recall sync):")
        sync(argparse.Namespace(agent=[], force=False, quiet=False, no_embed=True))
    return code
