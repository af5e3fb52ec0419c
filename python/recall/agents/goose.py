"""Goose: `sessions.db` (SQLite) and the older one-file-per-session JSONL.

Where: `$GOOSE_PATH_ROOT/data/sessions`, else Goose's data folder
(`~/.local/share/goose/sessions` on Linux and macOS, `%APPDATA%\\Block\\goose\\data\\
sessions` on Windows). The database (aaif-goose/goose, formerly block/goose,
`crates/goose/src/session/session_manager.rs`): `sessions(id, name, description,
session_type, working_dir, created_at, updated_at, …)` and `messages(id, session_id,
role, content_json, created_timestamp, metadata_json, …)`; columns are checked
before they are read (the schema has grown from version 1 to 15). The older
`<name>.jsonl` holds a metadata line (`working_dir`, `description`) then one
message per line; Goose rewrites it whole, so it is read whole, and a session
the database also holds (Goose imports them) is read from the database.

Kept: `text` blocks of user and assistant messages the user saw (`metadata_json`
`userVisible` not false). Skipped: tool requests and responses, thinking,
images, notices, summaries only the agent saw; `hidden` sessions (Goose's own
internal ones). Title: `name` (else `description`); project: `working_dir`;
`sub_agent` sessions are marked in the session's metadata. Re-sync: per
session, by its `updated_at` and its messages' count and highest id (Goose
replaces a conversation by deleting and inserting rows).
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from recall.agent_cli import RESUME
from recall.agent_homes import xdg_data
from recall.agents.agentdb import capped, columns, guarded_rows, is_sqlite, open_readonly
from recall.agents.base import (
    SKIP_BAD_SHAPE,
    SKIP_BAD_UTF8,
    SKIP_BROKEN,
    StoredSession,
    decode_json,
    iter_json_lines,
    store_key,
)
from recall.agents.rows import fingerprint, json_object, string, when
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

AGENT = "goose"
_ROLES = {"user": USER, "assistant": ASSISTANT}


def goose_roots(home: Path) -> list[Path]:
    """`$GOOSE_PATH_ROOT/data/sessions`, else the data folders Goose uses on each OS."""
    configured = os.environ.get("GOOSE_PATH_ROOT", "").strip()
    if configured:
        return [Path(configured).expanduser() / "data" / "sessions"]
    appdata = os.environ.get("APPDATA", "").strip()
    windows = Path(appdata) if appdata else home / "AppData" / "Roaming"
    return [
        xdg_data(home) / "goose" / "sessions",  # Linux and macOS (etcetera's XDG strategy)
        windows / "Block" / "goose" / "data" / "sessions",
        home / ".goose" / "sessions",  # the oldest releases' JSONL
    ]


def _text(blocks: Any) -> str:
    """The text blocks of a message's content, joined; '' for anything else."""
    if isinstance(blocks, str):
        return string(blocks)
    items = blocks if isinstance(blocks, list) else []
    texts = [
        string(b.get("text")) for b in items if isinstance(b, dict) and b.get("type") == "text"
    ]
    return "\n\n".join(t for t in texts if t)


def _visible(metadata: Any) -> bool:
    return not (isinstance(metadata, dict) and metadata.get("userVisible") is False)


def _message(key: str, role: Any, content: Any, metadata: Any, ts: Any) -> Message | None:
    kind = _ROLES.get(string(role))
    text = _text(content) if kind and _visible(metadata) else ""
    return Message(key, kind, text, when(ts)) if kind and text else None


def _info(sid: str, session: dict[str, Any]) -> SessionInfo:
    info = SessionInfo(sid, AGENT)
    info.project = string(session.get("working_dir")) or None
    title = string(session.get("name")) or string(session.get("description"))
    if title:
        info.title, info.title_rank = title, TITLE_AGENT
    info.started_at = when(session.get("created_at"))
    kind = string(session.get("session_type"))
    if kind and kind != "user":
        info.metadata = {"session_type": kind}
    return info


# --- sessions.db ---
def _db_sessions(db: Path) -> Iterator[StoredSession]:
    with open_readonly(db) as conn:
        have = columns(conn, "sessions")
        if "id" not in have or not columns(conn, "messages"):
            return
        updated = "s.updated_at" if "updated_at" in have else "NULL"
        hidden = "WHERE s.session_type IS NOT 'hidden'" if "session_type" in have else ""
        rows = conn.execute(
            f"""SELECT s.id, {updated}, m.n, m.top, m.t FROM sessions s
                LEFT JOIN (SELECT session_id, count(*) n, max(id) top,
                                  max(created_timestamp) t
                           FROM messages GROUP BY session_id) m ON m.session_id = s.id
                {hidden}"""
        ).fetchall()
    for sid, *marks in rows:
        if isinstance(sid, str) and sid:
            yield StoredSession(
                key=store_key(db, sid), fingerprint=fingerprint(*marks), source=db, session_id=sid
            )


def _db_read(db: Path, sid: str, parsed: Parsed) -> SessionPart | None:
    with open_readonly(db) as conn:
        have = columns(conn, "sessions")
        wanted = [
            c
            for c in ("name", "description", "working_dir", "created_at", "session_type")
            if c in have
        ]
        row = conn.execute(
            f"SELECT {', '.join(['id', *wanted])} FROM sessions WHERE id = ?", (sid,)
        ).fetchone()
        if row is None:
            return None
        session = dict(zip(["id", *wanted], row, strict=True))
        meta = "metadata_json" if "metadata_json" in columns(conn, "messages") else "NULL"
        raw = guarded_rows(
            conn,
            f"SELECT id, role, created_timestamp, {meta}, {capped('content_json')}"
            " FROM messages WHERE session_id = ? ORDER BY id",
            (sid,),
            parsed,
        )
    part = SessionPart(_info(sid, session), replace=True)
    for mid, role, created, metadata, content in raw:
        blocks = _blocks(content, parsed)
        meta_doc = json_object(metadata, Parsed()) if metadata is not None else None
        message = _message(f"{sid}#{mid}", role, blocks, meta_doc, created)
        if message is not None:
            part.messages.append(message)
    return part


def _blocks(raw: Any, parsed: Parsed) -> list[Any]:
    """A message's `content_json`: an array of blocks ([] and counted when it is not)."""
    if isinstance(raw, str):
        raw = raw.encode("utf-8", "surrogatepass")
    if not isinstance(raw, bytes):
        parsed.skip(SKIP_BAD_SHAPE)
        return []
    try:
        blocks = decode_json(raw)
    except UnicodeDecodeError:
        parsed.skip(SKIP_BAD_UTF8)
        return []
    except ValueError:
        parsed.skip(SKIP_BROKEN)
        return []
    if not isinstance(blocks, list):
        parsed.skip(SKIP_BAD_SHAPE)
        return []
    return blocks


# --- the older JSONL, read whole ---
def parse_jsonl(path: Path, data: bytes) -> Parsed:
    parsed = Parsed(offset=len(data))
    sid = path.stem
    session: dict[str, Any] = {}
    part: SessionPart | None = None
    n = 0
    for _, record in iter_json_lines(data, parsed):
        if part is None:  # the first line is the session's metadata
            if "role" not in record:
                session = record
                part = SessionPart(_info(sid, session), replace=True)
                continue
            part = SessionPart(_info(sid, session), replace=True)
        n += 1
        key = f"{sid}#{string(record.get('id')) or n}"
        message = _message(
            key,
            record.get("role"),
            record.get("content"),
            record.get("metadata"),
            record.get("created"),
        )
        if message is not None:
            part.messages.append(message)
            if part.info.started_at is None:
                part.info.started_at = message.timestamp
    parsed.parts = [part or SessionPart(_info(sid, session), replace=True)]
    parsed.offset = len(data)  # read whole: a last line without a newline is complete
    return parsed


class GooseAdapter:
    """Goose's sessions: the database (`SessionStore`) and the older JSONL files."""

    name = AGENT
    incremental = False
    resume = RESUME["goose"]
    """No command is known to reopen a session by id (docs/agents.md, "Resuming")."""

    def default_roots(self) -> list[Path]:
        return goose_roots(Path.home())

    def _in_db(self, folder: Path) -> set[str]:
        db = folder / "sessions.db"
        if not is_sqlite(db):
            return set()
        try:
            return {s.session_id for s in _db_sessions(db)}
        except (sqlite3.Error, OSError):  # not readable now: its JSONL files are read instead
            return set()

    def discover(self, root: Path) -> Iterable[Path]:
        files = sorted(p for p in root.glob("*.jsonl") if p.is_file())
        known = self._in_db(root) if files else set()
        return [p for p in files if p.stem not in known]

    def owns(self, path: Path) -> bool:
        return path.suffix == ".jsonl" and path.parent.name == "sessions" and "goose" in str(path)

    def whole_file(self, path: Path) -> bool:
        return True

    def origin(self, path: Path) -> Origin:
        return (path.stem, None, None, True)

    def parse(self, path: Path, data: bytes, offset: int, state: dict[str, Any]) -> Parsed:
        return parse_jsonl(path, data)

    def sessions(self, root: Path) -> Iterator[StoredSession]:
        db = root if root.is_file() else root / "sessions.db"
        if is_sqlite(db):
            yield from _db_sessions(db)

    def read_session(self, stored: StoredSession) -> Parsed:
        parsed = Parsed()
        part = _db_read(stored.source, stored.session_id, parsed)
        if part is not None:
            parsed.parts.append(part)
        return parsed


__all__ = ["GooseAdapter", "goose_roots"]
