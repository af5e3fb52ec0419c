"""Twin of `rust/src/pi.rs`: Pi and OpenClaw sessions, a header line then a tree of entries.

The header (`type: session`) names the session, its cwd and start, and the
session it was forked from. Every later entry has an `id` and a `parentId`;
the conversation is the active branch (`recall._twin.tree`). User and
assistant text is kept (thinking, tool calls and results, bash runs,
extension messages and summaries are not); `session_info` names the session;
OpenClaw's `delivery-mirror` assistant copies of channel deliveries are
dropped. Entries before the tree (format v1) have no ids and hang under the
entry before them.
"""

from __future__ import annotations

import json
import re
from typing import Any

from recall._twin.codex_text import sval
from recall._twin.gemini import stamp
from recall._twin.jsonlines import parse_lines
from recall._twin.records import Origin, carried_sid
from recall._twin.tree import PREVIOUS, Branch
from recall.jsonlines import SKIP_BAD_SHAPE, SKIP_UNKNOWN, text_of
from recall.textutil import scrub
from recall.types import (
    ASSISTANT,
    TITLE_USER_GIVEN,
    USER,
    Message,
    Parsed,
    SessionInfo,
    SessionPart,
)

_KNOWN = {
    "model_change",
    "thinking_level_change",
    "compaction",
    "branch_summary",
    "custom",
    "custom_message",
    "label",
    "session_info",
}
"""Entry types that carry no conversation: kept in the tree, not counted."""
_DELIVERY_MIRROR = "delivery-mirror"
"""OpenClaw's model name on an assistant copy of a message delivered to a channel."""


def blocks_text(content: Any) -> str:
    """The text of a string content, or of a content list's `text` blocks."""
    if isinstance(content, str):
        return scrub(content).strip()
    if not isinstance(content, list):
        return ""
    texts = []
    for block in content:
        if isinstance(block, dict) and block.get("type") == "text":
            text = scrub(text_of(block.get("text"))).strip()
            if text:
                texts.append(text)
    return "\n\n".join(texts)


def _fork_id(path: str) -> str | None:
    """The session id in a fork's `parentSession` path (`…/<time>_<uuid>.jsonl`)."""
    name = re.split(r"[/\\]", path)[-1]
    stem = name.removesuffix(".jsonl")
    return stem.rsplit("_", 1)[-1] or None


class _Run:
    def __init__(self, agent: str, origin: Origin, state: dict[str, Any], parsed: Parsed) -> None:
        self.agent = agent
        self.origin = origin
        self.parsed = parsed
        self.st: dict[str, Any] = json.loads(json.dumps(state)) if state else {}
        self.st.pop("reread", None)
        if not isinstance(self.st.get("meta"), dict):
            self.st["meta"] = {}
        self.branch = Branch()
        self.title_changed = False

    def sid(self) -> str:
        return carried_sid(self.st, self.origin[0])

    def record(self, off: int, obj: dict[str, Any]) -> None:
        kind = obj.get("type")
        if not isinstance(kind, str):
            self.parsed.skip(SKIP_BAD_SHAPE if "type" in obj else SKIP_UNKNOWN)
            return
        if kind == "session":
            self.header(obj)
            return
        own_id = sval(obj.get("id"))
        parent = sval(obj.get("parentId")) if "parentId" in obj else PREVIOUS
        message = None
        if kind == "message":
            message = self.message(off, own_id, obj)
        elif kind == "session_info":
            name = sval(obj.get("name"))
            if name and name != self.st.get("title"):
                self.st["title"] = name
                self.title_changed = True
        elif kind == "model_change":
            model = sval(obj.get("modelId"))
            if model:
                self.st["meta"]["model"] = model
        elif kind not in _KNOWN:
            self.parsed.skip(SKIP_UNKNOWN)
        self.branch.add(self.st, own_id or f"@{off}", parent, message, True)

    def header(self, obj: dict[str, Any]) -> None:
        st = self.st
        sid = sval(obj.get("id"))
        if sid and not isinstance(st.get("sid"), str):
            st["sid"] = sid
        for key, value in (("cwd", sval(obj.get("cwd"))), ("started", stamp(obj.get("timestamp")))):
            if not st.get(key) and value:
                st[key] = value
        parent = sval(obj.get("parentSession"))
        fork = _fork_id(parent) if parent else None
        if fork:
            st["meta"]["forked_from"] = fork

    def message(self, off: int, own_id: str | None, obj: dict[str, Any]) -> Message | None:
        m = obj.get("message")
        if not isinstance(m, dict):
            self.parsed.skip(SKIP_BAD_SHAPE)
            return None
        role = m.get("role")
        if role == "user":
            kept, text = USER, blocks_text(m.get("content"))
        elif role == "assistant":
            model = sval(m.get("model"))
            if model == _DELIVERY_MIRROR:
                return None  # a copy of what was delivered to a channel
            if model:
                self.st["meta"]["model"] = model
            kept, text = ASSISTANT, blocks_text(m.get("content"))
        else:
            return None  # tool results, bash runs, extension messages, summaries
        if not text:
            return None
        key = own_id if own_id else f"{self.sid()}@{off}"
        when = stamp(obj.get("timestamp")) or stamp(m.get("timestamp"))
        return Message(key, kept, text, when)

    def finish(self) -> None:
        st = self.st
        messages, again = self.branch.finish(st)
        if again:
            st["reread"] = True
        if not (messages or (self.title_changed and st.get("emitted"))):
            return
        st["emitted"] = True
        title = st.get("title")
        info = SessionInfo(
            session_id=self.sid(),
            agent=self.agent,
            project=st.get("cwd") or None,
            title=title,
            title_rank=TITLE_USER_GIVEN if title else 0,
            started_at=st.get("started") or None,
            metadata={k: v for k, v in st["meta"].items() if isinstance(v, str)},
        )
        self.parsed.parts.append(SessionPart(info=info, messages=messages))


def parse(agent: str, origin: Origin, data: bytes, base: int, state: dict[str, Any]) -> Parsed:
    parsed = Parsed()
    return parse_lines(_Run(agent, origin, state, parsed), data, base, parsed)
