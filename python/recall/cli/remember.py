"""`recall remember TEXT`: keep a fact, searchable the moment this returns."""

from __future__ import annotations

import argparse
from typing import Any


def add_parser(subs: Any) -> None:
    from recall.memory import CATEGORIES

    p = subs.add_parser("remember", help="keep a fact (a preference, a decision, a name...)")
    p.add_argument("text", nargs="+", help="what to remember")
    p.add_argument("--category", "-c", choices=CATEGORIES, default="fact", help="default: fact")
    p.add_argument("--importance", "-i", type=int, default=5, metavar="1-10", help="default: 5")
    p.add_argument("--project", metavar="P", help="the project this is about (default: none)")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from recall.cli.memories import as_json
    from recall.cli.render import print_json
    from recall.memory.memories import remember
    from recall.store import open_writer

    with open_writer() as store:
        memory, merged = remember(
            store, " ".join(args.text), args.category, args.importance, args.project
        )
    if args.json:
        print_json({"memory": as_json(memory), "merged": merged})
        return 0
    verb = "merged into" if merged else "remembered as"
    print(f"{verb} memory {memory.id} ({memory.category}, importance {memory.importance})")
    return 0
