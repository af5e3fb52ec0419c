"""`recall search`: keyword search over every mirror."""

from __future__ import annotations

import argparse
from typing import Any


def add_parser(subs: Any) -> None:
    p = subs.add_parser("search", help="search past conversations")
    p.add_argument("query", nargs="+", help='words, "a phrase", prefix*, -exclude')
    p.add_argument(
        "--agent",
        action="append",
        default=[],
        metavar="A",
        help="only sessions of this agent (repeatable)",
    )
    p.add_argument("--project", metavar="P", help="only sessions whose project path contains P")
    p.add_argument("--since", metavar="WHEN", help="7d, 12h, 2w, today, 2026-01-31, …")
    p.add_argument("--until", metavar="WHEN", help="same forms as --since")
    p.add_argument("--limit", "-n", type=int, default=10, metavar="N", help="results (default 10)")
    p.add_argument("--json", action="store_true", help="machine-readable output (SPEC §9)")
    p.add_argument(
        "--mode",
        choices=("keyword",),
        default="keyword",
        help="ranking (semantic and hybrid arrive with embeddings)",
    )
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from recall.cli.render import day, highlight, plain, print_json, use_color
    from recall.errors import UsageError
    from recall.search import MAX_LIMIT, Filters, search
    from recall.store import open_reader
    from recall.timeutil import parse_when

    if not 1 <= args.limit <= MAX_LIMIT:
        raise UsageError(f"--limit must be between 1 and {MAX_LIMIT}")
    filters = Filters(
        agents=args.agent,
        project=args.project,
        since=parse_when(args.since) if args.since else None,
        until=parse_when(args.until) if args.until else None,
    )
    query = " ".join(args.query)
    with open_reader() as store:
        out = search(store.conn, query, filters, args.limit)
    if args.json:
        for r in out.results:
            r.snippet = plain(r.snippet)
        print_json(out)
        return 0
    if not out.results:
        print(f"No results for {query!r}.")
        return 1
    color = use_color()
    for n, r in enumerate(out.results, 1):
        where = " · ".join(x for x in (r.agent, r.project or "", day(r.date), r.computer) if x)
        title = r.title or "(untitled)"
        print(f"{n:>2}. {title}\n    {where}  [{r.session_id}]  score {r.score:.2f}")
        print(f"    {highlight(r.snippet, color)}\n")
    return 0
