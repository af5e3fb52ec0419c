"""`recall team push`: make the team's rows for this computer match what it may share.

One pass: read the digests the team holds for this person and computer (one
query), read this computer's allowed sessions (`local`), upsert each session
whose digest differs (its row, then its messages and vectors replaced whole,
in one transaction per batch), and delete every row this computer no longer
allows: forgotten, excluded, taken off the allow-list or gone. An unchanged
index sends nothing but that first query. A forgotten session is tombstoned
locally and so never read again, which is why it never comes back.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from recall.config import TeamConfig
from recall.record import Record
from recall.team import local, schema
from recall.team.connect import failure
from recall.team.vectors import register

if TYPE_CHECKING:
    import psycopg

S = schema.SCHEMA


class PushReport(Record):
    computer: str
    person: str
    sessions: int
    """Sessions sent (new or changed)."""
    messages: int
    chunks: int
    deleted: int
    unchanged: int
    model: str | None
    """The model whose vectors were sent; None: text only."""


def push(
    conn: psycopg.Connection[Any],
    db: sqlite3.Connection,
    team: TeamConfig,
    computer: str,
    model: str | None,
    progress: Callable[[int], None] | None = None,
) -> PushReport:
    """Push this computer's allowed sessions (`model`: the vectors to send, None for text
    only); TeamError, in one line, for anything the database refuses."""
    import psycopg

    try:
        schema.require(conn)
        if model is not None:
            schema.model_check(conn, model)
            register(conn)
        (person,) = conn.execute("SELECT current_user").fetchone() or ("?",)
        held = dict(
            ((agent, sid), dig)
            for agent, sid, dig in conn.execute(
                f"SELECT agent, session_id, digest FROM {S}.sessions"
                " WHERE person = current_user AND computer = %s",
                (computer,),
            )
        )
        conn.commit()
        wanted = local.candidates(db, team)
        gone = [k for k in held if k not in wanted]
        report = PushReport(computer, person, 0, 0, 0, 0, 0, model)
        batch: list[local.Session] = []
        for session in local.read(db, list(wanted.values()), model):
            if held.get((session.agent, session.session_id)) == session.digest:
                report.unchanged += 1
                continue
            batch.append(session)
            if len(batch) >= local.BATCH:
                _send(conn, computer, batch, report)
                batch = []
                if progress:
                    progress(report.sessions)
        if batch:
            _send(conn, computer, batch, report)
        if gone:
            report.deleted = _delete(conn, computer, gone)
    except psycopg.Error as exc:
        conn.rollback()
        raise failure(exc) from None
    return report


def _send(
    conn: psycopg.Connection[Any], computer: str, batch: list[local.Session], report: PushReport
) -> None:
    with conn.transaction(), conn.cursor() as cur:
        for s in batch:
            cur.execute(
                f"""INSERT INTO {S}.sessions AS t (computer, agent, session_id, project, title,
                        parent_session_id, started_at, ended_at, message_count, shared, digest)
                    VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s)
                    ON CONFLICT (person, computer, agent, session_id) DO UPDATE SET
                        project = excluded.project, title = excluded.title,
                        parent_session_id = excluded.parent_session_id,
                        started_at = excluded.started_at, ended_at = excluded.ended_at,
                        message_count = excluded.message_count, shared = excluded.shared,
                        digest = excluded.digest, pushed_at = now()""",
                (
                    computer,
                    s.agent,
                    s.session_id,
                    s.project,
                    s.title,
                    s.parent_session_id,
                    s.started_at,
                    s.ended_at,
                    len(s.messages),
                    s.shared,
                    s.digest,
                ),
            )
            key = (computer, s.agent, s.session_id)
            cur.execute(
                f"DELETE FROM {S}.messages WHERE person = current_user AND computer = %s"
                " AND agent = %s AND session_id = %s",
                key,
            )
            if s.messages:
                cur.execute(
                    f"""INSERT INTO {S}.messages (computer, agent, session_id, shared,
                            position, role, text, ts, words)
                        SELECT %s, %s, %s, %s, * FROM unnest(
                            %s::integer[], %s::text[], %s::text[], %s::float8[], %s::integer[])""",
                    (
                        *key,
                        s.shared,
                        [m.position for m in s.messages],
                        [m.role for m in s.messages],
                        [m.text.replace("\x00", "") for m in s.messages],
                        [m.ts for m in s.messages],
                        [m.words for m in s.messages],
                    ),
                )
            if s.chunks:
                cur.execute(
                    f"""INSERT INTO {S}.chunks (computer, agent, session_id, shared,
                            position, piece, start, stop, embedding)
                        SELECT %s, %s, %s, %s, * FROM unnest(
                            %s::integer[], %s::integer[], %s::integer[], %s::integer[], %b)""",
                    (
                        *key,
                        s.shared,
                        [c.position for c in s.chunks],
                        [c.piece for c in s.chunks],
                        [c.start for c in s.chunks],
                        [c.stop for c in s.chunks],
                        [c.vector for c in s.chunks],
                    ),
                )
            report.sessions += 1
            report.messages += len(s.messages)
            report.chunks += len(s.chunks)


def _delete(conn: psycopg.Connection[Any], computer: str, keys: list[local.Key]) -> int:
    """Delete this person's rows of these sessions (messages and vectors go with them)."""
    with conn.transaction():
        cur = conn.execute(
            f"""DELETE FROM {S}.sessions t USING unnest(%s::text[], %s::text[]) AS k(agent, sid)
                WHERE t.person = current_user AND t.computer = %s
                  AND t.agent = k.agent AND t.session_id = k.sid""",
            ([a for a, _ in keys], [s for _, s in keys], computer),
        )
        return cur.rowcount


def forget(conn: psycopg.Connection[Any], computer: str, keys: list[local.Key]) -> int:
    """Delete these sessions from the team now (`recall forget`, when a team is set)."""
    import psycopg

    try:
        schema.require(conn)
        return _delete(conn, computer, keys)
    except psycopg.Error as exc:
        conn.rollback()
        raise failure(exc) from None
