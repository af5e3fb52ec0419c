"""`recall search`: keyword, semantic or hybrid search over every mirror."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from recall.peers.protocol import SearchRequest
    from recall.search.modes import Outcome
    from recall.search.results import Filters


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
    p.add_argument(
        "--json", action="store_true", help="machine-readable output: one JSON document (README)"
    )
    p.add_argument(
        "--scope",
        choices=("all", "sessions", "memories", "daily", "files"),
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
        choices=("keyword", "semantic", "hybrid"),
        default=None,
        help="ranking (default: hybrid when messages are embedded, else keyword)",
    )
    p.add_argument(
        "--fusion",
        choices=("rrf", "weighted", "0.4/0.6", "0.3/0.7"),
        default=None,
        help="hybrid merge: reciprocal-rank fusion (default) or keyword/vector score weights",
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
        "--team", action="store_true", help="search the team's index too (same as --computer team)"
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
    from recall.errors import UsageError
    from recall.peers.protocol import SearchRequest
    from recall.search.results import MAX_LIMIT, plain
    from recall.textutil import printable
    from recall.timeutil import parse_when

    if not 1 <= args.limit <= MAX_LIMIT:
        raise UsageError(f"--limit must be between 1 and {MAX_LIMIT}")
    query = " ".join(args.query)
    if not query.strip():
        raise UsageError("the query is empty: give words to search for")
    request = SearchRequest(
        q=query,
        agents=args.agent,
        project=project_arg(args.project),
        since=parse_when(args.since) if args.since is not None else None,
        until=parse_when(args.until) if args.until is not None else None,
        limit=args.limit,
        mode=args.mode,
        fusion=args.fusion,
        decay=args.decay,
        messages=args.messages,
        scope=args.scope,
    )
    names = list(args.computer or (["local"] if args.team else []))
    names += ["team"] if args.team else []
    team = [n for n in names if n == "team" or n.startswith("team:")]
    if args.person and not team:
        raise UsageError("--person narrows the team's index: add --team")
    # --- across computers (docs/serve.md), and the team's index (docs/team.md) ---
    if team and len(team) == len(names):
        outcome, indexed = team_search(request, team, args.person, None)
    elif names:
        from recall.peers.fanout import search_computers

        extra = [team_job(request, team, args.person)] if team else []
        others = [n for n in names if n not in team]
        outcome, indexed = search_computers(request, others, local_search, extra)
    elif args.mode == "keyword" or embedding_provider() == "none":  # no model: nothing to ask
        outcome, indexed = local_search(request)
    else:  # a running daemon has the model loaded already
        from recall.peers.warm import ask_daemon

        outcome, indexed = ask_daemon(request) or local_search(request)
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
    for n, r in enumerate(out.results, 1):
        if r.source != "session":
            print(source_lines(n, r, color))
            continue
        where = " · ".join(x for x in (r.agent, r.project or "", day(r.date), r.computer) if x)
        title = r.title or "(untitled)"
        print(wrap(f"{n:>2}. {title}", "    ")[4:])
        ref = reference(ids[r.session_id], r.message_index if args.messages else None)
        print(wrap(f"{where}  [{ref}]  score {r.score:.3g}", "    "))
        print(highlight(r.snippet, color, "    ") + "\n")
    if footer := next_steps(out.results, ids):
        print(printable(footer))
    return 0


def search(
    query: str,
    filters: Filters,
    limit: int,
    mode: str | None = None,
    fusion: str | None = None,
    decay: float | None = None,
    messages: bool = False,
    scope: str = "all",
) -> tuple[Outcome, bool]:
    """One search as `recall search` runs it (the agents named as the index spells them,
    fusion, decay and source weights from the config unless given), over the sources of
    `scope` (docs/memory.md), and whether anything it searches is indexed (sessions, when it
    searches sessions). The MCP server
    calls this too, so the agent's tool and the CLI answer alike."""
    from recall.cli.sources import source_vectors
    from recall.config import computer_name, load_config
    from recall.errors import UsageError
    from recall.search.sources import run as run_sources
    from recall.store import open_reader

    settings = load_config().search
    fusion = fusion or settings.fusion
    decay = settings.decay if decay is None else decay
    if fusion not in ("rrf", "weighted", "0.4/0.6", "0.3/0.7"):
        raise UsageError(f"fusion must be rrf, weighted, 0.4/0.6 or 0.3/0.7, not {fusion!r}")
    if not 0 <= decay < float("inf"):  # also refuses NaN
        raise UsageError("--decay must be a finite number, 0 or more")
    with open_reader() as store:
        filters.agents = known_agents(store.conn, filters.agents)
        # a scope with sessions needs sessions: memories alone do not make them searchable
        tables = ("sessions",) if scope in ("all", "sessions") else ("memories", "files")
        indexed = (
            store.conn.execute(
                " UNION ALL ".join(f"SELECT 1 FROM {t}" for t in tables) + " LIMIT 1"
            ).fetchone()
            is not None
        )
        outcome = run_sources(
            store.conn,
            query,
            filters,
            limit,
            computer_name(),
            scope,
            mode,
            fusion,
            decay,
            messages,
            settings.weights,
            source_vectors(mode),
        )
    return outcome, indexed


def local_search(request: SearchRequest) -> tuple[Outcome, bool]:
    """`search` for a request as the CLI builds it and as it comes off the wire: what
    `recall search` runs in-process and what `recall serve` answers with (snippets keep
    their highlight marks)."""
    from recall.search.results import Filters

    filters = Filters(
        agents=list(request.agents),
        project=request.project,
        since=request.since,
        until=request.until,
    )
    return search(
        request.q,
        filters,
        request.limit,
        request.mode,
        request.fusion,
        request.decay,
        request.messages,
        request.scope,
    )


def team_search(
    request: SearchRequest, names: list[str], persons: list[str], skip_own: str | None
) -> tuple[Outcome, bool]:
    """The team's index asked `request` (docs/team.md); `names` are `team` or `team:…`."""
    from recall.search.results import Filters
    from recall.team.ask import ask
    from recall.team.mirror import where

    narrowed = [] if "team" in names else [where(n) for n in names]
    computers = sorted({c for _, c in narrowed if c})
    persons = [*persons, *sorted({p for p, _ in narrowed if p})]
    filters = Filters(
        agents=list(request.agents),
        project=request.project,
        since=request.since,
        until=request.until,
    )
    from recall.config import load_config

    decay = load_config().search.decay if request.decay is None else request.decay
    return ask(
        request.q,
        filters,
        request.limit,
        request.mode,
        decay,
        request.messages,
        request.scope,
        persons,
        computers,
        skip_own,
    )


def team_job(request: SearchRequest, names: list[str], persons: list[str]) -> Any:
    """The team's search as one more computer of a fan-out (its failure one line)."""
    from recall.config import computer_name, load_config
    from recall.errors import RecallError
    from recall.peers.client import PeerError

    def job() -> tuple[Outcome, bool]:
        try:
            return team_search(request, names, persons, computer_name())
        except RecallError as exc:
            raise PeerError(str(exc).removeprefix("team index: ")) from None

    return ("team", load_config().team.timeout * 3, job)


def project_arg(value: str | None) -> str | None:
    """A `--project` value as the index spells paths: `.`, `..`, `./x` and `~` made absolute,
    trailing separators dropped (`/tmp/x/` means `/tmp/x`). Search and forget both use it."""
    import os

    if value is None:
        return None
    path = value.strip()
    if path in (".", "..") or path.startswith(("./", "../", ".\\", "..\\", "~")):
        path = os.path.abspath(os.path.expanduser(path))
    return path.rstrip("/\\") or path[:1]


def known_agents(db: Any, asked: list[str]) -> list[str]:
    """`--agent` values as the index spells them (any case); an unknown one is a usage error
    naming the agents recall reads and those the index holds (only the agents recall
    syncs when `db` is None). Every subcommand's `--agent` goes through here."""
    from recall.agents import ADAPTERS, IMPORT
    from recall.errors import UsageError

    known = set(ADAPTERS)
    if db is not None:
        known |= {IMPORT.name, *(r[0] for r in db.execute("SELECT DISTINCT agent FROM sessions"))}
    by_case = {name.casefold(): name for name in known}
    out = []
    for name in asked:
        match = by_case.get(name.strip().casefold())
        if match is None:
            raise UsageError(f"unknown agent {name!r} (known: {', '.join(sorted(known))})")
        out.append(match)
    return out


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
