"""What must never be indexed: excluded projects, marked sessions, forgotten sessions.

Three controls, checked by the store writer before a session part is stored:

- `[privacy] exclude_projects`: globs over project directories. A project
  matches when the glob matches its directory or any directory above it, so
  `~/clients/*` keeps out every project under each client.
- the ignore marker (`recall:ignore` unless configured): a user message that
  contains it, in any case, keeps its whole session out; if the session was
  already indexed it is deleted.
- tombstones (`forgotten` table, migration `m003_privacy`): `recall forget`
  and the marker record the session id and agent (nothing else), so neither
  a hook nor `sync --force` brings a forgotten session back.
"""

from __future__ import annotations

import os
import sqlite3
import time
from fnmatch import fnmatchcase
from pathlib import PurePath

from recall.config import PrivacyConfig, load_config
from recall.types import USER, SessionPart

MARKER = "marker"
EXCLUDED = "excluded"
FORGET = "forget"


def _expand(glob: str) -> str:
    return os.path.expanduser(glob).rstrip("/\\") or "/"


def project_matches(project: str, globs: list[str]) -> bool:
    """Whether `project` or a directory above it matches one of `globs`."""
    if not project or not globs:
        return False
    patterns = [_expand(g) for g in globs]
    path = PurePath(project)
    for candidate in (path, *path.parents):
        text = str(candidate)
        if any(fnmatchcase(text, p) for p in patterns):
            return True
    return False


def has_marker(part: SessionPart, marker: str) -> bool:
    """Whether a user message of `part` carries the ignore marker (any case)."""
    if not marker:
        return False
    needle = marker.casefold()
    return any(m.role == USER and needle in m.text.casefold() for m in part.messages)


def is_forgotten(db: sqlite3.Connection, session_id: str, agent: str) -> bool:
    row = db.execute(
        "SELECT 1 FROM forgotten WHERE session_id = ? AND agent = ?", (session_id, agent)
    ).fetchone()
    return row is not None


def record_tombstone(db: sqlite3.Connection, session_id: str, agent: str, reason: str) -> None:
    db.execute(
        "INSERT OR REPLACE INTO forgotten(session_id, agent, reason, forgotten_at)"
        " VALUES (?, ?, ?, ?)",
        (session_id, agent, reason, time.time()),
    )


def settings() -> PrivacyConfig:
    return load_config().privacy


def refusal(db: sqlite3.Connection, part: SessionPart) -> str | None:
    """Why `part` must not be stored (a reason constant), or None to store it.

    A marker found here also deletes the session if it was already indexed
    and leaves a tombstone, so the turns after the marked one stay out too.
    """
    info = part.info
    if is_forgotten(db, info.session_id, info.agent):
        return FORGET
    if info.parent_session_id and is_forgotten(db, info.parent_session_id, info.agent):
        return FORGET
    policy = settings()
    project = info.project
    if project is None and policy.exclude_projects:
        row = db.execute(
            "SELECT project FROM sessions WHERE session_id = ? AND agent = ?",
            (info.session_id, info.agent),
        ).fetchone()
        project = row[0] if row else None
    if project and project_matches(project, policy.exclude_projects):
        return EXCLUDED
    if has_marker(part, policy.ignore_marker):
        from recall.privacy.forget import delete_sessions, family

        db.execute("PRAGMA secure_delete=ON")
        delete_sessions(db, family(db, info.session_id, info.agent), MARKER)
        record_tombstone(db, info.session_id, info.agent, MARKER)
        return MARKER
    return None
