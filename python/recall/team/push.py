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
    """Upsert a batch of sessions in one transaction of four statements: their rows, then
    their old messages (and vectors, by cascade) out, then all their messages and vectors in
    (arrays unnested server-side: one round trip each, whatever the batch holds)."""
    msgs = [(s, m) for s in batch for m in s.messages]
    chunks = [(s, c) for s in batch for c in s.chunks]
    with conn.transaction(), conn.cursor() as cur:
        cur.execute(
            f"""INSERT INTO {S}.sessions AS t (computer, agent, session_id, project, title,
                    parent_session_id, started_at, ended_at, message_count, shared, digest)
                SELECT %s, * FROM unnest(%s::text[], %s::text[], %s::text[], %s::text[],
                    %s::text[], %s::float8[], %s::float8[], %s::integer[], %s::boolean[],
                    %s::text[])
                ON CONFLICT (person, computer, agent, session_id) DO UPDATE SET
                    project = excluded.project, title = excluded.title,
                    parent_session_id = excluded.parent_session_id,
                    started_at = excluded.started_at, ended_at = excluded.ended_at,
                    message_count = excluded.message_count, shared = excluded.shared,
                    digest = excluded.digest, pushed_at = now()""",
            (
                computer,
                [s.agent for s in batch],
                [s.session_id for s in batch],
                [s.project for s in batch],
                [s.title for s in batch],
                [s.parent_session_id for s in batch],
                [s.started_at for s in batch],
                [s.ended_at for s in batch],
                [len(s.messages) for s in batch],
                [s.shared for s in batch],
                [s.digest for s in batch],
            ),
        )
        cur.execute(
            f"""DELETE FROM {S}.messages t USING unnest(%s::text[], %s::text[]) AS k(agent, sid)
                WHERE t.person = current_user AND t.computer = %s
                  AND t.agent = k.agent AND t.session_id = k.sid""",
            ([s.agent for s in batch], [s.session_id for s in batch], computer),
        )
        if msgs:
            cur.execute(
                f"""INSERT INTO {S}.messages (computer, agent, session_id, shared,
                        position, role, text, ts, words)
                    SELECT %s, * FROM unnest(%s::text[], %s::text[], %s::boolean[],
                        %s::integer[], %s::text[], %s::text[], %s::float8[], %s::integer[])""",
                (
                    computer,
                    [s.agent for s, _ in msgs],
                    [s.session_id for s, _ in msgs],
                    [s.shared for s, _ in msgs],
                    [m.position for _, m in msgs],
                    [m.role for _, m in msgs],
                    [m.text.replace("\x00", "") for _, m in msgs],
                    [m.ts for _, m in msgs],
                    [m.words for _, m in msgs],
                ),
            )
        if chunks:
            cur.execute(
                f"""INSERT INTO {S}.chunks (computer, agent, session_id, shared,
                        position, piece, start, stop, embedding)
                    SELECT %s, * FROM unnest(%s::text[], %s::text[], %s::boolean[],
                        %s::integer[], %s::integer[], %s::integer[], %s::integer[], %b)""",
                (
                    computer,
                    [s.agent for s, _ in chunks],
                    [s.session_id for s, _ in chunks],
                    [s.shared for s, _ in chunks],
                    [c.position for _, c in chunks],
                    [c.piece for _, c in chunks],
                    [c.start for _, c in chunks],
                    [c.stop for _, c in chunks],
                    [c.vector for _, c in chunks],
                ),
            )
    report.sessions += len(batch)
    report.messages += len(msgs)
    report.chunks += len(chunks)


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
