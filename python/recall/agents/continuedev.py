"""Continue (continuedev/continue, VS Code and JetBrains): one JSON document per session.

Where: `$CONTINUE_GLOBAL_DIR`, else `~/.continue` (`%USERPROFILE%\\.continue` on
Windows) → `sessions/<sessionId>.json` = `{sessionId, title, workspaceDirectory,
history: [{message: {role, content}, contextItems, promptLogs, …}]}`, and
`sessions/sessions.json`, the list (`{sessionId, title, dateCreated,
workspaceDirectory}`), which gives the date (`core/util/paths.ts`,
`core/util/history.ts`). The extension rewrites a session's file whole, so it is
read whole.

Kept: the text of `user` and `assistant` messages (a string, or the `text` parts
of a list). Skipped: `thinking`, `tool` and `system` messages, tool calls, images,
the files and snippets attached as context items, prompt logs. Title: the session's
(not Continue's "New Session" placeholder); project: `workspaceDirectory` (a
`file://` URI or a path). The file holds no times: every message takes the
session's `dateCreated` from the list, else the file's mtime.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse

from recall.agents.base import SKIP_BAD_SHAPE, load_json_document
from recall.agents.rows import string, when
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

AGENT = "continue"
_ROLES = {"user": USER, "assistant": ASSISTANT}
_LIST = "sessions.json"
_PLACEHOLDER = {"new session", ""}


def continue_roots(home: Path) -> list[Path]:
    configured = os.environ.get("CONTINUE_GLOBAL_DIR", "").strip()
    base = Path(configured).expanduser() if configured else home / ".continue"
    return [base / "sessions"]


def _folder(value: str) -> str | None:
    """A workspace folder from a `file://` URI or a plain path."""
    if value.startswith("file://"):
        path = unquote(urlparse(value).path)
        if len(path) > 2 and path[0] == "/" and path[2] == ":":  # file:///C:/… on Windows
            path = path[1:]
        return path or None
    return value or None


def _listed(path: Path, sid: str) -> dict[str, Any]:
    """What `sessions.json` says of `sid` (its date); empty when it says nothing."""
    try:
        with open_regular(path.parent / _LIST) as fh:
            listing = json.loads(fh.read(MAX_LINE))
    except (OSError, ValueError, RecursionError):
        return {}
    for item in listing if isinstance(listing, list) else []:
        if isinstance(item, dict) and item.get("sessionId") == sid:
            return item
    return {}


def _created(value: Any) -> str | None:
    """`dateCreated`: epoch milliseconds, as a number or a string of digits, or ISO."""
    if isinstance(value, str) and value.strip().isdigit():
        value = int(value.strip())
    return when(value)


def _text(content: Any) -> str:
    if isinstance(content, str):
        return string(content)
    parts = content if isinstance(content, list) else []
    texts = [
        string(p.get("text")) for p in parts if isinstance(p, dict) and p.get("type") == "text"
    ]
    return "\n\n".join(t for t in texts if t)


def _stamp(path: Path) -> str | None:
    try:
        return when(os.stat(path).st_mtime)
    except OSError:
        return None


def parse_session(path: Path, data: bytes) -> Parsed:
    parsed = Parsed(offset=len(data))
    doc = load_json_document(data, parsed)
    sid = path.stem
    if isinstance(doc, dict) and isinstance(doc.get("sessionId"), str) and doc["sessionId"]:
        sid = doc["sessionId"]
    listed = _listed(path, sid)
    info = SessionInfo(sid, AGENT)
    body = doc if isinstance(doc, dict) else {}
    if doc is not None and not isinstance(doc, dict):
        parsed.skip(SKIP_BAD_SHAPE)
    title = string(body.get("title")) or string(listed.get("title"))
    if title.lower() not in _PLACEHOLDER:
        info.title, info.title_rank = title, TITLE_AGENT
    info.project = _folder(
        string(body.get("workspaceDirectory")) or string(listed.get("workspaceDirectory"))
    )
    info.started_at = _created(listed.get("dateCreated"))
    stamp = info.started_at or _stamp(path)
    part = SessionPart(info, replace=True)
    history = body.get("history", [])
    if not isinstance(history, list):
        parsed.skip(SKIP_BAD_SHAPE)
        history = []
    for n, item in enumerate(history):
        message = item.get("message") if isinstance(item, dict) else None
        if not isinstance(message, dict):
            parsed.skip(SKIP_BAD_SHAPE)
            continue
        role = _ROLES.get(string(message.get("role")))
        text = _text(message.get("content")) if role else ""
        if role and text:
            key = f"{sid}#{string(message.get('id')) or n}"
            part.messages.append(Message(key, role, text, stamp))
    parsed.parts = [part]
    return parsed


class ContinueAdapter:
    """Continue's session documents (`~/.continue/sessions/*.json`)."""

    name = AGENT
    incremental = False
    resume: tuple[str, ...] = ()
    """No command is known to reopen a session by id (docs/agents.md, "Resuming")."""

    def default_roots(self) -> list[Path]:
        return continue_roots(Path.home())

    def discover(self, root: Path) -> Iterable[Path]:
        return sorted(p for p in root.glob("*.json") if p.name != _LIST and p.is_file())

    def owns(self, path: Path) -> bool:
        return (
            path.suffix == ".json"
            and path.name != _LIST
            and path.parent.name == "sessions"
            and path.parent.parent.name in (".continue", "continue")
        )

    def whole_file(self, path: Path) -> bool:
        return True

    def origin(self, path: Path) -> Origin:
        return (path.stem, None, None, True)

    def parse(self, path: Path, data: bytes, offset: int, state: dict[str, Any]) -> Parsed:
        return parse_session(path, data)


__all__ = ["ContinueAdapter", "continue_roots"]
