"""Deleting for real: sessions, their FTS entries, and every copy in the database file.

This module owns tombstones (the `forgotten` table) and every step of
`recall forget`: finding the sessions, deleting them, compacting the file.

Deleting rows is not enough to forget: FTS5 keeps deleted terms in its
segments until they merge, SQLite leaves freed cells on free pages, and the
WAL holds old page images. `compact` therefore merges (or rebuilds) the FTS
indexes with `secure_delete` on, checkpoints the WAL to zero bytes, VACUUMs
the file (rewriting every page) and truncates the WAL again.
"""

from __future__ import annotations

import sqlite3
import time

from recall.errors import NotFoundError
from recall.privacy.projects import project_matches
from recall.record import Record
from recall.store import Store
from recall.store.locking import write_lock
from recall.store.queries import resolve_session
from recall.store.titles import forget_summaries
from recall.store.writer import message_digest

FORGET = "forget"
"""Tombstone reason: `recall forget`."""
MARKER = "marker"
"""Tombstone reason: a user message carried the ignore marker."""

FTS_TABLES = ("messages_fts", "sessions_fts", "memories_fts", "file_chunks_fts")
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


def is_forgotten(db: sqlite3.Connection, session_id: str, agent: str) -> bool:
    row = db.execute(
        "SELECT 1 FROM forgotten WHERE session_id = ? AND agent = ?", (session_id, agent)
    ).fetchone()
    return row is not None


def record_tombstone(db: sqlite3.Connection, session_id: str, agent: str, reason: str) -> None:
    db.execute(
        "INSERT OR REPLACE INTO forgotten(session_id, agent, reason, forgotten_at)"
        " VALUES (?, ?, ?, ?)",
        (session_id, agent, reason, time.time()),
    )


def targets(
    db: sqlite3.Connection, session: str | None, agent: str | None, project: str | None
) -> list[int]:
    """Row ids `recall forget` means: a session (a unique id prefix) with its sub-agents,
    or every session of a project (a directory or glob, directories below it too)."""
    if session:
        rowid = resolve_session(db, session, agent)
        sid, owner = db.execute(
            "SELECT session_id, agent FROM sessions WHERE id = ?", (rowid,)
        ).fetchone()
        return family(db, sid, owner)
    only = " WHERE agent = ?" if agent else ""
    rows = db.execute(f"SELECT id, project FROM sessions{only}", (agent,) if agent else ())
    found = [int(r) for r, p in rows if p and project and project_matches(p, [project])]
    if not found:
        raise NotFoundError(f"no indexed session belongs to project {project!r}")
    return found


def session_ids(db: sqlite3.Connection, rowids: list[int]) -> list[str]:
    """The session ids of `rowids`, sorted (what a dry run lists)."""
    marks = ",".join("?" * len(rowids))
    sql = f"SELECT session_id FROM sessions WHERE id IN ({marks}) ORDER BY session_id"
    return [r[0] for r in db.execute(sql, rowids)]


def session_keys(db: sqlite3.Connection, rowids: list[int]) -> list[tuple[str, str]]:
    """(session_id, agent) of `rowids`: what tombstones and digests name a session by."""
    marks = ",".join("?" * len(rowids))
    sql = f"SELECT session_id, agent FROM sessions WHERE id IN ({marks})"
    return [(r[0], r[1]) for r in db.execute(sql, rowids)]


def delete(store: Store, rowids: list[int]) -> Forgotten:
    """Delete `rowids` for good, with tombstones; the caller compacts (after taking back
    what was derived from them: `memory.digest_forget`)."""
    store.conn.execute("PRAGMA secure_delete=ON")
    with store.transaction() as db:
        return delete_sessions(db, rowids, FORGET)


def forget(store: Store, rowids: list[int]) -> tuple[Forgotten, bool]:
    """Delete `rowids` for good, with tombstones, and compact the file.

    Returns what was forgotten and whether the WAL could be emptied (a
    reader holding it open leaves old frames until the next compaction).
    """
    done = delete(store, rowids)
    return done, compact(store)


def forget_marked(db: sqlite3.Connection, session_id: str, agent: str) -> None:
    """Delete what is indexed of a session whose new turns carry the ignore marker, and
    leave a tombstone even when nothing was indexed yet (inside the caller's transaction)."""
    db.execute("PRAGMA secure_delete=ON")
    delete_sessions(db, family(db, session_id, agent), MARKER)
    record_tombstone(db, session_id, agent, MARKER)


def delete_sessions(db: sqlite3.Connection, rowids: list[int], reason: str) -> Forgotten:
    """Delete sessions and their messages and leave a tombstone for each (in a transaction)."""
    done = Forgotten(sessions=[], messages=0)
    for rowid in rowids:
        row = db.execute("SELECT session_id, agent FROM sessions WHERE id = ?", (rowid,)).fetchone()
        if row is None:
            continue
        db.executemany(
            "INSERT OR IGNORE INTO forgotten_messages(agent, digest) VALUES (?, ?)",
            (
                (row[1], message_digest(key, text))
                for key, text in db.execute(
                    "SELECT key, text FROM messages WHERE session = ?", (rowid,)
                ).fetchall()
            ),
        )
        forget_summaries(db, rowid, tombstone=True)
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
