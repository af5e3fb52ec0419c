"""`recall team status`: where the team's index is, who this is there, what it holds."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from recall.record import Record
from recall.team import schema
from recall.team.connect import failure

if TYPE_CHECKING:
    import psycopg

S = schema.SCHEMA


class TeamStatus(Record):
    server: str
    person: str
    tls: bool
    migrations: list[str]
    model: str | None
    dims: int | None
    sessions: int
    """Sessions this person may read (their own and shared ones)."""
    messages: int
    chunks: int
    people: int
    mine: int
    """Sessions this person pushed from this computer."""
    last_push: str | None


def status(conn: psycopg.Connection[Any], computer: str) -> TeamStatus:
    import psycopg

    try:
        server, person, tls = conn.execute(
            "SELECT current_setting('server_version'), current_user,"
            " coalesce((SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()), false)"
        ).fetchone() or ("?", "?", False)
        migrations = schema.applied(conn)
        if not migrations:
            return TeamStatus(server, person, tls, [], None, None, 0, 0, 0, 0, 0, None)
        schema.require(conn)
        settings = schema.settings(conn)
        sessions, people = conn.execute(
            f"SELECT count(*), count(DISTINCT person) FROM {S}.sessions"
        ).fetchone() or (0, 0)
        (messages,) = conn.execute(f"SELECT count(*) FROM {S}.messages").fetchone() or (0,)
        (chunks,) = conn.execute(f"SELECT count(*) FROM {S}.chunks").fetchone() or (0,)
        mine, last = conn.execute(
            f"SELECT count(*), max(pushed_at) FROM {S}.sessions"
            " WHERE person = current_user AND computer = %s",
            (computer,),
        ).fetchone() or (0, None)
        conn.rollback()
    except psycopg.Error as exc:
        raise failure(exc) from None
    return TeamStatus(
        server=server,
        person=person,
        tls=bool(tls),
        migrations=migrations,
        model=settings.get("model"),
        dims=int(settings["dims"]) if "dims" in settings else None,
        sessions=int(sessions),
        messages=int(messages),
        chunks=int(chunks),
        people=int(people),
        mine=int(mine),
        last_push=last.isoformat(timespec="seconds") if last else None,
    )
