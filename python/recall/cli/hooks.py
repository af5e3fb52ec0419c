"""`recall hooks install|uninstall|status`: recall's hooks and MCP entry, agent by agent."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any


def add_parser(subs: Any) -> None:
    from recall.cli.setup import add_options

    p = subs.add_parser("hooks", help="install, remove or show recall's hooks and MCP entry")
    actions = p.add_subparsers(dest="action", metavar="ACTION", required=True)
    for name, text in (
        ("install", "add recall's hooks (and the MCP server) to the agents' settings"),
        ("uninstall", "take them out again (restoring each file when nothing else changed)"),
    ):
        add_options(actions.add_parser(name, help=text), uninstall=name == "uninstall")
    from recall.setup.where import AGENTS

    status = actions.add_parser("status", help="what each agent has of recall")
    status.add_argument("--agent", action="append", default=[], choices=AGENTS)
    status.add_argument("--json", action="store_true", help="machine-readable output")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from recall.cli.setup import AFTER, NAMES, change, chosen

    home = Path.home()
    if args.action == "status":
        return _status(args, home)
    agents = chosen(args.agent, home)
    if not agents:
        from recall.setup.where import shown

        print(f"No {NAMES} configuration found in {shown(home)}; name one with --agent")
        return 0
    installing = args.action == "install"
    code = change(agents, home, installing, args.context, args.dry_run)
    if installing and not args.dry_run:
        for agent in agents:
            print(f"- {AFTER[agent]}")
    return code


def _status(args: argparse.Namespace, home: Path) -> int:
    from recall.cli.render import print_json
    from recall.setup.status import status
    from recall.setup.where import AGENTS

    found = [status(a, home) for a in (args.agent or AGENTS)]
    if args.json:
        print_json(found)
        return 0
    for s in found:
        state = "installed" if s.installed else "not installed"
        print(f"{s.agent} ({state}):")
        if s.hooks_file:
            print(f"  hooks in {s.hooks_file}: {', '.join(s.hooks) or 'none of recall'}")
        else:
            print("  hooks: none (the agent has none recall uses; sync finds its sessions)")
        for where in s.mcp_files or [s.mcp_file]:
            print(f"  MCP server in {where}: {'recall' if s.mcp else 'not registered'}")
        for line in s.broken:
            print(f"  cannot run: {line}")
        for line in s.problems:
            print(f"  problem: {line}")
    return 0
