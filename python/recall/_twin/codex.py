"""Twin of `rust/src/codex.rs`: Codex rollout records into one session's turns.

Reads the current `{timestamp,type,payload}` envelope, the legacy flat records
(a bare `{id,instructions,git}` header, `record_type` state lines, response
items at the top level) and the drift shapes seen in the wild.

The conversation comes from `response_item` messages. Codex also logs every
turn as `event_msg` user_message/agent_message; those are used only for files
with no message items at all. Incremental caveat: while a file has shown only
event messages, they are emitted; when the first message item appears, that
parse's part carries `replace=True` so the store drops them again. The store
ends up as a one-shot parse would leave it; the individual parts differ.
"""

from __future__ import annotations

import json
from typing import Any

from recall._twin.codex_text import message_texts, parent_of, sval, user_text
from recall._twin.jsonlines import parse_lines
from recall._twin.records import Origin, carried_sid
from recall.jsonlines import SKIP_BAD_SHAPE, SKIP_UNKNOWN, text_of
from recall.recordtypes import CODEX_ENVELOPES as ENVELOPES
from recall.textutil import scrub
from recall.types import (
    ASSISTANT,
    TITLE_AGENT,
    USER,
    Message,
    Parsed,
    SessionInfo,
    SessionPart,
)

AGENT = "codex"

_IGNORED = {
    "compacted",
    "world_state",
    "inter_agent_communication",
    "inter_agent_communication_metadata",
}
# ResponseItem kinds, which legacy rollouts write at the top level without an envelope.
_ITEM_TYPES = {
    "message",
    "reasoning",
    "function_call",
    "function_call_output",
    "custom_tool_call",
    "custom_tool_call_output",
    "local_shell_call",
    "web_search_call",
    "tool_search_call",
    "tool_search_output",
    "image_generation_call",
    "agent_message",
    "compaction",
    "ghost_snapshot",
    "other",
}
_ROLES = {USER: USER, ASSISTANT: ASSISTANT}


class _Run:
    """One parse: the resumable state plus this parse's messages."""

    def __init__(self, file_id: str, state: dict[str, Any], parsed: Parsed) -> None:
        self.file_id = file_id
        self.parsed = parsed
        self.st: dict[str, Any] = json.loads(json.dumps(state)) if state else {}
        self.st.setdefault("meta", {})
        self.items: list[Message] = []  # from response_item messages
        self.events: list[Message] = []  # from event_msg user/agent messages
        self.title_changed = False

    def sid(self) -> str:
        return carried_sid(self.st, self.file_id)

    def record(self, off: int, obj: dict[str, Any]) -> None:
        kind = obj.get("type")
        payload = obj.get("payload")
        stamp = obj.get("timestamp")
        if kind in ENVELOPES and "payload" in obj:
            if not isinstance(payload, dict):
                self.parsed.skip(SKIP_BAD_SHAPE)
            elif kind == "session_meta":
                self.session_meta(payload, stamp)
            elif kind == "response_item":
                self.item(off, payload, stamp)
            elif kind == "event_msg":
                self.event(off, payload, stamp)
            else:
                self.turn_context(payload)
        elif kind in _IGNORED or "record_type" in obj:
            return
        elif kind in _ITEM_TYPES or (kind is None and "role" in obj):
            self.item(off, obj, stamp if stamp is not None else obj.get("created_at"))
        elif kind is None and "id" in obj and ("instructions" in obj or "git" in obj):
            self.session_meta(obj, stamp)  # the legacy bare header
        elif isinstance(kind, str) or kind is None:
            self.parsed.skip(SKIP_UNKNOWN)
        else:
            self.parsed.skip(SKIP_BAD_SHAPE)

    def session_meta(self, payload: dict[str, Any], stamp: Any) -> None:
        st = self.st
        if st.get("meta_seen"):
            return  # a fork's or resume's copy: the file's first session_meta wins
        st["meta_seen"] = True
        sid = sval(payload.get("session_id")) or sval(payload.get("id"))
        if sid and not isinstance(st.get("sid"), str):
            st["sid"] = sid
        st["cwd"] = sval(payload.get("cwd"))
        st["started"] = sval(payload.get("timestamp")) or sval(stamp)
        st["parent"] = parent_of(payload)
        meta = st["meta"]
        git = payload.get("git")
        for key, value in (
            ("agent_version", payload.get("cli_version")),
            ("originator", payload.get("originator")),
            ("forked_from", payload.get("forked_from_id")),
            ("git_branch", git.get("branch") if isinstance(git, dict) else None),
        ):
            clean = sval(value)
            if clean:
                meta[key] = clean

    def turn_context(self, payload: dict[str, Any]) -> None:
        model = sval(payload.get("model"))
        if model:
            self.st["meta"]["model"] = model
        if not self.st.get("turn_cwd"):
            self.st["turn_cwd"] = sval(payload.get("cwd"))

    def item(self, off: int, item: dict[str, Any], stamp: Any) -> None:
        kind = item.get("type", "message")
        if kind != "message" and not (kind is None and "role" in item):
            if not isinstance(kind, str):
                self.parsed.skip(SKIP_BAD_SHAPE)
            return  # reasoning, calls, outputs, snapshots: not conversation
        role = _ROLES.get(text_of(item.get("role")))
        texts = message_texts(item)
        if texts is None:
            self.parsed.skip(SKIP_BAD_SHAPE)
            return
        if role is None:
            return  # developer / system
        model = sval(item.get("model"))
        if model and "model" not in self.st["meta"]:
            self.st["meta"]["model"] = model
        self.st["items_seen"] = True
        clean = [user_text(t) if role == USER else scrub(t).strip() for t in texts]
        self.add(self.items, "last", off, role, "\n\n".join(t for t in clean if t), stamp)

    def event(self, off: int, payload: dict[str, Any], stamp: Any) -> None:
        kind = payload.get("type")
        if kind == "thread_name_updated":
            name = sval(payload.get("thread_name")) or sval(payload.get("name"))
            if name and name != self.st.get("title"):
                self.st["title"] = name
                self.title_changed = True
        elif kind in ("user_message", "agent_message"):
            text = text_of(payload.get("message"))
            role = USER if kind == "user_message" else ASSISTANT
            text = user_text(text) if role == USER else scrub(text).strip()
            self.add(self.events, "last_event", off, role, text, stamp)

    def add(
        self, out: list[Message], last_key: str, off: int, role: str, text: str, stamp: Any
    ) -> None:
        if not text or self.st.get(last_key) == [role, text]:
            return
        self.st[last_key] = [role, text]
        out.append(Message(f"{self.sid()}@{off}", role, text, sval(stamp)))

    def finish(self) -> None:
        st = self.st
        replace = False
        if st.get("items_seen"):
            messages = self.items
            if st.pop("events_emitted", False):
                replace = True  # drop the event-log fallback stored by earlier parses
        else:
            messages = self.events
            if messages:
                st["events_emitted"] = True
        if not (messages or replace or (self.title_changed and st.get("emitted"))):
            return
        st["emitted"] = True
        title = st.get("title")
        info = SessionInfo(
            session_id=self.sid(),
            agent=AGENT,
            project=st.get("cwd") or st.get("turn_cwd"),
            title=title,
            title_rank=TITLE_AGENT if title else 0,
            parent_session_id=st.get("parent"),
            started_at=st.get("started"),
            metadata=dict(st["meta"]),
        )
        self.parsed.parts.append(SessionPart(info=info, messages=messages, replace=replace))


def parse(origin: Origin, data: bytes, base: int, state: dict[str, Any]) -> Parsed:
    parsed = Parsed()
    return parse_lines(_Run(origin[0], state, parsed), data, base, parsed)
