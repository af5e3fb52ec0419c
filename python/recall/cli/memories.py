"""`recall memories [list|search Q|forget ID|edit ID]`: the memories `remember` kept."""

from __future__ import annotations

import argparse
import sys
from typing import Any


def add_parser(subs: Any) -> None:
    from recall.memory import CATEGORIES

    p = subs.add_parser("memories", help="list, search, edit or forget memories")
    acts = p.add_subparsers(dest="action", metavar="ACTION", parser_class=type(p))
    listing = acts.add_parser("list", help="memories, most important first")
    search = acts.add_parser("search", help="memories matching words, by relevance and importance")
    search.add_argument("query", nargs="+")
    for sub in (listing, search):
        sub.add_argument("--category", "-c", choices=CATEGORIES)
        sub.add_argument("--project", metavar="P", help="only memories of this project")
        sub.add_argument("--limit", "-n", type=int, default=None, metavar="N")
        sub.add_argument("--json", action="store_true", help="machine-readable output")
    forget = acts.add_parser("forget", help="delete memories for good")
    forget.add_argument("ids", nargs="+", type=int, metavar="ID")
    edit = acts.add_parser("edit", help="change a memory (no option: open it in $EDITOR)")
    edit.add_argument("id", type=int, metavar="ID")
    edit.add_argument("--text", help="the new text")
    edit.add_argument("--category", "-c", choices=CATEGORIES)
    edit.add_argument("--importance", "-i", type=int, metavar="1-10")
    p.set_defaults(run=run, action=None, json=False, category=None, project=None, limit=None)


def as_json(m: Any) -> dict[str, Any]:
    """A memory as JSON shows it: ids are strings, times ISO-8601, as search results show dates."""
    from recall.record import asdict
    from recall.timeutil import format_ts

    return {
        **asdict(m),
        "id": str(m.id),
        "created_at": format_ts(m.created_at),
        "updated_at": format_ts(m.updated_at),
    }


def _show(memories: list[Any], want_json: bool, scores: list[float] | None = None) -> int:
    from recall.cli.render import highlight, print_json, use_color
    from recall.textutil import printable

    if want_json:
        rows = [as_json(m) for m in memories]
        if scores is not None:
            rows = [{**row, "score": s} for row, s in zip(rows, scores, strict=True)]
        print_json({"found": len(rows), "memories": rows})
        return 0
    if not memories:
        print("No memories." if scores is None else "No memories match.")
        return 1 if scores is not None else 0
    color = use_color()
    for m in memories:
        where = f" · {m.project}" if m.project else ""
        print(printable(f"{m.id:>4}. [{m.category}, {m.importance}]{where}"))
        print(highlight(m.text, color, "      "))
    return 0


def run(args: argparse.Namespace) -> int:
    from recall.errors import UsageError
    from recall.search.results import MAX_LIMIT

    if args.limit is not None and not 1 <= args.limit <= MAX_LIMIT:
        raise UsageError(f"--limit must be between 1 and {MAX_LIMIT}")
    action = args.action or "list"
    if action == "list":
        from recall.memory.memories import listing
        from recall.store import open_reader

        with open_reader() as store:
            found = listing(store.conn, args.category, args.project, args.limit or 50)
        return _show(found, args.json)
    if action == "search":
        return _search(args)
    if action == "forget":
        from recall.memory.memories import forget
        from recall.store import open_writer

        with open_writer() as store:
            gone = forget(store, args.ids)
        print(f"forgot {len(gone)} memories: {', '.join(str(m.id) for m in gone)}")
        return 0
    return _edit(args)


def _search(args: argparse.Namespace) -> int:
    from recall.config import computer_name
    from recall.memory.memories import get
    from recall.search.asked import as_meant
    from recall.search.query import parse
    from recall.search.results import Filters, plain
    from recall.search.source_sql import memory_hits
    from recall.store import open_reader

    query = parse(" ".join(args.query))
    if not query.terms:
        from recall.errors import UsageError

        raise UsageError("the query is empty: give words to search for")
    filters = Filters(project=args.project)
    with open_reader() as store:
        fixed = as_meant(store.conn, query, ("memories_fts",))
        hits = memory_hits(
            store.conn, fixed or query, filters, args.limit or 5, computer_name(), args.category
        )
        found = [get(store.conn, int(h.memory_id)) for h in hits]
    if fixed is not None and hits:  # as `recall search` says it
        sys.stderr.write(f'recall: showing results for "{fixed.text}"\n')
    if not args.json:
        for m, h in zip(found, hits, strict=True):
            m.text = h.snippet  # highlighted
    else:
        for m, h in zip(found, hits, strict=True):
            m.text = plain(h.snippet)
    return _show(found, args.json, [h.score for h in hits])


def _edit(args: argparse.Namespace) -> int:
    from recall.memory.memories import edit, get
    from recall.store import open_reader, open_writer

    text = args.text
    if text is None and args.category is None and args.importance is None:
        from recall.cli.editor import edit_text

        with open_reader() as store:
            old = get(store.conn, args.id).text
        text = edit_text(old, suffix=".txt")
        if text.strip() == old.strip():
            sys.stderr.write("recall: unchanged\n")
            return 0
    with open_writer() as store:
        m = edit(store, args.id, text, args.category, args.importance)
    print(f"memory {m.id} ({m.category}, importance {m.importance}): {m.text}")
    return 0
