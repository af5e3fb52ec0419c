"""A cross-process write lock beside the database.

SQLite before 3.51.3 (other than the 3.44.6 and 3.50.7 backports) can corrupt
a WAL database when two connections race on a WAL reset, and Python often
ships such a SQLite. recall therefore lets exactly one process write (and so
checkpoint) at a time: every write transaction holds this lock. Readers open
the database read-only, and a read-only connection never checkpoints, so
searching stays lock-free. A writer that finds the lock taken polls for it
(every 1 ms, doubling to 50 ms, until `timeout`) instead of failing on
SQLITE_BUSY; waiting writers are not served in the order they came.
"""

from __future__ import annotations

import os
import sqlite3
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

from recall.errors import StoreError
from recall.record import Record

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


# SQLite versions carrying the WAL-reset fix (docs/reliability.md).
_FIXED_BACKPORTS = {(3, 44, 6), (3, 50, 7)}


def wal_reset_bug(version: str | None = None) -> bool:
    """Whether this SQLite has the WAL-reset corruption bug fixed in 3.51.3."""
    parts = (version or sqlite3.sqlite_version).split(".")
    v = tuple(int(p) for p in parts[:3] if p.isdigit())
    return not (v >= (3, 51, 3) or v in _FIXED_BACKPORTS)


def _record_holder(fd: int) -> None:
    """Write "PID START" into the lock file, so `recall doctor` can name a holder.

    Purely informational: the OS lock is the truth and dies with its process,
    so a killed writer can never leave the lock held; at worst its line stays
    behind, naming a process that no longer exists.
    """
    try:
        os.ftruncate(fd, 0)
        os.lseek(fd, 0, os.SEEK_SET)
        os.write(fd, f"{os.getpid()} {time.time():.3f}\n".encode())
        os.lseek(fd, 0, os.SEEK_SET)
    except OSError:  # the lock still works without its note
        pass


def _clear_holder(fd: int) -> None:
    with suppress(OSError):
        os.ftruncate(fd, 0)


@contextmanager
def write_lock(lock_path: Path, timeout: float = 60.0) -> Iterator[None]:
    """Hold the database's write lock, waiting up to `timeout` seconds."""
    try:
        fd = os.open(lock_path, os.O_RDWR | os.O_CREAT, 0o600)
    except OSError as exc:
        raise StoreError(f"cannot open the write lock {lock_path}: {exc.strerror}") from exc
    try:
        deadline = time.monotonic() + timeout
        delay = 0.001
        while not _try_lock(fd):
            if time.monotonic() >= deadline:
                raise StoreError(
                    f"timed out after {timeout:.0f}s waiting for {lock_path}"
                    f"{_holder_note(lock_path)}; `recall doctor` shows who holds it"
                )
            time.sleep(delay)
            delay = min(delay * 2, 0.05)
        _record_holder(fd)
        try:
            yield
        finally:
            _clear_holder(fd)
            _unlock(fd)
    finally:
        os.close(fd)


class Holder(Record):
    """Who last took the write lock, as recorded in the lock file."""

    pid: int
    since: float


def read_holder(lock_path: Path) -> Holder | None:
    """The holder recorded in the lock file, if any (it may have died since)."""
    try:
        pid, since = lock_path.read_text(encoding="ascii").split()[:2]
        return Holder(pid=int(pid), since=float(since))
    except (OSError, ValueError, UnicodeDecodeError):
        return None


def _holder_note(lock_path: Path) -> str:
    holder = read_holder(lock_path)
    return f" (held by pid {holder.pid})" if holder else ""


def lock_is_free(lock_path: Path) -> bool:
    """Whether nobody holds the write lock right now (it is taken and released at once)."""
    try:
        fd = os.open(lock_path, os.O_RDWR | os.O_CREAT, 0o600)
    except OSError as exc:
        raise StoreError(f"cannot open the write lock {lock_path}: {exc.strerror}") from exc
    try:
        if not _try_lock(fd):
            return False
        _unlock(fd)
        return True
    finally:
        os.close(fd)
