"""Cursor's IDE chats: the `cursorDiskKV` rows of `User/globalStorage/state.vscdb`.

The same database holds Cursor's auth tokens (`ItemTable` `cursorAuth/*`,
`secret://…`) and encryption keys inside composer JSON. recall reads **only**
these rows, by key: `composerData:<id>` (a chat: its name, times, message order),
`bubbleId:<id>:<bubble>` (one message), and, for the oldest IDE generation, the
one `ItemTable` key `workbench.panel.aichat.view.aichat.chatdata`. Nothing else
is selected, so no token can reach the index, the log or any output
(`tests/agents/test_cursor_secrets.py`). Of a composer only its name, times and
mode are kept; its JSON is never stored.

Kept: bubbles of type 1 (user) and 2 (assistant) with text, in the order of
`fullConversationHeadersOnly` (or an older composer's inline `conversation`).
Skipped: empty bubbles (tool calls, code-only), thinking, `null` rows. A chat
that also has an agent transcript keeps the transcript's messages and gets its
title and project from here. A composer's `subComposerIds` are its sub-agents.
Re-sync: per chat, by the composer's `lastUpdatedAt` and the count and size of
its bubble rows.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse

from recall.agents.agentdb import capped, guarded_rows, is_sqlite, open_readonly, tables
from recall.agents.base import StoredSession, store_key
from recall.agents.rows import fingerprint, json_object, string, when
from recall.types import ASSISTANT, TITLE_AGENT, USER, Message, Parsed, SessionInfo, SessionPart

AGENT = "cursor"
_COMPOSER = "composerData:"
_LEGACY_KEY = "workbench.panel.aichat.view.aichat.chatdata"
LEGACY_PREFIX = "aichat-"
"""Session ids of the oldest generation's chat tabs: `aichat-<tabId>`."""
_ROLES: dict[int | str, str] = {
    1: USER,
    2: ASSISTANT,
    "user": USER,
    "ai": ASSISTANT,
    "assistant": ASSISTANT,
}


def _range(prefix: str) -> tuple[str, str]:
    """Keys starting with `prefix`, as an index range (no LIKE: `_` and `%` are in ids)."""
    return prefix, prefix[:-1] + chr(ord(prefix[-1]) + 1)


def databases(root: Path) -> list[Path]:
    if root.is_file():
        return [root] if is_sqlite(root) else []
    found = [root / "globalStorage" / "state.vscdb", root / "state.vscdb"]
    return [p for p in found if p.is_file() and is_sqlite(p)]


def _has_transcript(cid: str, roots: list[Path]) -> bool:
    for root in roots:
        for name in (f"{cid}.jsonl", f"{cid}/{cid}.jsonl", f"{cid}.txt"):
            try:
                if any(root.glob(f"*/agent-transcripts/{name}")):
                    return True
            except (OSError, ValueError):
                continue
    return False


def _composer_rows(conn: sqlite3.Connection) -> list[tuple[str, Any, Any]]:
    """`(key, size, lastUpdatedAt)` of every composer row; the time is read by SQLite's
    JSON functions where it has them, without loading the row into Python."""
    lo, hi = _range(_COMPOSER)
    stamp = (
        "CASE WHEN length(value) <= 1048576 AND json_valid(CAST(value AS TEXT))"
        " THEN json_extract(CAST(value AS TEXT), '$.lastUpdatedAt') END"
    )
    sql = "SELECT key, length(value), {} FROM cursorDiskKV WHERE key >= ? AND key < ?"
    try:
        return conn.execute(sql.format(stamp), (lo, hi)).fetchall()
    except sqlite3.OperationalError:  # an SQLite without JSON functions
        return conn.execute(sql.format("NULL"), (lo, hi)).fetchall()


def sessions(root: Path, transcript_roots: list[Path]) -> Iterator[StoredSession]:
    for db in databases(root):
        found: list[tuple[str, tuple[Any, ...]]] = []
        with open_readonly(db) as conn:
            have = tables(conn)
            if "cursorDiskKV" in have:
                for key, size, updated in _composer_rows(conn):
                    cid = key[len(_COMPOSER) :]
                    lo, hi = _range(f"bubbleId:{cid}:")
                    count, total = conn.execute(
                        "SELECT count(*), coalesce(sum(length(value)), 0) FROM cursorDiskKV"
                        " WHERE key >= ? AND key < ?",
                        (lo, hi),
                    ).fetchone()
                    found.append((cid, (size, updated, count, total)))
            if "ItemTable" in have:
                for tab in _legacy_tabs(conn, Parsed()):
                    tid = string(tab.get("tabId"))
                    if tid:
                        found.append((LEGACY_PREFIX + tid, (repr(sorted(tab.items())),)))
        for sid, marks in found:
            seen = _has_transcript(sid, transcript_roots)
            yield StoredSession(
                key=store_key(db, sid),
                fingerprint=fingerprint(*marks, seen),
                source=db,
                session_id=sid,
            )


def _legacy_tabs(conn: sqlite3.Connection, parsed: Parsed) -> list[dict[str, Any]]:
    rows = guarded_rows(
        conn, f"SELECT {capped('value')} FROM ItemTable WHERE key = ?", (_LEGACY_KEY,), parsed
    )
    doc = json_object(rows[0][0], parsed) if rows else None
    tabs = doc.get("tabs") if doc else None
    return [t for t in tabs if isinstance(t, dict)] if isinstance(tabs, list) else []


def _path_of(value: Any) -> str:
    """A folder from a `workspaceProjectDir` string or a `file://` URI."""
    text = string(value)
    if text.startswith("file://"):
        return unquote(urlparse(text).path) or ""
    return text


def _project(bubble: dict[str, Any]) -> str:
    uris = bubble.get("workspaceUris")
    first = uris[0] if isinstance(uris, list) and uris else None
    return _path_of(bubble.get("workspaceProjectDir")) or _path_of(first)


def _message(key: str, bubble: dict[str, Any]) -> Message | None:
    kind = bubble.get("type")
    role = _ROLES.get(kind) if isinstance(kind, int | str) and not isinstance(kind, bool) else None
    text = string(bubble.get("text"))
    if role is None or not text:
        return None
    return Message(key, role, text, when(bubble.get("createdAt") or bubble.get("timestamp")))


def _composer_part(
    conn: sqlite3.Connection, cid: str, parsed: Parsed
) -> tuple[SessionPart, list[str]]:
    rows = guarded_rows(
        conn,
        f"SELECT {capped('value')} FROM cursorDiskKV WHERE key = ?",
        (_COMPOSER + cid,),
        parsed,
    )
    composer = (json_object(rows[0][0], parsed) if rows else None) or {}
    lo, hi = _range(f"bubbleId:{cid}:")
    bubbles: dict[str, dict[str, Any]] = {}
    for key, value in guarded_rows(
        conn,
        f"SELECT key, {capped('value')} FROM cursorDiskKV WHERE key >= ? AND key < ? ORDER BY key",
        (lo, hi),
        parsed,
    ):
        bubble = json_object(value, parsed)
        if bubble is not None:
            bubbles[key[len(lo) :]] = bubble
    headers = composer.get("fullConversationHeadersOnly")
    order = [string(h.get("bubbleId")) for h in headers or [] if isinstance(h, dict)]
    inline = composer.get("conversation")
    if not order and isinstance(inline, list):  # an older composer holds its bubbles
        for n, b in enumerate(inline):
            if isinstance(b, dict):
                bid = string(b.get("bubbleId")) or f"{cid}@{n}"
                bubbles.setdefault(bid, b)
                order.append(bid)
    order += [b for b in bubbles if b not in order]
    info = SessionInfo(cid, AGENT, started_at=when(composer.get("createdAt")))
    name = string(composer.get("name"))
    if name:
        info.title, info.title_rank = name, TITLE_AGENT
    mode = string(composer.get("unifiedMode"))
    model = composer.get("modelConfig")
    model_name = string(model.get("modelName")) if isinstance(model, dict) else ""
    info.metadata = {k: v for k, v in (("mode", mode), ("model", model_name)) if v}
    part = SessionPart(info, replace=True)
    for bid in order:
        bubble = bubbles.get(bid)
        if bubble is None:
            continue
        info.project = info.project or _project(bubble) or None
        message = _message(bid, bubble)
        if message is not None:
            part.messages.append(message)
    children = composer.get("subComposerIds")
    kids = [string(c) for c in children if string(c)] if isinstance(children, list) else []
    return part, kids


def _legacy_part(conn: sqlite3.Connection, sid: str, parsed: Parsed) -> SessionPart | None:
    for tab in _legacy_tabs(conn, parsed):
        if LEGACY_PREFIX + string(tab.get("tabId")) != sid:
            continue
        info = SessionInfo(sid, AGENT)
        title = string(tab.get("chatTitle"))
        if title:
            info.title, info.title_rank = title, TITLE_AGENT
        part = SessionPart(info, replace=True)
        bubbles = tab.get("bubbles")
        for n, bubble in enumerate(bubbles if isinstance(bubbles, list) else []):
            if isinstance(bubble, dict):
                message = _message(string(bubble.get("id")) or f"{sid}@{n}", bubble)
                if message is not None:
                    part.messages.append(message)
        return part
    return None


def read(stored: StoredSession, transcript_roots: list[Path]) -> Parsed:
    parsed = Parsed()
    sid = stored.session_id
    with open_readonly(stored.source) as conn:
        if sid.startswith(LEGACY_PREFIX) and "ItemTable" in tables(conn):
            legacy = _legacy_part(conn, sid, parsed)
            parsed.parts = [legacy] if legacy is not None else []
            return parsed
        part, kids = _composer_part(conn, sid, parsed)
    if _has_transcript(sid, transcript_roots):  # the transcript holds its messages
        part.messages, part.replace = [], False
    parsed.parts = [part]
    for kid in kids:  # a sub-agent: marked here, its messages come with its own row
        parsed.parts.append(SessionPart(SessionInfo(kid, AGENT, parent_session_id=sid)))
    return parsed


__all__ = ["LEGACY_PREFIX", "databases", "read", "sessions"]
