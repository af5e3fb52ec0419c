"""`recall search`: the command line as a `SearchRequest`, answered by `search.engine`
(or, with `--computer`, by every computer named), and rendered."""

from __future__ import annotations

import argparse
import sys
from typing import Any


def add_parser(subs: Any) -> None:
    from recall.search.request import FUSIONS, MODES, SCOPES

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
    p.add_argument(
        "--json", action="store_true", help="machine-readable output: one JSON document (README)"
    )
    p.add_argument(
        "--scope",
        choices=SCOPES,
        default="all",
        help="sources: sessions, memories (+ MEMORY.md), daily logs, guidance files; default all",
    )
    p.add_argument(
        "-i",
        "--interactive",
        action="store_true",
        help="search as you type in the full terminal (`recall pick`) from these words",
    )
    p.add_argument(
        "--messages",
        action="store_true",
        help="the best-matching messages (several per session), not one result per session",
    )
    # --- semantic search ---
    p.add_argument(
        "--mode",
        choices=MODES,
        default=None,
        help="ranking (default: hybrid when messages are embedded, else keyword)",
    )
    p.add_argument(
        "--fusion",
        choices=FUSIONS,
        default=None,
        help="hybrid merge: rrf (default; each leg's judgement of a hit added, its rank"
        " discounting keyword hits; the name kept from reciprocal-rank fusion) or"
        " keyword/vector score weights",
    )
    p.add_argument(
        "--decay",
        type=float,
        default=None,
        metavar="λ",
        help="time decay: score × exp(-λ·age in days), e.g. 0.01 (default: config, else off)",
    )
    # --- across computers (docs/serve.md) ---
    p.add_argument(
        "--computer",
        nargs="+",
        default=None,
        metavar="NAME",
        help="ask these computers' daemons too: peer names, `local` (this one), `all`, or "
        "`team` (the team's index; `team:NAME` its rows from computer NAME)",
    )
    # --- the team's index (docs/team.md) ---
    p.add_argument(
        "--team",
        action="store_true",
        help="search the team's index too, with this computer (or the computers --computer names)",
    )
    p.add_argument(
        "--person",
        action="append",
        default=[],
        metavar="P",
        help="in the team's index, only sessions pushed by this person (repeatable)",
    )
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    if args.interactive:  # `recall pick`, dispatched by name (pick itself calls `search`)
        from recall.cli.parser import build_parser

        argv = ["pick", *(f"--agent={a}" for a in args.agent), "--", *args.query]
        picked = build_parser().parse_args(argv)
        return int(picked.run(picked))
    from recall.cli.render import (
        day,
        highlight,
        next_steps,
        print_json,
        printed_ids,
        reference,
        unindexed_note,
        use_color,
        wrap,
    )
    from recall.cli.sources import source_lines
    from recall.config import embedding_provider
    from recall.search.engine import search
    from recall.search.request import SearchRequest, checked, when, with_team
    from recall.search.results import plain
    from recall.textutil import printable

    query = " ".join(args.query)
    if args.team:  # asked for by name: no team at all is a setting to fix, not a partial answer
        from recall.team.connect import settings

        settings()
    request = checked(
        SearchRequest(
            text=query,
            scope=args.scope,
            mode=args.mode,
            fusion=args.fusion,
            decay=args.decay,
            agents=args.agent,
            project=args.project,
            computers=with_team(args.computer, args.team),
            persons=args.person,
            since=when(args.since) if args.since is not None else None,
            until=when(args.until, end=True) if args.until is not None else None,
            limit=args.limit,
            messages=args.messages,
        )
    )
    # --- across computers (docs/serve.md) ---
    if request.computers:
        from recall.peers.fanout import search_computers

        outcome, indexed = search_computers(request, search)
    elif args.mode == "keyword" or embedding_provider() == "none":  # no model: nothing to ask
        outcome, indexed = search(request)
    else:  # a running daemon has the model loaded already
        from recall.peers.warm import search_here

        outcome, indexed = search_here(request)
    for error in outcome.output.errors:
        sys.stderr.write(printable(f"recall: {error['computer']}: {error['error']}") + "\n")
    if outcome.note:
        sys.stderr.write(printable(f"recall: {outcome.note}") + "\n")
    out = outcome.output
    if out.corrected:
        sys.stderr.write(printable(f'recall: showing results for "{out.corrected}"') + "\n")
    if args.json:
        for r in out.results:
            r.snippet = plain(r.snippet)
        print_json(out)
        return 0
    if not out.results:
        if not indexed:
            sys.stderr.write(f"recall: {unindexed_note(out.errors, args.computer)}\n")
        print(f"No results for {query!r}{_in_force(args)}.")
        return 1
    color, ids = use_color(), printed_ids(out.results)
    answers = [r for r in out.results if not r.weak]
    weaker = [r for r in out.results if r.weak]
    if not answers:
        print(f"Nothing clearly matches {query!r}{_in_force(args)}.\n")
    for n, r in enumerate(answers + weaker, 1):
        if weaker and r is weaker[0]:
            print("Weaker matches (only some of the words, or loosely related in meaning):\n")
        if r.source != "session":
            print(source_lines(n, r, color))
            continue
        where = " · ".join(x for x in (r.agent, r.project or "", day(r.date), r.computer) if x)
        title = r.title or "(untitled)"
        print(wrap(f"{n:>2}. {title}", "    ")[4:])
        ref = reference(ids[r.session_id], r.message_index if args.messages else None)
        how = f"  matched {r.matched}" if r.matched else ""
        if args.messages and r.role:
            how += f"  said by the {r.role}"
        print(wrap(f"{where}  [{ref}]  score {r.score:.3g}{how}", "    "))
        print(highlight(r.snippet, color, "    ") + "\n")
    if footer := next_steps(answers + weaker, ids):
        print(printable(footer))
    return 0


def _in_force(args: argparse.Namespace) -> str:
    """The scope and filters that narrowed the search, as the user typed them
    (' with --scope daily, --since 7d')."""
    shown = [f"--scope {args.scope}"] if getattr(args, "scope", "all") != "all" else []
    shown += [f"--agent {a}" for a in args.agent]
    shown += [
        f"--{name} {value}"
        for name in ("project", "since", "until")
        if (value := getattr(args, name)) is not None
    ]
    return f" with {', '.join(shown)}" if shown else ""
