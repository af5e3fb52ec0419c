"""`recall show ID --team`: one session from the team's index, as `show` prints a mirror.

The id is resolved as locally (an exact id, else a unique prefix) among the
sessions this person may read; row-level security decides which those are.
A session pushed from several computers, or by several people, is ambiguous
until `--computer team:PERSON@COMPUTER` (as search prints it) narrows it.
"""

from __future__ import annotations

from typing import Any

from recall.errors import NotFoundError, UsageError
from recall.store.queries import Mirror, ShownMessage
from recall.team import connect, schema
from recall.team.search import team_computer
from recall.team.terms import like
from recall.timeutil import format_ts

S = schema.SCHEMA


def where(name: str) -> tuple[str | None, str | None]:
    """(person, computer) a `--computer team[:PERSON@COMPUTER | :COMPUTER]` name narrows to."""
    if name == "team":
        return None, None
    rest = name.removeprefix("team:")
    if "@" in rest:
        person, _, computer = rest.partition("@")
        return person or None, computer or None
    return None, rest or None


def _find(
    conn: Any, ref: str, agent: str | None, person: str | None, computer: str | None
) -> tuple[Any, ...]:
    narrow = ""
    args: list[Any] = []
    for col, value in (("agent", agent), ("person", person), ("computer", computer)):
        if value is not None:
            narrow += f" AND {col} = %s"
            args.append(value)
    cols = (
        "person, computer, agent, session_id, project, title, started_at, ended_at,"
        " parent_session_id"
    )
    rows = conn.execute(
        f"SELECT {cols} FROM {S}.sessions WHERE session_id = %s{narrow} LIMIT 20", [ref, *args]
    ).fetchall()
    if not rows:
        rows = conn.execute(
            f"SELECT {cols} FROM {S}.sessions WHERE session_id LIKE %s{narrow}"
            " ORDER BY session_id LIMIT 20",
            [like(ref)[1:], *args],
        ).fetchall()
    if not rows:
        raise NotFoundError(f"no session of the team's matches {ref!r}")
    if len(rows) > 1:
        names = ", ".join(f"{r[3]} ({team_computer(r[0], r[1])}, {r[2]})" for r in rows[:5])
        raise UsageError(
            f"{ref!r} names several of the team's sessions: {names}; "
            "narrow with --agent or --computer team:PERSON@COMPUTER"
        )
    return tuple(rows[0])


def load(ref: str, agent: str | None = None, name: str = "team") -> Mirror:
    """The team's mirror of the session `ref` names."""
    import psycopg

    ref = ref.strip()
    if not ref:
        raise UsageError("empty session id")
    person, computer = where(name)
    with connect.connect(read=True) as conn:
        schema.require(conn)
        try:
            row = _find(conn, ref, agent, person, computer)
            key = row[:4]
            messages = conn.execute(
                f"SELECT role, text, ts FROM {S}.messages WHERE person = %s AND computer = %s"
                " AND agent = %s AND session_id = %s ORDER BY position",
                key,
            ).fetchall()
            subagents = conn.execute(
                f"SELECT session_id FROM {S}.sessions WHERE person = %s AND computer = %s"
                " AND agent = %s AND parent_session_id = %s ORDER BY started_at",
                (row[0], row[1], row[2], row[3]),
            ).fetchall()
        except psycopg.Error as exc:
            raise connect.failure(exc) from None
    return Mirror(
        session_id=row[3],
        agent=row[2],
        project=row[4],
        computer=team_computer(row[0], row[1]),
        title=row[5],
        started_at=format_ts(row[6]),
        ended_at=format_ts(row[7]),
        transcript_path=None,
        messages=[ShownMessage(role=r, text=t, timestamp=format_ts(ts)) for r, t, ts in messages],
        parent_session_id=row[8],
        subagents=[r[0] for r in subagents],
    )
