"""`recall sync`: reconcile every transcript on this computer with the index.

Idempotent and resumable: unchanged files cost a `stat`, grown files are read
from where the index stopped, and transcripts that disappeared keep their
mirrors (agents delete old transcripts; recall's copy must outlive them).
"""

from __future__ import annotations

import os
import sqlite3
import time
from collections.abc import Callable, Iterable
from functools import partial
from pathlib import Path

from recall.agents import ADAPTERS, Adapter
from recall.agents.base import SessionStore, StoredSession, store_source
from recall.config import load_config
from recall.errors import is_disk_full
from recall.ingest import Job, commit, prepare, prepare_stored
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


def stored_sessions(
    adapters: Iterable[Adapter], unread: list[str] | None = None
) -> list[tuple[SessionStore, StoredSession]]:
    """Every session of every agent that keeps its sessions in a database or a storage
    tree (`SessionStore`), with its fingerprint. A root that cannot be listed now (locked
    past the timeout, damaged) is logged and added to `unread`: what the index holds
    of it is left as it is, never marked gone."""
    found: dict[str, tuple[SessionStore, StoredSession]] = {}
    for adapter in adapters:
        if not isinstance(adapter, SessionStore):
            continue
        for root in roots_for(adapter):
            if not root.exists():
                continue
            try:
                for stored in adapter.sessions(root):
                    found.setdefault(stored.key, (adapter, stored))
            except (sqlite3.Error, OSError) as exc:
                log(f"sync: cannot read {adapter.name} sessions in {shown(root)}: {exc}")
                if unread is not None:
                    unread.append(str(root))
    return list(found.values())


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


def _kept(stored: str, unread: list[str]) -> bool:
    """Whether a stored session's key belongs to a store that could not be listed now."""
    source = store_source(stored)
    return source is not None and any(
        source == root or source.startswith(root.rstrip("/\\") + os.sep) for root in unread
    )


def _mark_missing(store: Store, present: set[str], unread: list[str]) -> int:
    rows = store.conn.execute("SELECT path FROM transcripts WHERE missing = 0").fetchall()
    gone = [
        r[0] for r in rows if r[0] not in present and not _exists(r[0]) and not _kept(r[0], unread)
    ]
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
    unread: list[str] = []
    stores = stored_sessions(adapters, unread)
    report = SyncReport(
        files_seen=len(files) + len(stores) + len(passed_over),
        passed_over=passed_over,
        files_failed=len(unread),
    )
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

    def read_stored(adapter: SessionStore, stored: StoredSession) -> None:
        """Prepare one stored session into the batch, when its fingerprint moved."""
        nonlocal batch_bytes
        try:
            job = prepare_stored(store.conn, adapter, stored, force)
        except (sqlite3.Error, OSError) as exc:
            report.files_failed += 1
            log(f"sync: cannot read {adapter.name} session in {shown(stored.source)}: {exc}")
            return
        if job is None:
            return
        for reason, count in job.parsed.skipped.items():
            report.skipped[reason] = report.skipped.get(reason, 0) + count
        report.files_read += 1
        batch.append(job)
        batch_bytes += job.nbytes
        if batch_bytes >= _BATCH_BYTES or len(batch) >= _BATCH_FILES:
            flush()

    work: list[Callable[[], None]] = [partial(read, a, p) for a, p in files]
    work += [partial(read_stored, a, s) for a, s in stores]
    total = len(work)
    last_tick = 0.0
    try:
        for n, step in enumerate(work, 1):
            step()
            if progress and (time.monotonic() - last_tick > 0.1 or n == total):
                progress(n, total)
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
    present = {stored_path(p) for _, p in files}
    present.update(current().redact(s.key) for _, s in stores)
    report.missing = _mark_missing(store, present, unread)
    return report
