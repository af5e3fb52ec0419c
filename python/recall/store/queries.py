"""Reading mirrors back: resolving session ids, whole sessions, and index statistics."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

from recall.errors import NotFoundError, UsageError
from recall.record import Record, field
from recall.timeutil import format_ts


class ShownMessage(Record):
    role: str
    text: str
    timestamp: str | None


class Mirror(Record):
    session_id: str
    agent: str
    project: str | None
    computer: str
    title: str | None
    started_at: str | None
    ended_at: str | None
    transcript_path: str | None
    messages: list[ShownMessage]
    parent_session_id: str | None = None
    subagents: list[str] = field(default_factory=list)
    metadata: dict[str, Any] = field(default_factory=dict)


def resolve_session(db: sqlite3.Connection, ref: str, agent: str | None = None) -> int:
    """The rowid of the session `ref` names: an exact id or a unique prefix (of `agent`'s)."""
    ref = ref.strip()
    if not ref:
        raise UsageError("empty session id")
    only = " AND agent = ?" if agent else ""
    extra = (agent,) if agent else ()
    exact = db.execute(
        f"SELECT id, agent FROM sessions WHERE session_id = ?{only}", (ref, *extra)
    ).fetchall()
    if len(exact) == 1:
        return int(exact[0][0])
    if exact:
        agents = ", ".join(sorted(r[1] for r in exact))
        raise UsageError(f"{ref!r} names sessions of several agents ({agents}); add --agent")
    rows = _matching(db, _like(ref) + "%", only, extra)
    parent, sep, child = ref.partition(":")
    if not rows and sep and child:  # `5c0375b4:sidechain`, as text output shows a sub-agent
        pattern = _like(parent) + "%:" + _like(child)
        rows = [r for r in _matching(db, pattern, only, extra) if r[1].partition(":")[2] == child]
    if not rows:
        raise NotFoundError(f"no session matches {ref!r}")
    if len(rows) > 1:
        # A parent and its sub-agents share a prefix; the parent is what was meant.
        top = [r for r in rows if r[2] is None]
        if len(top) == 1 and all(r[2] == top[0][1] for r in rows if r[2] is not None):
            return int(top[0][0])
        names = ", ".join(r[1] for r in rows[:5])
        raise UsageError(f"{ref!r} is ambiguous: {names}{', …' if len(rows) > 5 else ''}")
    return int(rows[0][0])


def split_ref(ref: str) -> tuple[str, int | None]:
    """A printed reference as (session, message index): `0c117353#11` and `0c117353 #11`
    (search `--messages`, `context`) open at message 11; anything else is a session alone."""
    import re

    found = re.fullmatch(r"(.*?)\s*#\s*(\d+)\s*", ref, re.DOTALL)
    if found is None or not found.group(1).strip():
        return ref, None
    return found.group(1), int(found.group(2))


def unique_prefix(db: sqlite3.Connection, session_id: str, least: int = 8) -> str:
    """The shortest prefix of `session_id` (at least `least` characters) that `show` resolves
    to it alone: longer than its common prefix with the ids sorted either side, its own
    sub-agents aside (a prefix naming a parent and its sub-agents means the parent). A
    sub-agent is printed as its parent's prefix and its own part (`5c0375b4:sidechain`)."""
    parent, sep, child = session_id.partition(":")
    if sep:
        return unique_prefix(db, parent, least) + sep + child
    before = db.execute(
        "SELECT max(session_id) FROM sessions WHERE session_id < ?", (session_id,)
    ).fetchone()[0]
    after = db.execute(
        "SELECT min(session_id) FROM sessions WHERE session_id > ? AND parent_session_id IS NOT ?",
        (session_id, session_id),
    ).fetchone()[0]
    need = least
    for other in (before, after):
        if other is None:
            continue
        shared = 0
        for a, b in zip(session_id, other, strict=False):
            if a != b:
                break
            shared += 1
        need = max(need, shared + 1)
    return session_id[:need]


def _like(text: str) -> str:
    """`text` as a literal inside a LIKE pattern (with `ESCAPE '\\'`)."""
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


def _matching(
    db: sqlite3.Connection, pattern: str, only: str, extra: tuple[str, ...]
) -> list[tuple[int, str, str | None]]:
    """Up to 20 sessions whose id is LIKE `pattern` (of the agent in `extra`, if any)."""
    return db.execute(
        "SELECT id, session_id, parent_session_id FROM sessions"
        f" WHERE session_id LIKE ? ESCAPE '\\'{only} ORDER BY session_id LIMIT 20",
        (pattern, *extra),
    ).fetchall()


def load_mirror(db: sqlite3.Connection, rowid: int) -> Mirror:
    row = db.execute(
        """SELECT session_id, agent, project, computer, title, started_at, ended_at,
                  transcript_path, parent_session_id, metadata FROM sessions WHERE id = ?""",
        (rowid,),
    ).fetchone()
    if row is None:
        raise NotFoundError("session vanished while reading")
    messages = [
        ShownMessage(role=r, text=t, timestamp=format_ts(ts))
        for r, t, ts in db.execute(
            "SELECT role, text, ts FROM messages WHERE session = ? ORDER BY position", (rowid,)
        )
    ]
    subagents = [
        r[0]
        for r in db.execute(
            "SELECT session_id FROM sessions WHERE parent_session_id = ? AND agent = ?"
            " ORDER BY started_at",
            (row[0], row[1]),
        )
    ]
    return Mirror(
        session_id=row[0],
        agent=row[1],
        project=row[2],
        computer=row[3],
        title=row[4],
        started_at=format_ts(row[5]),
        ended_at=format_ts(row[6]),
        transcript_path=row[7],
        messages=messages,
        parent_session_id=row[8],
        subagents=subagents,
        metadata=json.loads(row[9] or "{}"),
    )


class AgentStats(Record):
    agent: str
    sessions: int
    messages: int
    last_message: str | None


class Stats(Record):
    database: str
    size_bytes: int
    sessions: int
    messages: int
    transcripts: int
    transcripts_missing: int
    skipped: dict[str, int]
    last_indexed: str | None
    agents: list[AgentStats]


def stats(db: sqlite3.Connection, path: Path) -> Stats:
    agents = [
        AgentStats(agent=a, sessions=s, messages=m or 0, last_message=format_ts(last))
        for a, s, m, last in db.execute(
            "SELECT agent, count(*), sum(message_count), max(ended_at) FROM sessions"
            " GROUP BY agent ORDER BY agent"
        )
    ]
    skipped: dict[str, int] = {}
    for (raw,) in db.execute("SELECT skipped FROM transcripts WHERE skipped != '{}'"):
        for reason, count in json.loads(raw).items():
            skipped[reason] = skipped.get(reason, 0) + int(count)
    total, missing, last = db.execute(
        "SELECT count(*), coalesce(sum(missing), 0), max(indexed_at) FROM transcripts"
    ).fetchone()
    size = sum(p.stat().st_size for p in (path, path.with_name(path.name + "-wal")) if p.exists())
    return Stats(
        database=str(path),
        size_bytes=size,
        sessions=sum(a.sessions for a in agents),
        messages=sum(a.messages for a in agents),
        transcripts=total,
        transcripts_missing=missing,
        skipped=skipped,
        last_indexed=format_ts(last),
        agents=agents,
    )


class SessionBrief(Record):
    session_id: str
    agent: str
    project: str | None
    title: str | None
    ended_at: str | None


def recent_sessions(db: sqlite3.Connection, project: str, limit: int) -> list[SessionBrief]:
    """The latest top-level sessions of `project` (the directory itself, one above it or
    one inside it), newest first: what a session starting there most likely continues."""
    project = project.rstrip("/\\") or project
    rows = db.execute(
        """SELECT session_id, agent, project, title, ended_at FROM sessions
           WHERE parent_session_id IS NULL AND project IS NOT NULL
             AND (project = ?1
                  OR substr(?1, 1, length(project) + 1) = project || '/'
                  OR substr(project, 1, length(?1) + 1) = ?1 || '/')
           ORDER BY ended_at DESC LIMIT ?2""",
        (project, limit),
    )
    return [
        SessionBrief(session_id=s, agent=a, project=p, title=t, ended_at=format_ts(e))
        for s, a, p, t, e in rows
    ]


def latest_sessions(db: sqlite3.Connection, limit: int) -> list[SessionBrief]:
    """The latest top-level sessions of every project, newest first: what `recall pick`
    lists before anything is typed."""
    rows = db.execute(
        """SELECT session_id, agent, project, title, ended_at FROM sessions
           WHERE parent_session_id IS NULL ORDER BY ended_at DESC LIMIT ?""",
        (limit,),
    )
    return [
        SessionBrief(session_id=s, agent=a, project=p, title=t, ended_at=format_ts(e))
        for s, a, p, t, e in rows
    ]


class Place(Record):
    """Where a session ran, as resuming it needs: its agent, folder and computer."""

    session_id: str
    agent: str
    project: str | None
    computer: str
    parent_session_id: str | None


def place(db: sqlite3.Connection, rowid: int) -> Place:
    row = db.execute(
        "SELECT session_id, agent, project, computer, parent_session_id FROM sessions WHERE id = ?",
        (rowid,),
    ).fetchone()
    if row is None:
        raise NotFoundError("session vanished while reading")
    return Place(*row)


def message_text(db: sqlite3.Connection, session_id: str, agent: str, index: int) -> str | None:
    """The whole text of a session's message by its index (as results number them: the
    count of the session's messages before it); None when there is no such message."""
    row = db.execute(
        "SELECT m.text FROM messages m JOIN sessions s ON s.id = m.session"
        " WHERE s.session_id = ? AND s.agent = ? ORDER BY m.position LIMIT 1 OFFSET ?",
        (session_id, agent, index),
    ).fetchone()
    return None if row is None else str(row[0])


def message_turns(
    db: sqlite3.Connection, session_id: str, agent: str, first: int, count: int
) -> list[tuple[int, str, str]]:
    """Up to `count` messages of a session from index `first` on, as (index, role, text):
    a matched message with its neighbours (what `recall context` injects)."""
    rows = db.execute(
        "SELECT m.role, m.text FROM messages m JOIN sessions s ON s.id = m.session"
        " WHERE s.session_id = ? AND s.agent = ? ORDER BY m.position LIMIT ? OFFSET ?",
        (session_id, agent, count, max(0, first)),
    ).fetchall()
    return [(max(0, first) + n, str(role), str(text)) for n, (role, text) in enumerate(rows)]
