"""Writing mirrors: idempotent upserts of sessions and messages from a parse.

The writer stores what it is handed. Privacy is decided above it, by
`recall.ingest`: refusals, marker deletions, and the one redaction pass
(`ingest.redacted_part`, where text enters, outside the write lock), so every
text reaching the writer is already redacted and its keys scrubbed. The store
imports neither `privacy` nor `agents`.
"""

from __future__ import annotations

import json
import sqlite3
import time
from typing import Any

from recall.digest import sha256_hex
from recall.record import Record, field, replace
from recall.store import titles
from recall.textutil import scrub
from recall.timeutil import parse_iso
from recall.types import Message, SessionInfo, SessionPart


class TranscriptMark(Record):
    """How far into a transcript file the index has read."""

    path: str
    agent: str
    size: int = 0
    mtime_ns: int = 0
    head: str | None = None
    offset: int = 0
    state: dict[str, Any] = field(default_factory=dict)
    skipped: dict[str, int] = field(default_factory=dict)


def read_mark(db: sqlite3.Connection, path: str) -> TranscriptMark | None:
    row = db.execute(
        "SELECT agent, size, mtime_ns, head, offset, state, skipped FROM transcripts"
        " WHERE path = ?",
        (path,),
    ).fetchone()
    if row is None:
        return None
    return TranscriptMark(
        path=path,
        agent=row[0],
        size=row[1],
        mtime_ns=row[2],
        head=row[3],
        offset=row[4],
        state=json.loads(row[5]),
        skipped=json.loads(row[6]),
    )


def write_mark(db: sqlite3.Connection, mark: TranscriptMark) -> None:
    """Record how far `mark.path` is read. The adapter's resume state can hold text (a
    pending title, project metadata): `ingest.redact_parsed` redacted it with the parse."""
    db.execute(
        """INSERT INTO transcripts(path, agent, size, mtime_ns, head, offset, state, skipped,
                                   indexed_at, missing)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 0)
           ON CONFLICT(path) DO UPDATE SET agent=excluded.agent, size=excluded.size,
               mtime_ns=excluded.mtime_ns, head=excluded.head, offset=excluded.offset,
               state=excluded.state, skipped=excluded.skipped, indexed_at=excluded.indexed_at,
               missing=0""",
        (
            mark.path,
            mark.agent,
            mark.size,
            mark.mtime_ns,
            mark.head,
            mark.offset,
            json.dumps(mark.state),
            json.dumps(mark.skipped),
            time.time(),
        ),
    )


def clean_ids(part: SessionPart) -> SessionPart:
    """`part` with its session ids made storable, in place: lone surrogates (from a
    non-UTF-8 file name or a cut escape) become U+FFFD. Ids are scrubbed, never
    redacted; the privacy checks and the writer both see these ids."""
    info = part.info
    part.info = replace(
        info,
        session_id=scrub(info.session_id),
        parent_session_id=scrub(info.parent_session_id) if info.parent_session_id else None,
    )
    return part


def _upsert_session(
    db: sqlite3.Connection,
    info: SessionInfo,
    computer: str,
    transcript: str | None,
) -> int:
    now = time.time()
    row = db.execute(
        "SELECT id, title_rank, metadata FROM sessions WHERE session_id = ? AND agent = ?",
        (info.session_id, info.agent),
    ).fetchone()
    if row is None:
        cur = db.execute(
            """INSERT INTO sessions(session_id, agent, computer, project, title, title_rank,
                   parent_session_id, started_at, transcript_path, metadata, updated_at)
               VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)""",
            (
                info.session_id,
                info.agent,
                computer,
                info.project,
                info.title if info.title else None,
                info.title_rank if info.title else 0,
                info.parent_session_id,
                parse_iso(info.started_at),
                transcript,
                json.dumps(info.metadata, sort_keys=True),
                now,
            ),
        )
        return int(cur.lastrowid or 0)
    rowid, rank, meta_json = row
    metadata = json.loads(meta_json)
    metadata.update(info.metadata)
    db.execute(
        """UPDATE sessions SET project = coalesce(?, project),
               parent_session_id = coalesce(?, parent_session_id),
               transcript_path = coalesce(transcript_path, ?),
               metadata = ?, updated_at = ? WHERE id = ?""",
        (
            info.project,
            info.parent_session_id,
            transcript,
            json.dumps(metadata, sort_keys=True),
            now,
            rowid,
        ),
    )
    if info.title and info.title_rank >= rank:
        db.execute(
            "UPDATE sessions SET title = ?, title_rank = ? WHERE id = ?",
            (info.title, info.title_rank, rowid),
        )
    return int(rowid)


def _rewind(db: sqlite3.Connection, session: int, key: str) -> None:
    row = db.execute(
        "SELECT position FROM messages WHERE session = ? AND key = ?", (session, key)
    ).fetchone()
    if row is not None:
        db.execute("DELETE FROM messages WHERE session = ? AND position >= ?", (session, row[0]))


# One statement per message, run by `executemany`: the row goes after the
# session's last position, unless another session of the same agent already
# holds the same record, key and text (a resumed session's copy: it stays
# with the session that first had it), or the record was forgotten (its
# digest is a tombstone, m005); a known key is updated in place, keeping its
# position. Keys are per session: the same key with other text is kept.
_INSERT_MESSAGE = """
    INSERT INTO messages(session, position, key, role, text, ts, bulk)
    SELECT ?1, (SELECT coalesce(max(position), -1) + 1 FROM messages WHERE session = ?1),
           ?2, ?3, ?4, ?5, 1
    WHERE NOT EXISTS (
        SELECT 1 FROM messages m JOIN sessions s ON s.id = m.session
        WHERE m.key = ?2 AND m.session != ?1 AND s.agent = ?6 AND m.text = ?4)
      AND NOT EXISTS (SELECT 1 FROM forgotten_messages WHERE agent = ?6 AND digest = ?7)
    ON CONFLICT(session, key) DO UPDATE SET role = excluded.role,
        text = excluded.text, ts = coalesce(excluded.ts, ts)
    WHERE text != excluded.text OR role != excluded.role"""


def message_digest(key: str, text: str) -> str:
    """What a message tombstone keeps of a message: a digest of its key and stored text."""
    return sha256_hex(f"{key}\x1f{text}".encode("utf-8", "surrogatepass"))


def index_new_messages(db: sqlite3.Connection, after: int) -> None:
    """Add the writer's messages with ids above `after` to the full-text index, in one
    statement: row by row, FTS5 would write a segment per message (see m004_bulk_fts).
    Rows inserted without `bulk` were indexed by the insert trigger already."""
    db.execute(
        "INSERT INTO messages_fts(rowid, text)"
        " SELECT id, text FROM messages WHERE id > ? AND bulk = 1",
        (after,),
    )


Row = tuple[int, str, str, str, float | None, str, str | None]


def _split_repeats(rows: list[Row]) -> tuple[list[Row], list[Row]]:
    """Each key's first row, and the rows repeating a key already seen in `rows`.

    A row inserted and then updated by the same statement would meet its update
    trigger before `index_new_messages` had indexed it, and FTS5 reports the
    removal of an entry it never had as corruption. Repeats therefore run as a
    second batch, after the first is indexed, with the conflict clause's
    meaning unchanged.
    """
    seen: set[str] = set()
    first: list[Row] = []
    repeats: list[Row] = []
    for row in rows:
        (repeats if row[1] in seen else first).append(row)
        seen.add(row[1])
    return first, repeats


def _insert_messages(
    db: sqlite3.Connection,
    session: int,
    agent: str,
    messages: list[Message],
    index: bool,
) -> None:
    # Digests are only compared with tombstones: none for the agent, none worth computing.
    tombstones = db.execute(
        "SELECT 1 FROM forgotten_messages WHERE agent = ? LIMIT 1", (agent,)
    ).fetchone()
    rows = []
    for m in messages:
        digest = message_digest(m.key, m.text) if tombstones else None
        rows.append((session, m.key, m.role, m.text, parse_iso(m.timestamp), agent, digest))
    first, repeats = _split_repeats(rows)
    if not index:  # the caller indexes the batch
        if repeats:  # their update would meet rows the caller has yet to index
            raise ValueError("internal: a batch indexed by its caller repeats a message key")
        db.executemany(_INSERT_MESSAGE, first)
        return
    # Rowids only grow past the largest one, so every row this part adds has an
    # id above `last`; rows updated in place keep theirs (their trigger reindexes).
    (last,) = db.execute("SELECT coalesce(max(id), 0) FROM messages").fetchone()
    db.executemany(_INSERT_MESSAGE, first)
    index_new_messages(db, last)
    if repeats:
        db.executemany(_INSERT_MESSAGE, repeats)


def _refresh_summary(db: sqlite3.Connection, session: int) -> None:
    """Recount messages and recompute times."""
    count, first_ts, last_ts = db.execute(
        "SELECT count(*), min(ts), max(ts) FROM messages WHERE session = ?", (session,)
    ).fetchone()
    (started,) = db.execute("SELECT started_at FROM sessions WHERE id = ?", (session,)).fetchone()
    known = [t for t in (started, first_ts) if t is not None]
    db.execute(
        "UPDATE sessions SET message_count = ?, started_at = ?, ended_at = ? WHERE id = ?",
        (
            count,
            min(known) if known else None,
            last_ts if last_ts is not None else started,
            session,
        ),
    )


def apply_part(
    db: sqlite3.Connection,
    part: SessionPart,
    computer: str,
    transcript: str | None,
    index: bool = True,
) -> int:
    """Merge one session's share of a parse into the store; returns the session's rowid.

    `part` has been through `ingest.redacted_part` (text redacted, keys scrubbed) and
    the privacy checks (`recall.ingest`).
    `index=False` leaves the new rows out of the full-text index: the caller indexes
    a whole batch of parts with one `index_new_messages` before it commits (one FTS5
    segment a batch instead of one a session; the streamed import does).
    """
    session = _upsert_session(db, part.info, computer, transcript)
    if part.replace:
        db.execute("DELETE FROM messages WHERE session = ?", (session,))
    for key in part.rewinds:
        _rewind(db, session, key)
    _insert_messages(db, session, part.info.agent, part.messages, index)
    _refresh_summary(db, session)
    keys = [m.key for m in part.messages]
    leaves = titles.summarised(db, part.info.agent, keys) if keys else []
    if leaves:  # a summary read earlier names one of these messages
        titles.retitle_leaves(db, part.info.agent, leaves)
    titles.first_prompt(db, session)
    return session
