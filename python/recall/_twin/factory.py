"""Twin of `rust/src/factory.rs`: Factory Droid sessions, `session_start` then `message` lines.

The first line, `{"type":"session_start","id","title","owner","cwd"}`, names
the session (else the file's stem, in the origin), its title and its folder.
Each `{"type":"message","id","timestamp","message":{"role","content"}}`
carries Anthropic content: a string or blocks. Kept are the `text` blocks of
user and assistant messages, a user's without the `<system-reminder>` blocks
Droid prepends (and Claude Code's other wrappers); thinking, `tool_use` and
`tool_result` blocks are not conversation. Other line types (`todo_state`, the
ones Droid will add) are passed over without a count; a line without a string
`type` is counted. A message's key is `<session>#<id>` (`<session>@<offset>`
when it has no id); the first message's time starts the session.
"""

from __future__ import annotations

import json
from typing import Any

from recall._twin.claude_text import clean_user_text, text_pieces
from recall._twin.gemini import stamp
from recall._twin.records import Origin, carried_sid
from recall.jsonlines import SKIP_BAD_SHAPE, SKIP_UNKNOWN, iter_json_lines
from recall.textutil import scrub
from recall.types import ASSISTANT, TITLE_AGENT, USER, Message, Parsed, SessionInfo, SessionPart

AGENT = "factory"


def _field(obj: dict[str, Any], key: str) -> str:
    value = obj.get(key)
    return scrub(value).strip() if isinstance(value, str) else ""


def _set(st: dict[str, Any], key: str) -> str:
    value = st.get(key)
    return value if isinstance(value, str) and value else ""


def _start(st: dict[str, Any], obj: dict[str, Any]) -> None:
    """`session_start`: the session's id (unless an earlier parse settled it), title, folder."""
    if not _set(st, "sid"):
        sid = _field(obj, "id")
        if sid:
            st["sid"] = sid
    for key in ("title", "cwd"):
        value = _field(obj, key)
        if value:
            st[key] = value


def _message(sid: str, off: int, obj: dict[str, Any], parsed: Parsed) -> Message | None:
    message = obj.get("message")
    pieces = text_pieces(message.get("content")) if isinstance(message, dict) else None
    if pieces is None or not isinstance(message, dict):
        parsed.skip(SKIP_BAD_SHAPE)
        return None
    said = message.get("role")
    role = {"user": USER, "assistant": ASSISTANT}.get(said) if isinstance(said, str) else None
    if role is None:
        return None
    cleaned = [clean_user_text(p) if role == USER else p.strip() for p in pieces]
    texts = [t for t in cleaned if t]
    if not texts:
        return None
    mid = _field(obj, "id")
    key = f"{sid}#{mid}" if mid else f"{sid}@{off}"
    return Message(key, role, "\n\n".join(texts), stamp(obj.get("timestamp")))


def parse(origin: Origin, data: bytes, base: int, state: dict[str, Any]) -> Parsed:
    parsed = Parsed()
    st: dict[str, Any] = json.loads(json.dumps(state)) if state else {}
    messages: list[Message] = []
    started = False
    for off, obj in iter_json_lines(data, parsed, base=base):
        kind = obj.get("type")
        if not isinstance(kind, str):
            parsed.skip(SKIP_BAD_SHAPE if "type" in obj else SKIP_UNKNOWN)
            continue
        if kind == "session_start":
            _start(st, obj)
            started = True
        elif kind == "message":
            sid = carried_sid(st, origin[0])
            message = _message(sid, off, obj, parsed)
            if message is not None:
                if not _set(st, "started") and message.timestamp:
                    st["started"] = message.timestamp
                messages.append(message)
    if started or messages:
        sid = carried_sid(st, origin[0])
        info = SessionInfo(sid, AGENT, parent_session_id=origin[2])
        info.project = _set(st, "cwd") or None
        title = _set(st, "title")
        if title:
            info.title, info.title_rank = title, TITLE_AGENT
        info.started_at = _set(st, "started") or None
        parsed.parts.append(SessionPart(info=info, messages=messages))
    parsed.state = st
    return parsed
