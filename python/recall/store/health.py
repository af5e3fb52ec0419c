"""Is the index intact? The database file and both FTS5 indexes, checked without changing them.

Used by `recall doctor` and by the crash tests after every kill. The FTS5
checks are `INSERT` commands and so need a writable connection; they run in a
transaction that is rolled back, under the write lock, while a read-only
connection stays open so that closing the writable one never checkpoints:
the WAL is left exactly as it was found.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from recall.errors import StoreError
from recall.record import Record, field
from recall.store.locking import write_lock

FTS_TABLES = ("messages_fts", "sessions_fts", "memories_fts", "file_chunks_fts")
"""The derived full-text indexes; `rebuild_fts` regenerates them from their tables."""


def _lock_path(path: Path) -> Path:
    return path.with_name(path.name + ".lock")


class IndexHealth(Record):
    database: list[str] = field(default_factory=list)
    """What `PRAGMA integrity_check` (or opening the file) found wrong."""
    fts: list[str] = field(default_factory=list)
    """What the FTS5 integrity checks found wrong."""


def index_problems(path: Path, timeout: float = 10.0) -> list[str]:
    """What is wrong with the database at `path` and its FTS5 indexes (empty: all is well)."""
    health = check_index(path, timeout)
    return health.database + health.fts


def check_index(path: Path, timeout: float = 10.0) -> IndexHealth:
    """Check the database file, then (if it is readable) both FTS5 indexes."""
    if Path(f"{path}-journal").exists():
        _roll_back_hot_journal(path, timeout)
    try:
        reader = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True, timeout=timeout)
    except sqlite3.Error as exc:
        return IndexHealth(database=[f"cannot open {path}: {exc}"])
    try:
        try:
            rows = [str(r[0]) for r in reader.execute("PRAGMA integrity_check(20)")]
            tables = {r[0] for r in reader.execute("SELECT name FROM sqlite_master")}
        except sqlite3.DatabaseError as exc:
            return IndexHealth(database=[str(exc)])
        health = IndexHealth(database=[] if rows == ["ok"] else rows)
        if "messages" in tables:  # else a new, empty database: nothing indexed yet
            health.fts = _fts_problems(path, timeout)
        return health
    finally:
        reader.close()


def _roll_back_hot_journal(path: Path, timeout: float) -> None:
    """Let SQLite roll back what a killed writer left in a rollback journal.

    A process killed while creating the database (before it switched to WAL)
    leaves a hot journal, which a read-only connection may not roll back. Any
    writable connection's first read does, exactly as the next `recall`
    command would; this only makes the check see the state every command sees.
    """
    with write_lock(_lock_path(path), timeout):
        conn = sqlite3.connect(str(path), timeout=timeout)
        try:
            conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
        except sqlite3.DatabaseError:
            pass  # reported by the integrity check that follows
        finally:
            conn.close()


def present_fts(conn: sqlite3.Connection) -> list[str]:
    """The FTS indexes this database has (one made before a migration lacks its tables)."""
    marks = ",".join("?" * len(FTS_TABLES))
    sql = f"SELECT name FROM sqlite_master WHERE type = 'table' AND name IN ({marks})"
    have = {r[0] for r in conn.execute(sql, FTS_TABLES)}
    return [t for t in FTS_TABLES if t in have]


def _fts_problems(path: Path, timeout: float) -> list[str]:
    problems = []
    with write_lock(_lock_path(path), timeout):
        conn = sqlite3.connect(str(path), isolation_level=None, timeout=timeout)
        try:
            conn.execute("BEGIN IMMEDIATE")
            for table in present_fts(conn):
                try:
                    # rank 1: also compare the index with its external content table
                    conn.execute(
                        f"INSERT INTO {table}({table}, rank) VALUES ('integrity-check', 1)"
                    )
                except sqlite3.DatabaseError as exc:
                    problems.append(f"{table}: {exc}")
            conn.execute("ROLLBACK")
        except sqlite3.DatabaseError as exc:
            problems.append(f"full-text indexes: {exc}")
        finally:
            conn.close()
    return problems


def rebuild_fts(path: Path, timeout: float = 60.0) -> None:
    """Regenerate every FTS5 index from its content table."""
    with write_lock(_lock_path(path), timeout):
        conn = sqlite3.connect(str(path), isolation_level=None, timeout=timeout)
        try:
            conn.execute("BEGIN IMMEDIATE")
            for table in present_fts(conn):
                conn.execute(f"INSERT INTO {table}({table}) VALUES ('rebuild')")
            conn.execute("COMMIT")
        except sqlite3.DatabaseError as exc:
            raise StoreError(f"cannot rebuild the full-text indexes of {path}: {exc}") from exc
        finally:
            conn.close()
