"""A cross-process write lock beside the database.

SQLite before 3.51.3 (other than the 3.44.6 and 3.50.7 backports) can corrupt
a WAL database when two connections race on a WAL reset, and Python often
ships such a SQLite. recall therefore lets exactly one process write (and so
checkpoint) at a time: every write transaction holds this lock. Readers open
the database read-only, and a read-only connection never checkpoints, so
searching stays lock-free. Holding the lock also means writers queue in
order instead of spinning on SQLITE_BUSY.
"""

from __future__ import annotations

import os
import sqlite3
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from recall.errors import StoreError

if sys.platform == "win32":  # pragma: no cover - exercised on the Windows CI runner
    import msvcrt

    def _try_lock(fd: int) -> bool:
        try:
            msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)
        except OSError:
            return False
        return True

    def _unlock(fd: int) -> None:
        os.lseek(fd, 0, os.SEEK_SET)
        msvcrt.locking(fd, msvcrt.LK_UNLCK, 1)

else:
    import fcntl

    def _try_lock(fd: int) -> bool:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return False
        return True

    def _unlock(fd: int) -> None:
        fcntl.flock(fd, fcntl.LOCK_UN)


# SQLite versions carrying the WAL-reset fix (SPEC §3).
_FIXED_BACKPORTS = {(3, 44, 6), (3, 50, 7)}


def wal_reset_bug(version: str | None = None) -> bool:
    """Whether this SQLite has the WAL-reset corruption bug fixed in 3.51.3."""
    parts = (version or sqlite3.sqlite_version).split(".")
    v = tuple(int(p) for p in parts[:3] if p.isdigit())
    return not (v >= (3, 51, 3) or v in _FIXED_BACKPORTS)


@contextmanager
def write_lock(lock_path: Path, timeout: float = 60.0) -> Iterator[None]:
    """Hold the database's write lock, waiting up to `timeout` seconds."""
    fd = os.open(lock_path, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        deadline = time.monotonic() + timeout
        delay = 0.001
        while not _try_lock(fd):
            if time.monotonic() >= deadline:
                raise StoreError(f"timed out after {timeout:.0f}s waiting for {lock_path}")
            time.sleep(delay)
            delay = min(delay * 2, 0.05)
        try:
            yield
        finally:
            _unlock(fd)
    finally:
        os.close(fd)
