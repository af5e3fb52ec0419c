"""`recall memory review [accept|reject ID... | all]`: the facts digests proposed.

A digest's facts wait here rather than going into MEMORY.md, which every
session is shown: the user decides what becomes a note (`memory.facts`).
Listing changes nothing; `accept` writes the facts into MEMORY.md as notes
and indexes it; `reject` drops them.
"""

from __future__ import annotations

import argparse
from typing import Any


def add_review(acts: Any) -> None:
    r = acts.add_parser("review", help="list the facts digests proposed; accept or reject them")
    r.add_argument("verdict", nargs="?", choices=("accept", "reject"), help="what to do")
    r.add_argument("ids", nargs="*", metavar="ID", help="proposal numbers, or all")
    r.add_argument("--json", action="store_true", help="machine-readable output")


def _ids(values: list[str]) -> list[int] | None:
    """The proposal numbers asked for; None for `all`."""
    from recall.errors import UsageError

    if values == ["all"]:
        return None
    if not values:
        raise UsageError("name the proposals (numbers from `recall memory review`) or all")
    try:
        return [int(v) for v in values]
    except ValueError:
        wrong = " ".join(values)
        raise UsageError(f"proposal numbers are integers or all, not {wrong!r}") from None


def review(args: argparse.Namespace) -> int:
    from recall.cli.render import print_json
    from recall.errors import UsageError
    from recall.memory import facts
    from recall.memory.files import Source, index_file, memory_file
    from recall.memory.vectors import embed_quietly
    from recall.store import open_reader, open_writer
    from recall.textutil import printable

    if args.verdict is None:
        if args.ids:
            raise UsageError("say accept or reject before the proposal numbers")
        with open_reader() as store:
            found = facts.waiting(store.conn)
        if args.json:
            print_json({"proposed": found})
        elif not found:
            print("no proposed facts wait for review")
        for p in [] if args.json else found:
            print(f"{p.id:>5}  {p.day}  {printable(p.text)}")
        if found and not args.json:
            print("keep them with `recall memory review accept ID...|all`, drop with reject")
        return 0
    ids = _ids(args.ids)
    with open_writer() as store:
        if args.verdict == "accept":
            done = facts.accept(store, ids)
            if done:
                index_file(store, Source(memory_file(), "memory_md"))
                embed_quietly(store)
        else:
            done = facts.reject(store, ids)
    if args.json:
        print_json({args.verdict + "ed": done})
        return 0
    where = f" into {memory_file()}" if args.verdict == "accept" else ""
    print(f"{args.verdict}ed {len(done)} fact(s){where}")
    return 0
