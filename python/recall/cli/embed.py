"""`recall embed`: embed new messages for semantic search, then refresh the HNSW index.

Resumable (each batch is committed as it finishes) and safe to run at any
time; `recall sync` runs it after indexing unless embedding is off. Hooks
never embed: a turn is searchable by keyword at once and semantically after
the next `embed`/`sync` (or the daemon's next pass).
"""

from __future__ import annotations

import argparse
import sys
from typing import Any


def add_parser(subs: Any) -> None:
    p = subs.add_parser("embed", help="embed new messages for semantic search (resumable)")
    p.add_argument("--limit", type=int, metavar="N", help="embed at most N messages this run")
    p.add_argument("--quiet", "-q", action="store_true", help="no progress, no summary")
    p.set_defaults(run=run)


def embed_now(quiet: bool, limit: int | None = None) -> Any:
    """Run the embedding job on the configured model; returns its report."""
    from recall.cli.render import progress
    from recall.config import load_config
    from recall.semantic.embedjob import embed_pending
    from recall.semantic.provider import get_encoder
    from recall.store import open_writer

    encoder = get_encoder()
    show = not quiet and sys.stderr.isatty()
    with open_writer() as store:
        return embed_pending(
            store,
            encoder,
            load_config().embed_roles,
            progress=progress("Embedding messages") if show else None,
            limit=limit,
        )


def summary_line(report: Any) -> str:
    rate = report.chunks / report.seconds if report.seconds > 0 else 0.0
    return (
        f"embedded {report.messages} messages as {report.chunks} chunks with {report.model} "
        f"in {report.seconds:.1f}s ({rate:.0f} chunks/s); index holds {report.indexed} chunks"
    )


def run(args: argparse.Namespace) -> int:
    from recall.errors import UsageError

    if args.limit is not None and args.limit < 1:
        raise UsageError("--limit must be at least 1")
    report = embed_now(args.quiet, args.limit)
    if not args.quiet:
        print(summary_line(report))
    return 0
