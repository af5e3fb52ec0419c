"""Twin of `rust/src/qwen.rs`: Qwen Code `ChatRecord` lines whose `uuid`/`parentUuid` form a tree.

`message` is a Gemini `Content` (`role`, `parts`), read by the Gemini text
rules (`recall._twin.gemini_text`): thoughts, function calls and responses are
not conversation. The conversation is the active branch (`recall._twin.tree`);
`tool_result` and `system` records are links in it only, except a
`custom_title` (the title: the user's, or the agent's own when its source is
`auto`) and `parent_session` (the session that spawned this one). A record
whose `provenance` says it is not the user's or the model's own output is
left out. Sidechain records are a sub-agent's: they become child sessions,
`<session>:agent-<agentId>`.
"""

from __future__ import annotations

import json
from typing import Any

from recall._twin.codex_text import sval
from recall._twin.gemini import stamp
from recall._twin.gemini_text import model_text, user_text
from recall._twin.jsonlines import parse_lines
from recall._twin.records import Origin, carried_sid
from recall._twin.tree import PREVIOUS, Branch
from recall.jsonlines import SKIP_BAD_SHAPE, SKIP_UNKNOWN
from recall.types import (
    ASSISTANT,
    TITLE_AGENT,
    TITLE_USER_GIVEN,
    USER,
    Message,
    Parsed,
    SessionInfo,
    SessionPart,
)

AGENT = "qwen"
_OWN = {USER: "real_user", ASSISTANT: "assistant_output"}


def _as_content(message: dict[str, Any]) -> dict[str, Any]:
    """The message with its `parts` read as Gemini's `content`."""
    if "content" in message or "parts" not in message:
        return message
    return {**message, "content": message["parts"]}


class _Run:
    def __init__(self, origin: Origin, state: dict[str, Any], parsed: Parsed) -> None:
        self.origin = origin
        self.parsed = parsed
        self.st: dict[str, Any] = json.loads(json.dumps(state)) if state else {}
        self.st.pop("reread", None)
        if not isinstance(self.st.get("meta"), dict):
            self.st["meta"] = {}
        self.branch = Branch()
        self.subs: dict[str, list[Message]] = {}
        self.title_changed = False

    def sid(self) -> str:
        return carried_sid(self.st, self.origin[0])

    def once(self, key: str, value: str | None) -> None:
        if not self.st.get(key) and value:
            self.st[key] = value

    def record(self, off: int, obj: dict[str, Any]) -> None:
        st = self.st
        kind = obj.get("type")
        if not isinstance(kind, str):
            self.parsed.skip(SKIP_BAD_SHAPE if "type" in obj else SKIP_UNKNOWN)
            return
        sid = sval(obj.get("sessionId"))
        if sid and not isinstance(st.get("sid"), str):
            st["sid"] = sid
        self.once("cwd", sval(obj.get("cwd")))
        self.once("started", stamp(obj.get("timestamp")))
        for key, field in (("agent_version", "version"), ("git_branch", "gitBranch")):
            value = sval(obj.get(field))
            if value:
                st["meta"][key] = value
        own_id = sval(obj.get("uuid"))
        parent = sval(obj.get("parentUuid")) if "parentUuid" in obj else PREVIOUS
        message = None
        if kind in ("user", "assistant"):
            role = USER if kind == "user" else ASSISTANT
            theirs = "provenance" in obj and obj["provenance"] != _OWN[role]
            m = obj.get("message")
            if not isinstance(m, dict):
                self.parsed.skip(SKIP_BAD_SHAPE)
            elif not theirs:
                if role == USER:
                    text = user_text(_as_content(m))
                else:
                    model = sval(obj.get("model"))
                    if model:
                        st["meta"]["model"] = model
                    text = model_text(_as_content(m))
                if text:
                    key = own_id if own_id else f"{self.sid()}@{off}"
                    message = Message(key, role, text, stamp(obj.get("timestamp")))
        elif kind == "system":
            self.system(obj)
        elif kind != "tool_result":
            self.parsed.skip(SKIP_UNKNOWN)
        node = own_id or f"@{off}"
        if obj.get("isSidechain") is True:
            agent = sval(obj.get("agentId")) or "sidechain"
            name = sval(obj.get("agentName"))
            if name:
                names = st.get("agent_names")
                if not isinstance(names, dict):
                    names = st["agent_names"] = {}
                names[agent] = name
            sub = self.subs.setdefault(agent, [])
            if message is not None:
                sub.append(message)
            self.branch.add(st, node, parent, None, False)
        else:
            self.branch.add(st, node, parent, message, True)

    def system(self, obj: dict[str, Any]) -> None:
        payload = obj.get("systemPayload")
        if not isinstance(payload, dict):
            return
        subtype = obj.get("subtype")
        if subtype == "custom_title":
            title = sval(payload.get("customTitle"))
            if title and title != self.st.get("title"):
                auto = payload.get("titleSource") == "auto"
                self.st["title"] = title
                self.st["title_rank"] = TITLE_AGENT if auto else TITLE_USER_GIVEN
                self.title_changed = True
        elif subtype == "parent_session":
            self.once("parent", sval(payload.get("parentSessionId")))

    def info(self, sid: str, parent: str | None) -> SessionInfo:
        return SessionInfo(
            session_id=sid,
            agent=AGENT,
            project=self.st.get("cwd") or None,
            parent_session_id=parent,
            started_at=self.st.get("started") or None,
        )

    def finish(self) -> None:
        st = self.st
        messages, again = self.branch.finish(st)
        if again:
            st["reread"] = True
        main = bool(messages) or bool(self.title_changed and st.get("emitted"))
        if not main and not any(self.subs.values()):
            return  # no id taken from the file name before a record names it
        sid = self.sid()
        parts = []
        if main:
            title = st.get("title") or None
            rank = st.get("title_rank")
            info = self.info(sid, st.get("parent") or None)
            if title:
                good = isinstance(rank, int) and not isinstance(rank, bool)
                info.title_rank = rank if isinstance(rank, int) and good else TITLE_USER_GIVEN
            info.title = title
            info.metadata = {k: v for k, v in st["meta"].items() if isinstance(v, str)}
            parts.append(SessionPart(info=info, messages=messages))
        names = st.get("agent_names")
        for agent, sub in self.subs.items():
            if not sub:
                continue
            info = self.info(f"{sid}:agent-{agent}", sid)
            name = names.get(agent) if isinstance(names, dict) else None
            if isinstance(name, str):
                info.metadata["agent_name"] = name
            parts.append(SessionPart(info=info, messages=sub))
        if parts:
            st["emitted"] = True
        self.parsed.parts.extend(parts)


def parse(origin: Origin, data: bytes, base: int, state: dict[str, Any]) -> Parsed:
    parsed = Parsed()
    return parse_lines(_Run(origin, state, parsed), data, base, parsed)
