"""`recall sync`: reconcile every transcript on this computer with the index.

Idempotent and resumable: unchanged files cost a `stat`, grown files are read
from where the index stopped, and transcripts that disappeared keep their
mirrors (agents delete old transcripts; recall's copy must outlive them).
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterable
from pathlib import Path

from recall.agents import ADAPTERS, Adapter
from recall.config import load_config
from recall.errors import is_disk_full
from recall.ingest import Job, commit, prepare
from recall.log import log
from recall.privacy.redaction import current
from recall.record import Record, field
from recall.safeio import NotARegularFile
from recall.store import Store
from recall.vetting import shown, stored_path, vet

# Commit in batches: fewer transactions, yet short enough that hooks waiting
# on the write lock are not held up for long.
_BATCH_BYTES = 8 * 1024 * 1024
_BATCH_FILES = 200

Progress = Callable[[int, int], None]


class SyncReport(Record):
    files_seen: int = 0
    files_read: int = 0
    bytes_read: int = 0
    sessions_touched: int = 0
    files_failed: int = 0
    skipped: dict[str, int] = field(default_factory=dict)
    missing: int = 0
    disk_full: bool = False
    """Sync stopped because the disk filled up; what was committed before stays."""
    passed_over: list[tuple[str, str]] = field(default_factory=list)
    """Files not read, as (path escaped for display, why): a FIFO, a device, a
    name that is not UTF-8, a symlink loop. Each is logged; the rest are indexed."""


def roots_for(adapter: Adapter) -> list[Path]:
    configured = load_config().agents.get(adapter.name)
    if configured is not None and not configured.enabled:
        return []
    if configured is not None and configured.roots:
        return [Path(os.path.expanduser(r)) for r in configured.roots]
    return adapter.default_roots()


def discover_all(
    adapters: Iterable[Adapter],
    extra_roots: list[Path] | None = None,
    passed_over: list[tuple[str, str]] | None = None,
) -> list[tuple[Adapter, Path]]:
    """Every transcript of every agent, oldest first (so a resumed session's
    original claims its messages before the copy does). A path that cannot be
    resolved or keyed (`vet`) is added to `passed_over` with the reason, and logged."""
    found: dict[Path, Adapter] = {}

    def pass_over(path: Path, why: str) -> None:
        log(f"sync: passed over {shown(path)}: {why}")
        if passed_over is not None:
            passed_over.append((shown(path), why))

    for adapter in adapters:
        roots = extra_roots if extra_roots is not None else roots_for(adapter)
        for root in roots:
            if not root.is_dir():
                continue
            for path in adapter.discover(root):
                real, why = vet(path)
                if why:
                    pass_over(path, why)
                    continue
                found.setdefault(real, adapter)

    def mtime(item: tuple[Path, Adapter]) -> float:
        try:
            return item[0].stat().st_mtime
        except OSError:
            return 0.0

    return [(a, p) for p, a in sorted(found.items(), key=mtime)]


def find_transcript(stored: str) -> Path | None:
    """The file a stored transcript path names: itself, or, when redaction changed
    it, the discovered transcript whose path redacts to it."""
    if "[REDACTED:" not in stored:
        return Path(stored)
    for _, path in discover_all(ADAPTERS.values()):
        if stored_path(path) == stored:
            return path
    return None


def _exists(stored: str) -> bool:
    """Whether a stored path still names a file; a redacted one was looked for by discovery."""
    return "[REDACTED:" not in stored and Path(stored).exists()


def _mark_missing(store: Store, present: set[str]) -> int:
    rows = store.conn.execute("SELECT path FROM transcripts WHERE missing = 0").fetchall()
    gone = [r[0] for r in rows if r[0] not in present and not _exists(r[0])]
    if gone:
        with store.transaction() as db:
            db.executemany(
                "UPDATE transcripts SET missing = 1 WHERE path = ?", [(g,) for g in gone]
            )
    return len(gone)


def sync(
    store: Store,
    computer: str,
    agents: list[str] | None = None,
    progress: Progress | None = None,
    force: bool = False,
) -> SyncReport:
    current()  # a redaction setting that cannot be used stops sync before it reads a file
    adapters = [ADAPTERS[a] for a in (agents or list(ADAPTERS))]
    passed_over: list[tuple[str, str]] = []
    files = discover_all(adapters, passed_over=passed_over)
    report = SyncReport(files_seen=len(files) + len(passed_over), passed_over=passed_over)
    touched: set[str] = set()
    batch: list[Job] = []
    batch_bytes = 0

    def flush() -> None:
        nonlocal batch, batch_bytes
        if batch:
            done: set[str] = set()
            with store.transaction() as db:
                for job in batch:
                    done.update(commit(db, job, computer))
            touched.update(done)  # only once the transaction has committed
        batch, batch_bytes = [], 0

    def read(adapter: Adapter, path: Path) -> None:
        """Prepare the file's new bytes, a bounded piece at a time, into the batch."""
        nonlocal batch_bytes
        again = force
        while True:
            try:
                job = prepare(store.conn, adapter, path, again)
            except NotARegularFile as exc:
                report.passed_over.append((shown(path), exc.kind))
                log(f"sync: passed over {shown(path)}: {exc}")
                return
            except OSError as exc:
                report.files_failed += 1
                log(f"sync: cannot read {shown(path)}: {exc}")
                return
            if job is None:
                return
            report.bytes_read += job.nbytes
            for reason, count in job.parsed.skipped.items():
                report.skipped[reason] = report.skipped.get(reason, 0) + count
            batch.append(job)
            batch_bytes += job.nbytes
            if job.more or batch_bytes >= _BATCH_BYTES or len(batch) >= _BATCH_FILES:
                flush()  # a file read in pieces goes on from what is committed
            if not job.more:
                report.files_read += 1
                return
            again = False

    last_tick = 0.0
    try:
        for n, (adapter, path) in enumerate(files, 1):
            read(adapter, path)
            if progress and (time.monotonic() - last_tick > 0.1 or n == len(files)):
                progress(n, len(files))
                last_tick = time.monotonic()
        flush()
    except Exception as exc:  # a transaction that cannot be written rolls back whole
        if not is_disk_full(exc):
            raise
        log(f"sync: stopped, the disk is full: {exc}")
        report.disk_full = True
        report.sessions_touched = len(touched)
        return report
    from recall.privacy.forget import compact_if_pending  # finish hooks' deletions

    compact_if_pending(store)
    report.sessions_touched = len(touched)
    report.missing = _mark_missing(store, {stored_path(p) for _, p in files})
    return report
