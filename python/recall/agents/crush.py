"""Crush (charmbracelet/crush): one SQLite `crush.db` per project.

Where: each project keeps its own database in its data folder (`<project>/.crush/
crush.db` by default); Crush lists them in `projects.json` (`{"projects": [{"path",
"data_dir", "last_accessed"}]}`) beside its global config, `$CRUSH_GLOBAL_DATA`, else
`$XDG_DATA_HOME/crush` (`~/.local/share/crush`), `%LOCALAPPDATA%\\crush` on Windows.
recall reads the databases that list names, and a `crush.db` in a folder
configured as a root. Schema (`internal/db/migrations/*.sql`): `sessions(id,
parent_session_id, title, created_at, updated_at, … workspace_cwd)` and
`messages(id, session_id, role, parts, created_at, updated_at, …
is_summary_message)`, times in Unix seconds; `parts` is a JSON array of `{"type",
"data"}`, zstd-compressed in newer releases (read when this Python has
`compression.zstd`, else counted and skipped).

Kept: `text` parts of user and assistant messages. Skipped: reasoning, tool calls
and results, files, images, finish markers, summary messages, `tool` and `system`
rows. Title: the session's; project: `workspace_cwd`, else the project that listed
the database; sub-agents: `parent_session_id`. Re-sync: per session, by its
`updated_at` and its messages' count and latest `updated_at`.
"""

from __future__ import annotations

import json
import os
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
    store_key,
)
from recall.agents.rows import fingerprint, real_title, string, when
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

AGENT = "crush"
_ROLES = {"user": USER, "assistant": ASSISTANT}
_ZSTD = b"\x28\xb5\x2f\xfd"
SKIP_COMPRESSED = "zstd-compressed parts (this Python cannot read zstd)"


def crush_roots(home: Path) -> list[Path]:
    """Crush's global data folder on each OS (`$CRUSH_GLOBAL_DATA` when set)."""
    configured = os.environ.get("CRUSH_GLOBAL_DATA", "").strip()
    if configured:
        return [Path(configured).expanduser()]
    local = os.environ.get("LOCALAPPDATA", "").strip()
    return [
        xdg_data(home) / "crush",
        (Path(local) if local else home / "AppData" / "Local") / "crush",
    ]


def _projects(root: Path) -> list[tuple[Path, str]]:
    """The databases `projects.json` lists, with each project's folder."""
    try:
        with open_regular(root / "projects.json") as fh:
            listing = json.loads(fh.read(MAX_LINE))
    except (OSError, ValueError):
        return []
    found = []
    items = listing.get("projects") if isinstance(listing, dict) else None
    for item in items if isinstance(items, list) else []:
        if not isinstance(item, dict):
            continue
        path, data = string(item.get("path")), string(item.get("data_dir"))
        if not data:
            continue
        folder = Path(data) if os.path.isabs(data) or not path else Path(path) / data
        found.append((folder / "crush.db", path))
    return found


def databases(root: Path) -> list[tuple[Path, str]]:
    """Every Crush database under `root` (a database file, a data folder, or the global
    folder with its `projects.json`), each with its project folder ('' when unknown)."""
    if root.is_file():
        return [(root, "")] if is_sqlite(root) else []
    found = [(root / "crush.db", ""), *_projects(root)]
    seen: set[Path] = set()
    out = []
    for db, project in found:
        if db not in seen and is_sqlite(db):
            seen.add(db)
            out.append((db, project))
    return out


def _parts(raw: Any, parsed: Parsed) -> list[Any]:
    """A message's parts: a JSON array (or a zstd frame holding one)."""
    if isinstance(raw, str):
        raw = raw.encode("utf-8", "surrogatepass")
    if not isinstance(raw, bytes):
        parsed.skip(SKIP_BAD_SHAPE)
        return []
    if raw.startswith(_ZSTD):
        try:
            from compression import zstd  # type: ignore[import-not-found]  # Python 3.14+

            raw = zstd.decompress(raw)
        except ImportError:
            parsed.skip(SKIP_COMPRESSED)
            return []
        except Exception:  # a damaged frame: one row, counted
            parsed.skip(SKIP_BROKEN)
            return []
    try:
        parts = decode_json(raw)
    except UnicodeDecodeError:
        parsed.skip(SKIP_BAD_UTF8)
        return []
    except ValueError:
        parsed.skip(SKIP_BROKEN)
        return []
    if not isinstance(parts, list):
        parsed.skip(SKIP_BAD_SHAPE)
        return []
    return parts


def _text(parts: list[Any]) -> str:
    """The `text` parts of a message, joined; every other part type is passed over."""
    texts = []
    for part in parts:
        if isinstance(part, dict) and part.get("type") == "text":
            data = part.get("data")
            texts.append(string(data.get("text")) if isinstance(data, dict) else "")
    return "\n\n".join(t for t in texts if t)


def _sessions(db: Path) -> Iterator[StoredSession]:
    with open_readonly(db) as conn:
        have = columns(conn, "sessions")
        if "id" not in have or not columns(conn, "messages"):
            return
        rows = conn.execute(
            """SELECT s.id, s.updated_at, m.n, m.t FROM sessions s
               LEFT JOIN (SELECT session_id, count(*) n, max(updated_at) t FROM messages
                          GROUP BY session_id) m ON m.session_id = s.id"""
        ).fetchall()
    for sid, *marks in rows:
        if isinstance(sid, str) and sid:
            yield StoredSession(
                key=store_key(db, sid), fingerprint=fingerprint(*marks), source=db, session_id=sid
            )


def _read(db: Path, sid: str, project: str, parsed: Parsed) -> SessionPart | None:
    with open_readonly(db) as conn:
        have = columns(conn, "sessions")
        wanted = [
            c for c in ("title", "parent_session_id", "created_at", "workspace_cwd") if c in have
        ]
        row = conn.execute(
            f"SELECT {', '.join(['id', *wanted])} FROM sessions WHERE id = ?", (sid,)
        ).fetchone()
        if row is None:
            return None
        session = dict(zip(["id", *wanted], row, strict=True))
        summary = "is_summary_message" if "is_summary_message" in columns(conn, "messages") else "0"
        raw = guarded_rows(
            conn,
            f"SELECT id, role, created_at, {summary}, {capped('parts')} FROM messages"
            " WHERE session_id = ? ORDER BY created_at, rowid",
            (sid,),
            parsed,
        )
    info = SessionInfo(sid, AGENT)
    info.project = string(session.get("workspace_cwd")) or project or None
    title = real_title(string(session.get("title")))
    if title:
        info.title, info.title_rank = title, TITLE_AGENT
    info.parent_session_id = string(session.get("parent_session_id")) or None
    info.started_at = when(session.get("created_at"))
    part = SessionPart(info, replace=True)
    for mid, role, created, is_summary, value in raw:
        kind = _ROLES.get(string(role))
        if kind is None or is_summary:
            continue
        text = _text(_parts(value, parsed))
        if text and isinstance(mid, str):
            part.messages.append(Message(mid, kind, text, when(created)))
    return part


class CrushAdapter:
    """Crush's sessions, from each project's database (`SessionStore`)."""

    name = AGENT
    incremental = False
    resume = RESUME["crush"]
    """No command is known to reopen a session by id (docs/agents.md, "Resuming")."""

    def __init__(self) -> None:
        self._projects: dict[Path, str] = {}

    def default_roots(self) -> list[Path]:
        return crush_roots(Path.home())

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
        for db, project in databases(root):
            self._projects[db] = project
            yield from _sessions(db)

    def read_session(self, stored: StoredSession) -> Parsed:
        parsed = Parsed()
        part = _read(
            stored.source, stored.session_id, self._projects.get(stored.source, ""), parsed
        )
        if part is not None:
            parsed.parts.append(part)
        return parsed


__all__ = ["CrushAdapter", "crush_roots", "databases"]
