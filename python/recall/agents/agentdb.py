"""Reading an agent's own SQLite database without disturbing the agent.

The agent is the owner: recall opens its database read-only (a `mode=ro` URI
and `PRAGMA query_only`), with a short busy timeout, in autocommit so every
statement is its own read transaction that ends when its rows are fetched, and
it never takes a write lock the agent would wait on. In WAL mode a reader
never blocks the writer; in rollback mode a statement holds a shared lock only
while it runs.

Never writing beside the agent's files: opening a WAL database `mode=ro`
creates its `-wal` and `-shm` files when the agent left none (it deletes them
when it closes cleanly) and a read-only connection cannot remove them again.
So a WAL database without a `-wal` file, which nobody is writing, is opened
`immutable=1`, which reads the main file and creates nothing; one with a
`-wal` is being written (or was left so) and is read through it, `mode=ro`.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from recall.safeio import read_head
from recall.types import Parsed

BUSY_SECONDS = 2.0
"""How long a statement waits for a writer's exclusive lock before giving up (the
database is then read on the next sync; the agent is never made to wait)."""
MAX_ROW = 32 * 1024 * 1024
"""A row value larger than this is passed over and counted, never loaded."""
SKIP_BIG_ROW = "row over 32 MB"

_SQLITE_MAGIC = b"SQLite format 3\x00"


def is_sqlite(path: Path) -> bool:
    """Whether `path` is a regular file that starts as an SQLite database does."""
    try:
        return read_head(path, 16) == _SQLITE_MAGIC
    except OSError:
        return False


def _is_wal(path: Path) -> bool:
    """Whether the database header says WAL mode (read and write versions 2)."""
    try:
        head = read_head(path, 20)
    except OSError:
        return False
    return head[:16] == _SQLITE_MAGIC and head[18:20] == b"\x02\x02"


def uri_for(path: Path) -> str:
    """The URI recall opens `path` by: `immutable=1` for a WAL database no one is
    writing (no `-wal` file), `mode=ro` otherwise."""
    resolved = path.resolve()
    wal = resolved.with_name(resolved.name + "-wal")
    mode = "immutable=1" if _is_wal(resolved) and not wal.exists() else "mode=ro"
    return f"{resolved.as_uri()}?{mode}"


@contextmanager
def open_readonly(path: Path) -> Iterator[sqlite3.Connection]:
    """A read-only connection to the agent's database `path`, closed on exit.

    Raises sqlite3.Error (locked past the timeout, not a database, damaged) or
    OSError; the caller logs it and tries again on the next sync.
    """
    conn = sqlite3.connect(uri_for(path), uri=True, timeout=BUSY_SECONDS, isolation_level=None)
    try:
        conn.execute("PRAGMA query_only = 1")
        yield conn
    finally:
        conn.close()


def guarded_rows(
    conn: sqlite3.Connection, sql: str, args: tuple[Any, ...], parsed: Parsed
) -> list[tuple[Any, ...]]:
    """The rows of `sql`, which selects its own columns then `length(v)` and
    `CASE WHEN length(v) > ? THEN NULL ELSE v END` for a JSON value `v` (the first
    `?` is `MAX_ROW`): a value over `MAX_ROW` is never loaded; its row is counted
    and left out. Each row comes without the length column."""
    rows = []
    for *head, size, value in conn.execute(sql, (MAX_ROW, *args)).fetchall():
        if isinstance(size, int) and size > MAX_ROW:
            parsed.skip(SKIP_BIG_ROW)
            continue
        rows.append((*head, value))
    return rows


def capped(column: str) -> str:
    """The two trailing columns `guarded_rows` expects, for `column`."""
    return f"length({column}), CASE WHEN length({column}) > ? THEN NULL ELSE {column} END"


def tables(conn: sqlite3.Connection) -> set[str]:
    """The tables the database has (formats drift: check before querying)."""
    return {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}


def columns(conn: sqlite3.Connection, table: str) -> set[str]:
    """The columns `table` has; empty when there is no such table."""
    if table not in tables(conn):
        return set()
    return {r[1] for r in conn.execute(f'PRAGMA table_info("{table}")')}


__all__ = [
    "BUSY_SECONDS",
    "MAX_ROW",
    "SKIP_BIG_ROW",
    "capped",
    "columns",
    "guarded_rows",
    "is_sqlite",
    "open_readonly",
    "tables",
    "uri_for",
]
