"""OpenCode: `opencode.db` (SQLite, ≥1.2) and the older `storage/` JSON tree.

Both live in `$XDG_DATA_HOME/opencode` (`~/.local/share/opencode` on every OS);
`$OPENCODE_DB` names the database outright, and channels other than the
release ones write `opencode-<channel>.db`. A session is one session whichever
layout holds it: the database's copy wins, and the tree's copy of a session
the database also holds is not read (AGENT-FORMATS.md §C).

Kept: `text` parts of user and assistant messages that are neither `synthetic`
nor `ignored`, a message's texts joined, in `(time_created, id)` order.
Skipped: reasoning, tool calls and output, files, step and snapshot markers,
patches, compaction (whose user message then has no text at all). Title: the
session's own, unless it is OpenCode's placeholder; project: its directory;
sub-agents: `parent_id`. Re-sync: per session, by the update times and counts
of its session, message and part rows (a database file's mtime moves for all).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from recall.agent_cli import RESUME
from recall.agent_homes import opencode_roots
from recall.agents.agentdb import (
    SKIP_BIG_ROW,
    capped,
    columns,
    guarded_rows,
    is_sqlite,
    open_readonly,
)
from recall.agents.base import SKIP_BAD_SHAPE, StoredSession, load_json_document, store_key
from recall.agents.rows import fingerprint, json_object, real_title, string, when
from recall.safeio import MAX_LINE, open_regular
from recall.types import (
    ASSISTANT,
    TITLE_AGENT,
    USER,
    Message,
    Origin,
    Parsed,
    SessionInfo,
    SessionPart,
)

AGENT = "opencode"
_ROLES = {"user": USER, "assistant": ASSISTANT}

Row = tuple[str, dict[str, Any], Any]
"""A message as both layouts give it: `(id, data, time_created)`."""


def _databases(root: Path) -> list[Path]:
    if root.is_file():
        return [root] if is_sqlite(root) else []
    return sorted(p for p in root.glob("opencode*.db") if p.is_file() and is_sqlite(p))


def _storage(root: Path) -> Path | None:
    if root.is_file():
        return None
    for folder in (root / "storage", root):
        if (folder / "session").is_dir() and (folder / "message").is_dir():
            return folder
    return None


def _created(doc: dict[str, Any]) -> Any:
    """`time.created` of a session or message document."""
    stamp = doc.get("time")
    return stamp.get("created") if isinstance(stamp, dict) else None


def build(
    session: dict[str, Any],
    messages: list[Row],
    parts: dict[str, list[dict[str, Any]]],
    parsed: Parsed,
) -> SessionPart:
    """One session's part from either layout: its row, its messages, their parts."""
    sid = string(session.get("id"))
    info = SessionInfo(sid, AGENT)
    info.project = string(session.get("directory")) or None
    title = real_title(string(session.get("title")))
    if title:
        info.title, info.title_rank = title, TITLE_AGENT
    parent = string(session.get("parent_id") or session.get("parentID"))
    info.parent_session_id = parent or None
    times = session.get("time")
    created = session.get("time_created") or (
        times.get("created") if isinstance(times, dict) else None
    )
    info.started_at = when(created)
    out = SessionPart(info, replace=True)
    for mid, data, created_at in messages:
        role = _ROLES.get(string(data.get("role")))
        if role is None:
            continue
        texts = [
            string(p.get("text"))
            for p in parts.get(mid, [])
            if p.get("type") == "text" and not p.get("synthetic") and not p.get("ignored")
        ]
        text = "\n\n".join(t for t in texts if t)
        if not text:
            continue
        ts = when(created_at) or when(_created(data))
        out.messages.append(Message(mid, role, text, ts))
    return out


# --- the SQLite store ---
def _db_sessions(db: Path) -> Iterator[StoredSession]:
    with open_readonly(db) as conn:
        have = columns(conn, "session")
        if not {"id", "time_updated"} <= have or not columns(conn, "message"):
            return
        part_by_session = "session_id" in columns(conn, "part")
        parts = (
            "SELECT session_id, count(*) n, max(time_updated) t FROM part GROUP BY session_id"
            if part_by_session
            else "SELECT m.session_id, count(*) n, max(p.time_updated) t FROM part p"
            " JOIN message m ON m.id = p.message_id GROUP BY m.session_id"
        )
        rows = conn.execute(
            f"""SELECT s.id, s.time_updated, m.n, m.t, p.n, p.t FROM session s
                LEFT JOIN (SELECT session_id, count(*) n, max(time_updated) t FROM message
                           GROUP BY session_id) m ON m.session_id = s.id
                LEFT JOIN ({parts}) p ON p.session_id = s.id"""
        ).fetchall()
    for sid, *counts in rows:
        if isinstance(sid, str) and sid:
            yield StoredSession(
                key=store_key(db, sid), fingerprint=fingerprint(*counts), source=db, session_id=sid
            )


def _db_read(db: Path, sid: str, parsed: Parsed) -> SessionPart | None:
    with open_readonly(db) as conn:
        have = columns(conn, "session")
        wanted = [c for c in ("id", "parent_id", "directory", "title", "time_created") if c in have]
        row = conn.execute(
            f"SELECT {', '.join(wanted)} FROM session WHERE id = ?", (sid,)
        ).fetchone()
        if row is None:
            return None
        session = dict(zip(wanted, row, strict=True))
        if not session.get("directory") and "project_id" in have:
            worktree = conn.execute(
                "SELECT p.worktree FROM project p JOIN session s ON s.project_id = p.id"
                " WHERE s.id = ?",
                (sid,),
            ).fetchone()
            if worktree and worktree[0] not in (None, "/"):
                session["directory"] = worktree[0]
        big = capped("data")
        raw_messages = guarded_rows(
            conn,
            f"SELECT id, time_created, {big} FROM message WHERE session_id = ?"
            " ORDER BY time_created, id",
            (sid,),
            parsed,
        )
        part_sql = (
            f"SELECT message_id, {big} FROM part WHERE session_id = ? ORDER BY id"
            if "session_id" in columns(conn, "part")
            else f"SELECT p.message_id, {capped('p.data')} FROM part p"
            " JOIN message m ON m.id = p.message_id WHERE m.session_id = ? ORDER BY p.id"
        )
        raw_parts = guarded_rows(conn, part_sql, (sid,), parsed)
    messages = []
    for mid, created, value in raw_messages:
        data = json_object(value, parsed)
        if data is not None and isinstance(mid, str):
            messages.append((mid, data, created))
    parts: dict[str, list[dict[str, Any]]] = {}
    for mid, value in raw_parts:
        data = json_object(value, parsed)
        if data is not None and isinstance(mid, str):
            parts.setdefault(mid, []).append(data)
    return build(session, messages, parts, parsed)


# --- the legacy JSON tree ---
def _doc(path: Path, parsed: Parsed) -> dict[str, Any] | None:
    """One small JSON document of the tree (a session, a message or a part)."""
    try:
        with open_regular(path) as fh:
            data = fh.read(MAX_LINE + 1)
    except OSError:
        return None
    if len(data) > MAX_LINE:
        parsed.skip(SKIP_BIG_ROW)
        return None
    value = load_json_document(data, parsed)
    if value is not None and not isinstance(value, dict):
        parsed.skip(SKIP_BAD_SHAPE)
        return None
    return value


def _json_files(folder: Path) -> list[Path]:
    try:
        return sorted(p for p in folder.glob("*.json") if p.is_file())
    except OSError:
        return []


def _stat(path: Path) -> tuple[str, int, int]:
    try:
        st = path.stat()
    except OSError:
        return (path.name, -1, -1)
    return (path.name, st.st_size, st.st_mtime_ns)


class _Tree:
    """The legacy tree's files for each session, found once per listing."""

    def __init__(self, storage: Path) -> None:
        self.storage = storage
        self.sessions: dict[str, Path] = {}
        for project in sorted((storage / "session").glob("*")):
            for path in _json_files(project):
                doc = _doc(path, Parsed())
                sid = string(doc.get("id")) if doc else ""
                self.sessions.setdefault(sid or path.stem.removeprefix("ses_"), path)
        # older trees keep parts flat, `part/<prt>.json`, each naming its message
        self.flat_parts = _json_files(storage / "part")

    def messages(self, sid: str, parsed: Parsed) -> list[tuple[Path, dict[str, Any]]]:
        found = []
        for path in _json_files(self.storage / "message" / sid):
            doc = _doc(path, parsed)
            if doc is not None:
                found.append((path, doc))
        return found

    def part_files(self, message_ids: Iterable[str]) -> list[Path]:
        return [p for mid in message_ids for p in _json_files(self.storage / "part" / mid)]


def _message_id(path: Path, doc: dict[str, Any]) -> str:
    return string(doc.get("id")) or path.stem


def _tree_sessions(storage: Path, skip: set[str]) -> Iterator[StoredSession]:
    tree = _Tree(storage)
    flat = [_stat(p) for p in tree.flat_parts]
    for sid, path in tree.sessions.items():
        if sid in skip:
            continue
        messages = tree.messages(sid, Parsed())
        ids = [_message_id(p, d) for p, d in messages]
        stats = [_stat(path), [_stat(p) for p, _ in messages]]
        stats.append([_stat(p) for p in tree.part_files(ids)])
        yield StoredSession(
            key=store_key(storage, sid),
            fingerprint=fingerprint(stats, flat if messages else []),
            source=storage,
            session_id=sid,
        )


def _tree_read(storage: Path, sid: str, parsed: Parsed) -> SessionPart | None:
    tree = _Tree(storage)
    path = tree.sessions.get(sid)
    session = _doc(path, parsed) if path else None
    if session is None:
        return None
    session.setdefault("id", sid)
    listed = tree.messages(sid, parsed)
    ids = {_message_id(p, d) for p, d in listed}
    parts: dict[str, list[dict[str, Any]]] = {}
    for part_path in [*tree.part_files(sorted(ids)), *tree.flat_parts]:
        doc = _doc(part_path, parsed)
        mid = string(doc.get("messageID")) if doc else ""
        mid = mid or (part_path.parent.name if part_path.parent.name != "part" else "")
        if doc is not None and mid in ids:
            parts.setdefault(mid, []).append(doc)
    for found in parts.values():
        found.sort(key=lambda d: string(d.get("id")))
    rows: list[Row] = []
    for p, d in listed:
        stamp = d.get("time")
        rows.append(
            (_message_id(p, d), d, stamp.get("created") if isinstance(stamp, dict) else None)
        )
    rows.sort(key=lambda r: (r[2] if isinstance(r[2], int | float) else 0, r[0]))
    return build(session, rows, parts, parsed)


class OpenCodeAdapter:
    """OpenCode's sessions, from its database and its older JSON tree (`SessionStore`)."""

    name = AGENT
    incremental = False
    resume = RESUME["opencode"]
    """No command is known to reopen a session by id (docs/agents.md, "Resuming")."""

    def default_roots(self) -> list[Path]:
        return opencode_roots(Path.home())

    # a SessionStore: its sessions are rows, or many files each; no file is one session
    def discover(self, root: Path) -> Iterable[Path]:
        return []

    def owns(self, path: Path) -> bool:
        return False

    def whole_file(self, path: Path) -> bool:
        return True

    def origin(self, path: Path) -> Origin:
        return (path.stem, None, None, True)

    def parse(self, path: Path, data: bytes, offset: int, state: dict[str, Any]) -> Parsed:
        return Parsed(offset=len(data))

    def sessions(self, root: Path) -> Iterator[StoredSession]:
        in_db: set[str] = set()
        for db in _databases(root):
            for stored in _db_sessions(db):
                in_db.add(stored.session_id)
                yield stored
        storage = _storage(root)
        if storage is not None:
            yield from _tree_sessions(storage, in_db)

    def read_session(self, stored: StoredSession) -> Parsed:
        parsed = Parsed()
        if stored.source.is_file():
            part = _db_read(stored.source, stored.session_id, parsed)
        else:
            part = _tree_read(stored.source, stored.session_id, parsed)
        if part is not None:
            parsed.parts.append(part)
        return parsed


__all__ = ["OpenCodeAdapter", "build"]
