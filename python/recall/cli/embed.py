"""`recall embed`: embed new messages for semantic search, then refresh the HNSW index.

Resumable (each batch is committed as it finishes) and safe to run at any
time; `recall sync` runs it after indexing unless embedding is off. Hooks
never embed: a turn is searchable by keyword at once and semantically after
the next `embed`/`sync` (or the daemon's next pass). On a terminal one line
shows progress, chunks/s and an ETA from the first second or two; in a pipe
only the summary is printed. Ctrl-C stops it cleanly: what was committed
stays, and the next run carries on from there.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from typing import Any, TextIO


def add_parser(subs: Any) -> None:
    p = subs.add_parser("embed", help="embed new messages for semantic search (resumable)")
    p.add_argument("--limit", type=int, metavar="N", help="embed at most N messages this run")
    p.add_argument("--quiet", "-q", action="store_true", help="no progress, no summary")
    p.set_defaults(run=run)


def duration(seconds: float) -> str:
    """`42s`, `3m 05s`, `1h 02m`: an ETA's precision is a minute at best."""
    s = max(0, round(seconds))
    if s < 60:
        return f"{s}s"
    if s < 3600:
        return f"{s // 60}m {s % 60:02d}s"
    return f"{s // 3600}h {s % 3600 // 60:02d}m"


class Meter:
    """Progress on one rewritten stderr line: messages done, chunks, chunks/s, ETA.

    The ETA is the time so far scaled by the characters left against those
    done: chunk counts are unknown until messages are split, and a message's
    cost follows its length.
    """

    EVERY = 0.25
    """Seconds between redraws."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self.width = 0
        self.drawn = 0.0

    def _draw(self, text: str) -> None:
        self.stream.write("\r" + text.ljust(self.width))
        self.stream.flush()
        self.width = len(text)
        self.drawn = time.monotonic()

    def start(self, total: int) -> None:
        self._draw(f"Embedding {total:,} messages: loading the model…")

    def __call__(self, tick: Any) -> None:
        if tick.chunks == 0 or time.monotonic() - self.drawn < self.EVERY:
            return
        rate = tick.chunks / tick.seconds if tick.seconds > 0 else 0.0
        left = tick.total_chars - tick.chars
        eta = tick.seconds * left / tick.chars if tick.chars else 0.0
        what = "Embedding"
        if tick.opening:  # the first pass over the month (semantic/firstpass.py)
            what = f"First pass, the newest month from each message's first {tick.opening} chars:"
        self._draw(
            f"{what} {tick.messages:,}/{tick.total:,} messages, {tick.chunks:,} chunks, "
            f"{rate:.1f} chunks/s, ETA {duration(eta)}"
        )

    def end(self) -> None:
        if self.width:
            self.stream.write("\r" + " " * self.width + "\r")
            self.stream.flush()
            self.width = 0


def embed_now(
    quiet: bool, limit: int | None = None, announce: Callable[[int], None] | None = None
) -> Any:
    """Run the embedding job on the configured model; returns its report.

    The pending messages are counted before the model loads, so `announce`
    (sync's "keyword search works now" line) comes first and a run with
    nothing to do never loads the model. ModelError says why it cannot run.
    """
    from recall.config import load_config
    from recall.semantic import index
    from recall.semantic.embedjob import EmbedReport, embed_pending, settle_openings
    from recall.semantic.embedjob import stored_dims as dims
    from recall.semantic.provider import current_model_id, get_encoder
    from recall.semantic.vectors import pending_size, stats
    from recall.store import open_writer

    model = current_model_id()
    roles = load_config().embed_roles
    meter = Meter(sys.stderr) if not quiet and sys.stderr.isatty() else None
    with open_writer() as store:
        pending, _chars = pending_size(store.conn, model, roles, limit)
        if pending and announce:
            announce(pending)
        if not pending:
            if settle_openings(store, model, roles):  # a run stopped as it tidied up
                index.build(store.conn, model, dims(None, store, model))
            return EmbedReport(model=model, indexed=stats(store.conn, model).chunks)
        try:
            if meter:
                meter.start(pending)
            try:
                encoder = get_encoder()
            except KeyboardInterrupt:
                return EmbedReport(model=model, total=pending, interrupted=True)
            return embed_pending(store, encoder, roles, progress=meter, limit=limit)
        finally:
            if meter:
                meter.end()


def summary_line(report: Any) -> str:
    if not report.messages:
        return f"nothing new to embed; the index holds {report.indexed} chunks"
    rate = report.chunks / report.seconds if report.seconds > 0 else 0.0
    line = (
        f"embedded {report.messages} messages as {report.chunks} chunks with {report.model} "
        f"in {report.seconds:.1f}s ({rate:.1f} chunks/s); index holds {report.indexed} chunks"
    )
    if report.skimmed:
        line += (
            f"; a first pass read {report.skimmed} messages of the newest month"
            f" from their first {report.opening} characters"
        )
    return line


def stopped_line(report: Any) -> str:
    """What an interrupted run kept, and how to go on."""
    first = (
        f" (after a first pass over the newest month that read {report.skimmed} from their"
        f" first {report.opening} characters: `recall status` says what is searchable)"
        if report.skimmed
        else ""
    )
    return (
        f"stopped: embedded {report.messages} of {report.total} messages{first} "
        f"({report.chunks} chunks) in {report.seconds:.1f}s; "
        "`recall embed` (or the next `recall sync`) embeds the rest"
    )


def run(args: argparse.Namespace) -> int:
    from recall.errors import UsageError

    if args.limit is not None and args.limit < 1:
        raise UsageError("--limit must be at least 1")
    report = embed_now(args.quiet, args.limit)
    if report.interrupted:
        sys.stderr.write(f"recall: {stopped_line(report)}\n")
        return 130
    if not args.quiet:
        print(summary_line(report))
    return 0
