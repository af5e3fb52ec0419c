"""`recall sync`: index every transcript on this computer (the first run is the backfill)."""

from __future__ import annotations

import argparse
import sys
from typing import Any


def add_parser(subs: Any) -> None:
    p = subs.add_parser("sync", help="index every agent transcript on this computer")
    p.add_argument(
        "--agent", action="append", default=[], metavar="A", help="only this agent (repeatable)"
    )
    p.add_argument("--force", action="store_true", help="re-read every transcript from the start")
    p.add_argument("--quiet", "-q", action="store_true", help="no progress, no summary")
    p.add_argument("--no-embed", action="store_true", help="index only; skip `recall embed`")
    p.set_defaults(run=run)


def summary_line(report: Any) -> str:
    parts = [
        f"{report.sessions_touched} sessions updated from {report.files_read} changed "
        f"of {report.files_seen} transcripts ({report.bytes_read / 1e6:.1f} MB read)"
    ]
    if report.skipped:
        why = ", ".join(f"{n} {reason}" for reason, n in sorted(report.skipped.items()))
        parts.append(f"lines skipped: {why}")
    if report.files_failed:
        parts.append(f"{report.files_failed} unreadable (see recall.log)")
    if report.passed_over:
        parts.append(f"{len(report.passed_over)} passed over (listed below)")
    if report.missing:
        parts.append(f"{report.missing} transcripts gone (mirrors kept)")
    return "; ".join(parts)


def run(args: argparse.Namespace) -> int:
    from recall.agents import ADAPTERS
    from recall.cli.render import progress
    from recall.config import computer_name
    from recall.search.engine import known_agents
    from recall.store import open_reader, open_writer
    from recall.store.queries import stats
    from recall.sync import roots_for, sync

    args.agent = known_agents(None, args.agent)
    show_progress = not args.quiet and sys.stderr.isatty()
    with open_writer() as store:
        report = sync(
            store,
            computer_name(),
            agents=args.agent or None,
            progress=progress("Indexing transcripts") if show_progress else None,
            force=args.force,
        )
        if not report.disk_full:
            from recall.memory.files import sync_files

            files = sync_files(
                store, not args.no_embed
            )  # MEMORY.md, daily logs, guidance files (docs/memory.md)
    if report.disk_full:
        sys.stderr.write(
            f"recall: disk full: {report.sessions_touched} sessions indexed, "
            "run `recall sync` again after freeing space\n"
        )
        return 1
    if not args.quiet:
        with open_reader() as reader:
            totals = stats(reader.conn, reader.path)
        print(
            f"{summary_line(report)}. Index: {totals.sessions} sessions, "
            f"{totals.messages} messages; {files.files} memory and guidance files"
            f" ({files.changed} changed, {files.removed} removed"
            + (f", {len(files.passed_over)} passed over" if files.passed_over else "")
            + ")."
        )
        for path, why in report.passed_over:
            print(f"  passed over {path}: {why}")
        for why in files.passed_over:  # e.g. a MEMORY.md too big to index (memory.oversize)
            print(f"  passed over {why}")
        if report.files_seen == 0:
            looked = [
                str(root) for name in args.agent or ADAPTERS for root in roots_for(ADAPTERS[name])
            ]
            print(
                "No agent transcripts found; looked in: " + ", ".join(looked) + ". "
                "Set other folders in config.toml ([agents.NAME] roots), or try: recall demo",
                file=sys.stderr,
            )
    if not args.no_embed:
        return _embed_after_sync(args.quiet)
    return 0


# --- semantic search ---
def _embed_after_sync(quiet: bool) -> int:
    """Embed what sync brought in, after saying keyword search already works; without a
    model, say why once and carry on. Ctrl-C stops the embedding only (exit 130)."""
    from recall.cli.embed import embed_now, stopped_line
    from recall.cli.embed import summary_line as embed_line
    from recall.config import embedding_provider
    from recall.semantic import ModelError

    if embedding_provider() == "none":
        return 0

    def announce(pending: int) -> None:
        if not quiet:
            print(
                f"Keyword search works now; embedding {pending} messages for semantic search, "
                "newest sessions first (Ctrl-C to stop, it resumes next time; `recall status`"
                " says how far it got).",
                flush=True,
            )

    try:
        report = embed_now(quiet, announce=announce)
    except ModelError as exc:
        if not quiet:  # one short line: keyword search works either way
            why = "no embedding model (`recall model install`)" if " lacks " in str(exc) else exc
            sys.stderr.write(f"recall: semantic search is off: {why}\n")
        return 0
    if report.interrupted:
        sys.stderr.write(f"recall: {stopped_line(report)}\n")
        return 130
    if not quiet and report.messages:
        print(embed_line(report))
    return 0
