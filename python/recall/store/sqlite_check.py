"""Which SQLite recall runs on, and whether it can be trusted with the index (docs/reliability.md).

recall uses whatever SQLite the Python interpreter was built with (CPython's
installers bundle one; Linux distributions link the system library), so the
version is not ours to choose. What recall needs from it:

- FTS5 (full-text search), compiled into nearly every build since 3.9;
- WAL journal mode (since 3.7), checked when the database is opened;
- UPSERT (`INSERT … ON CONFLICT DO UPDATE`, since 3.24.0), used by the writer.

SQLite 3.7.0 through 3.51.2 (except the 3.44.6 and 3.50.7 backports) also has
the WAL-reset race: a checkpoint that starts while another connection commits
and resets the WAL can corrupt the database. recall does not wait for a fixed
SQLite: on every version, every write transaction and so every checkpoint
happens under one cross-process lock (`store/locking.py`), and readers open
the database read-only, which never checkpoints. Two connections therefore
never write or checkpoint at once, which is the race's precondition.
"""

from __future__ import annotations

import sqlite3

from recall.errors import StoreError
from recall.record import Record
from recall.store.locking import wal_reset_bug

MIN_VERSION = (3, 24, 0)
"""The oldest SQLite recall accepts: UPSERT arrived in 3.24.0."""


class SqliteSupport(Record):
    version: str
    fts5: bool
    wal_reset_bug: bool
    problems: list[str]
    """Why this SQLite cannot hold recall's index (empty when it can)."""

    @property
    def usable(self) -> bool:
        return not self.problems

    def wal_note(self) -> str:
        if self.wal_reset_bug:
            return (
                f"SQLite {self.version} has the WAL-reset bug (fixed in 3.51.3); recall "
                "serialises every writer and checkpoint with its write lock, so it cannot occur"
            )
        return f"SQLite {self.version} has the WAL-reset fix"


def _version_tuple(version: str) -> tuple[int, ...]:
    return tuple(int(p) for p in version.split(".")[:3] if p.isdigit())


def _has_fts5() -> bool:
    conn = sqlite3.connect(":memory:")
    try:
        conn.execute("CREATE VIRTUAL TABLE probe USING fts5(text)")
    except sqlite3.OperationalError:
        return False
    finally:
        conn.close()
    return True


def probe(version: str | None = None, fts5: bool | None = None) -> SqliteSupport:
    """What this interpreter's SQLite offers (arguments override, for tests and doctor)."""
    version = version or sqlite3.sqlite_version
    fts5 = _has_fts5() if fts5 is None else fts5
    problems = []
    if _version_tuple(version) < MIN_VERSION:
        oldest = ".".join(map(str, MIN_VERSION))
        problems.append(f"SQLite {version} is older than {oldest}, which recall needs (UPSERT)")
    if not fts5:
        problems.append(f"SQLite {version} was built without FTS5 (full-text search)")
    return SqliteSupport(
        version=version, fts5=fts5, wal_reset_bug=wal_reset_bug(version), problems=problems
    )


def require(support: SqliteSupport | None = None) -> SqliteSupport:
    """Raise a StoreError naming the fix when this SQLite cannot hold the index."""
    support = support or probe()
    if not support.usable:
        raise StoreError(
            "; ".join(support.problems)
            + ": use a Python built with a newer SQLite (python.org and uv builds bundle one)"
        )
    return support
