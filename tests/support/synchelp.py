"""Running `recall sync` in-process over a stand-in home, and reading back what it stored."""

from __future__ import annotations

from typing import Any

from recall.store import open_reader, open_writer
from recall.sync import SyncReport, sync


def sync_now(agents: list[str] | None = None, force: bool = False) -> SyncReport:
    with open_writer() as store:
        return sync(store, "testbox", agents=agents, force=force)


def stored(agent: str) -> dict[str, dict[str, Any]]:
    """Each session of `agent` the index holds: its row and its messages (role, text)."""
    with open_reader() as store:
        db = store.conn
        rows = db.execute(
            "SELECT id, session_id, project, title, parent_session_id, started_at, ended_at"
            " FROM sessions WHERE agent = ?",
            (agent,),
        ).fetchall()
        out = {}
        for rowid, sid, project, title, parent, started, ended in rows:
            messages = db.execute(
                "SELECT role, text FROM messages WHERE session = ? ORDER BY id", (rowid,)
            ).fetchall()
            out[sid] = {
                "project": project,
                "title": title,
                "parent": parent,
                "started": started,
                "ended": ended,
                "messages": [tuple(m) for m in messages],
            }
        return out


def index_state() -> tuple[int, ...]:
    """The index's row counts and the highest `indexed_at`: a sync that writes nothing
    leaves every one of them as it was (each write moves at least one)."""
    with open_reader() as store:
        db = store.conn
        row = db.execute(
            "SELECT (SELECT count(*) FROM sessions), (SELECT count(*) FROM messages),"
            " (SELECT coalesce(max(updated_at), 0) FROM sessions),"
            " (SELECT count(*) FROM transcripts),"
            " (SELECT coalesce(max(indexed_at), 0) FROM transcripts)"
        ).fetchone()
        return tuple(row)
