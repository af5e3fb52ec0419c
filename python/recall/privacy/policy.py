"""What must never be indexed: excluded projects, marked sessions, forgotten sessions.

Three controls, checked by `recall.ingest` before a session part is stored:

- `[privacy] exclude_projects`: globs over project directories. A project
  matches when the glob matches its directory or any directory above it, so
  `~/clients/*` keeps out every project under each client.
- the ignore marker (`recall:ignore` unless configured): a user message that
  contains it, in any case, keeps its whole session out; if the session was
  already indexed, ingest deletes it (`forget.forget_marked`).
- tombstones (`forgotten` table, migration `m003_privacy`): `recall forget`
  and the marker record the session id and agent (nothing else), so neither
  a hook nor `sync --force` brings a forgotten session back.
"""

from __future__ import annotations

import sqlite3

from recall.config import PrivacyConfig, load_config
from recall.privacy.forget import FORGET, MARKER, is_forgotten
from recall.privacy.projects import project_matches
from recall.types import USER, SessionPart

EXCLUDED = "excluded"
"""Kept out by `exclude_projects` (no tombstone: removing the glob brings it back)."""


def has_marker(part: SessionPart, marker: str) -> bool:
    """Whether a user message of `part` carries the ignore marker (any case)."""
    if not marker:
        return False
    needle = marker.casefold()
    return any(m.role == USER and needle in m.text.casefold() for m in part.messages)


def settings() -> PrivacyConfig:
    return load_config().privacy


def refusal(db: sqlite3.Connection, part: SessionPart, marked: bool | None = None) -> str | None:
    """Why `part` must not be stored (a reason constant), or None to store it.

    A decision only: for `MARKER` the caller also deletes what was already
    indexed of the session and leaves a tombstone (`forget.forget_marked`), so
    the turns after the marked one stay out too. `marked` says whether the
    part's text carried the marker before it was redacted (None: look now).
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
    if marked if marked is not None else has_marker(part, policy.ignore_marker):
        return MARKER
    return None
