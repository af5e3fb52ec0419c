"""Twin of `rust/src/antigravity.rs`: Antigravity CLI transcripts, one step a line.

A `USER_INPUT` step is the user's (unless its `source` is the system's or the
model's): the words inside `<USER_REQUEST>`, or, without that wrapper, the
text before the first `<ADDITIONAL_METADATA>` or `<USER_SETTINGS_CHANGE>` block
Antigravity appends. A `PLANNER_RESPONSE` step's `content` is the assistant's
answer; its `thinking` and `tool_calls` are not conversation. Every other step
(tool results, file views, commands, web searches, checkpoints, system
messages, the types it will add) is passed over without a count. The path
names the session (`brain/<id>/…`, in the origin); the first step's
`created_at` starts it.
"""

from __future__ import annotations

import json
from typing import Any

from recall._twin.gemini import stamp
from recall._twin.records import Origin, carried_sid
from recall.jsonlines import SKIP_BAD_SHAPE, SKIP_UNKNOWN, iter_json_lines, text_of
from recall.textutil import scrub
from recall.types import ASSISTANT, USER, Message, Parsed, SessionInfo, SessionPart

AGENT = "antigravity"
_OPEN = "<USER_REQUEST>"
_CLOSE = "</USER_REQUEST>"
_APPENDED = ("<ADDITIONAL_METADATA>", "<USER_SETTINGS_CHANGE>")


def user_request(content: str) -> str:
    """What the user typed of a `USER_INPUT` step's content."""
    start = content.find(_OPEN)
    if start >= 0:
        inner = start + len(_OPEN)
        end = content.find(_CLOSE, inner)
        if end >= 0:
            return content[inner:end].strip()
    cuts = [i for i in (content.find(tag) for tag in _APPENDED) if i >= 0]
    return content[: min(cuts, default=len(content))].strip()


def _message(st: dict[str, Any], origin: Origin, off: int, obj: dict[str, Any]) -> Message | None:
    kind = obj.get("type")
    if kind == "USER_INPUT":
        if obj.get("source") in ("SYSTEM", "MODEL"):
            return None
        role = USER
    elif kind == "PLANNER_RESPONSE":
        role = ASSISTANT
    else:
        return None
    content = scrub(text_of(obj.get("content")))
    text = user_request(content) if role == USER else content.strip()
    if not text:
        return None
    sid = carried_sid(st, origin[0])
    return Message(f"{sid}@{off}", role, text, stamp(obj.get("created_at")))


def parse(origin: Origin, data: bytes, base: int, state: dict[str, Any]) -> Parsed:
    parsed = Parsed()
    st: dict[str, Any] = json.loads(json.dumps(state)) if state else {}
    messages: list[Message] = []
    for off, obj in iter_json_lines(data, parsed, base=base):
        if not isinstance(obj.get("type"), str):
            parsed.skip(SKIP_BAD_SHAPE if "type" in obj else SKIP_UNKNOWN)
            continue
        if not (isinstance(st.get("started"), str) and st["started"]):
            at = stamp(obj.get("created_at"))
            if at:
                st["started"] = at
        message = _message(st, origin, off, obj)
        if message is not None:
            messages.append(message)
    if messages:
        sid = carried_sid(st, origin[0])
        started = st.get("started")
        info = SessionInfo(
            sid,
            AGENT,
            parent_session_id=origin[2],
            started_at=started if isinstance(started, str) and started else None,
        )
        parsed.parts.append(SessionPart(info=info, messages=messages))
    parsed.state = st
    return parsed
