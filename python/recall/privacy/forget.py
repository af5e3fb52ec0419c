"""Deleting for real: sessions, their FTS entries, and every copy in the database file.

Deleting rows is not enough to forget: FTS5 keeps deleted terms in its
segments until they merge, SQLite leaves freed cells on free pages, and the
WAL holds old page images. `compact` therefore merges (or rebuilds) the FTS
indexes with `secure_delete` on, checkpoints the WAL to zero bytes, VACUUMs
the file (rewriting every page) and truncates the WAL again.
"""

from __future__ import annotations

import sqlite3
import time

from recall.record import Record
from recall.store import Store
from recall.store.locking import write_lock

FTS_TABLES = ("messages_fts", "sessions_fts")
"""External-content FTS5 indexes over conversation text; other issues add theirs here."""


CHECKPOINT_TRIES = 25
"""Checkpoint attempts (~0.2 s each) before giving up on a reader that pins the WAL."""


class Forgotten(Record):
    sessions: list[str]
    messages: int


def family(db: sqlite3.Connection, session_id: str, agent: str) -> list[int]:
    """Row ids of a session and of its sub-agent sessions."""
    return [
        int(r[0])
        for r in db.execute(
            "SELECT id FROM sessions WHERE agent = ? AND (session_id = ? OR parent_session_id = ?)",
            (agent, session_id, session_id),
        )
    ]


def delete_sessions(db: sqlite3.Connection, rowids: list[int], reason: str) -> Forgotten:
    """Delete sessions and their messages and leave a tombstone for each (in a transaction)."""
    from recall.privacy.policy import record_tombstone

    done = Forgotten(sessions=[], messages=0)
    for rowid in rowids:
        row = db.execute("SELECT session_id, agent FROM sessions WHERE id = ?", (rowid,)).fetchone()
        if row is None:
            continue
        cur = db.execute("DELETE FROM messages WHERE session = ?", (rowid,))
        done.messages += max(cur.rowcount, 0)
        db.execute("DELETE FROM sessions WHERE id = ?", (rowid,))
        record_tombstone(db, row[0], row[1], reason)
        done.sessions.append(row[0])
    return done


def _checkpoint(conn: sqlite3.Connection) -> bool:
    """Checkpoint the whole WAL and truncate it; retries while a reader pins old frames.

    False when a reader kept it from finishing (for ~5 s): old frames may remain.
    """
    from recall.store.db import BUSY_TIMEOUT_MS

    # TRUNCATE waits in the busy handler for readers: keep each wait short.
    conn.execute("PRAGMA busy_timeout=100")
    try:
        for _ in range(CHECKPOINT_TRIES):
            busy, _log, _done = conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
            if not busy:
                return True
            time.sleep(0.1)
        return False
    finally:
        conn.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")


def compact(store: Store, rebuild: bool = False) -> bool:
    """Leave no trace of deleted or rewritten text in the database file or its WAL.

    `rebuild` re-creates the FTS indexes from their content tables (after
    text was rewritten); otherwise they are merged into one segment each,
    which drops deleted entries. Takes the write lock; runs no transaction.
    Returns False when another process's open read kept the WAL from being
    emptied (the caller should say so: running again later finishes the job).
    """
    conn = store.conn
    with write_lock(store.lock_path):
        conn.execute("PRAGMA secure_delete=ON")
        command = "rebuild" if rebuild else "optimize"
        conn.execute("BEGIN IMMEDIATE")
        try:
            for table in FTS_TABLES:
                conn.execute(f"INSERT INTO {table}({table}) VALUES (?)", (command,))
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        conn.execute("COMMIT")
        _checkpoint(conn)
        conn.execute("VACUUM")
        conn.execute("UPDATE forgotten SET compacted = 1 WHERE compacted = 0")
        return _checkpoint(conn)


def compact_if_pending(store: Store) -> bool:
    """Compact when a session was deleted without it (by a hook); True when done or not needed."""
    row = store.conn.execute("SELECT 1 FROM forgotten WHERE compacted = 0 LIMIT 1").fetchone()
    if row is None:
        return True
    return compact(store)
