"""The SQL both search legs share: filters as a WHERE clause, message positions as indexes."""

from __future__ import annotations

import sqlite3
from typing import Any

from recall.search.results import Filters
from recall.sqltext import like_literal


def filter_sql(
    f: Filters, ts_expr: str, agent: str = "s.agent", project: str = "s.project"
) -> tuple[str, list[Any]]:
    """` AND …` clauses over sessions `s` (and the timestamp `ts_expr`), with their args;
    other tables name their `agent` and `project` columns."""
    clauses: list[str] = []
    args: list[Any] = []
    if f.agents:
        clauses.append(f"{agent} IN ({','.join('?' * len(f.agents))})")
        args.extend(f.agents)
    if f.project:
        clauses.append(f"{project} LIKE ? ESCAPE '\\'")
        args.append(f"%{like_literal(f.project)}%")
    if f.since is not None:
        clauses.append(f"{ts_expr} >= ?")
        args.append(f.since)
    if f.until is not None:
        clauses.append(f"{ts_expr} <= ?")
        args.append(f.until)
    return "".join(f" AND {c}" for c in clauses), args


def _per_message(
    db: sqlite3.Connection, at: list[tuple[int, int | None]], select: str
) -> list[Any]:
    """One value per `(session rowid, position)` from one query; None for a None position.

    `select` reads from `want(sid, pos)`, the distinct pairs, and returns
    `(sid, pos, value)` rows, or `(sid, pos, *values)` for a tuple of values.
    """
    pairs = sorted({(s, p) for s, p in at if p is not None})
    found: dict[tuple[int, int], Any] = {}
    if pairs:
        values = ",".join("(?, ?)" for _ in pairs)
        args = [x for pair in pairs for x in pair]
        rows = db.execute(f"WITH want(sid, pos) AS (VALUES {values}) {select}", args)
        found = {(r[0], r[1]): r[2] if len(r) == 3 else tuple(r[2:]) for r in rows}
    return [None if p is None else found.get((s, p)) for s, p in at]


_INDEX = "(SELECT count(*) FROM messages o WHERE o.session = want.sid AND o.position < want.pos)"
"""A message's index in its session: positions have gaps (rewinds delete rows), so it is
the number of the session's messages before it."""


def message_indexes(db: sqlite3.Connection, at: list[tuple[int, int | None]]) -> list[int | None]:
    """For each `(session rowid, position)`, the message's index in its session (`_INDEX`);
    None for a None position (a title hit)."""
    return _per_message(db, at, f"SELECT sid, pos, {_INDEX} FROM want")


def message_places(
    db: sqlite3.Connection, at: list[tuple[int, int | None]]
) -> list[tuple[int | None, str]]:
    """For each `(session rowid, position)`, the message's index in its session (as
    `message_indexes`) and who wrote it; (None, "") for a None position. One query."""
    found = _per_message(
        db,
        at,
        f"SELECT want.sid, want.pos, {_INDEX}, m.role FROM want"
        " LEFT JOIN messages m ON m.session = want.sid AND m.position = want.pos",
    )
    return [(None, "") if f is None else (f[0], str(f[1] or "")) for f in found]


def message_texts(db: sqlite3.Connection, at: list[tuple[int, int | None]]) -> list[str | None]:
    """For each `(session rowid, position)`, that message's text."""
    return _per_message(
        db,
        at,
        "SELECT m.session, m.position, m.text FROM want"
        " JOIN messages m ON m.session = want.sid AND m.position = want.pos",
    )
