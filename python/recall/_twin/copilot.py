"""Twin of `rust/src/copilot.rs`: GitHub Copilot CLI event logs, one event a line.

`session.start` names the session, its cwd, model and repository; a resume or
a cwd change fills the cwd when the start had none. The conversation is
`user.message` `content` (what the user saw and typed; never
`transformedContent`) and `assistant.message` `content`. A user message with
a `source` (a skill's hidden prompt, another agent's), an autopilot
continuation, or one from a sub-agent is not the user's. One response split
into chunks (the same `apiCallId`) is one message, rewritten in place as
chunks arrive. Assistant messages of a sub-agent (`agentId`, or the older
`parentToolCallId`) become child sessions, `<session>:agent-<id>`. Every
other event type (tools, reasoning, hooks, usage, system prompts, the ~130
types the schema has and those it will have) carries no conversation and is
passed over without a count.
"""

from __future__ import annotations

import json
from typing import Any

from recall._twin.codex_text import sval
from recall._twin.gemini import stamp
from recall._twin.jsonlines import parse_lines
from recall._twin.records import Origin, carried_sid
from recall.jsonlines import SKIP_BAD_SHAPE, SKIP_UNKNOWN, text_of
from recall.textutil import scrub
from recall.types import ASSISTANT, USER, Message, Parsed, SessionInfo, SessionPart

AGENT = "copilot"
_READ = {
    "session.start",
    "session.resume",
    "session.context_changed",
    "session.model_change",
    "user.message",
    "assistant.message",
}
"""Events whose `data` must be an object to be read."""


class _Run:
    def __init__(self, origin: Origin, state: dict[str, Any], parsed: Parsed) -> None:
        self.origin = origin
        self.parsed = parsed
        self.st: dict[str, Any] = json.loads(json.dumps(state)) if state else {}
        if not isinstance(self.st.get("meta"), dict):
            self.st["meta"] = {}
        self.pending: dict[str, tuple[str | None, Message]] = {}

    def sid(self) -> str:
        return carried_sid(self.st, self.origin[0])

    def once(self, key: str, value: str | None) -> None:
        if not self.st.get(key) and value:
            self.st[key] = value

    def record(self, off: int, obj: dict[str, Any]) -> None:
        kind = obj.get("type")
        if not isinstance(kind, str):
            self.parsed.skip(SKIP_BAD_SHAPE if "type" in obj else SKIP_UNKNOWN)
            return
        if kind not in _READ:
            return
        data = obj.get("data")
        if not isinstance(data, dict):
            self.parsed.skip(SKIP_BAD_SHAPE)
        elif kind == "session.start":
            self.start(obj, data)
        elif kind == "session.resume":
            ctx = data.get("context")
            if isinstance(ctx, dict):
                self.once("cwd", sval(ctx.get("cwd")))
        elif kind == "session.context_changed":
            self.once("cwd", sval(data.get("cwd")))
        elif kind == "session.model_change":
            model = sval(data.get("newModel"))
            if model:
                self.st["meta"]["model"] = model
        elif kind == "user.message":
            self.user(off, obj, data)
        else:
            self.assistant(off, obj, data)

    def start(self, obj: dict[str, Any], data: dict[str, Any]) -> None:
        st = self.st
        sid = sval(data.get("sessionId"))
        if sid and not isinstance(st.get("sid"), str):
            st["sid"] = sid
        self.once("started", sval(data.get("startTime")) or stamp(obj.get("timestamp")))
        ctx = data.get("context")
        ctx = ctx if isinstance(ctx, dict) else {}
        self.once("cwd", sval(ctx.get("cwd")))
        for key, value in (
            ("agent_version", data.get("copilotVersion")),
            ("model", data.get("selectedModel")),
            ("repository", ctx.get("repository")),
            ("git_branch", ctx.get("branch")),
        ):
            clean = sval(value)
            if clean:
                st["meta"][key] = clean

    def user(self, off: int, obj: dict[str, Any], data: dict[str, Any]) -> None:
        injected = (
            sval(obj.get("agentId")) is not None
            or sval(data.get("source")) is not None
            or data.get("isAutopilotContinuation") is True
        )
        text = scrub(text_of(data.get("content"))).strip()
        if injected or not text:
            return
        self.st.pop("call", None)
        key = f"{self.sid()}@{off}"
        self.pending[key] = (None, Message(key, USER, text, stamp(obj.get("timestamp"))))

    def assistant(self, off: int, obj: dict[str, Any], data: dict[str, Any]) -> None:
        st = self.st
        model = sval(data.get("model"))
        if model:
            st["meta"]["model"] = model
        text = scrub(text_of(data.get("content"))).strip()
        if not text:
            return  # a turn of tool requests only
        target = sval(obj.get("agentId")) or sval(data.get("parentToolCallId"))
        call = sval(data.get("apiCallId"))
        prev = st.get("call")
        if (
            call
            and isinstance(prev, list)
            and len(prev) == 4
            and prev[0] == call
            and prev[2] == target
        ):
            key, text = text_of(prev[1]), f"{text_of(prev[3])}\n\n{text}"
        else:
            key = f"{self.sid()}@{off}"
        if call:
            st["call"] = [call, key, target, text]
        else:
            st.pop("call", None)
        self.pending[key] = (target, Message(key, ASSISTANT, text, stamp(obj.get("timestamp"))))

    def info(self, sid: str, parent: str | None) -> SessionInfo:
        return SessionInfo(
            session_id=sid,
            agent=AGENT,
            project=self.st.get("cwd") or None,
            parent_session_id=parent,
            started_at=self.st.get("started") or None,
        )

    def finish(self) -> None:
        if not self.pending:
            return  # no id taken from the file name before the start is read
        sid = self.sid()
        main: list[Message] = []
        subs: dict[str, list[Message]] = {}
        for target, message in self.pending.values():
            if target is None:
                main.append(message)
            else:
                subs.setdefault(target, []).append(message)
        if main:
            info = self.info(sid, None)
            info.metadata = {k: v for k, v in self.st["meta"].items() if isinstance(v, str)}
            self.parsed.parts.append(SessionPart(info=info, messages=main))
        for agent, messages in subs.items():
            info = self.info(f"{sid}:agent-{agent}", sid)
            self.parsed.parts.append(SessionPart(info=info, messages=messages))


def parse(origin: Origin, data: bytes, base: int, state: dict[str, Any]) -> Parsed:
    parsed = Parsed()
    return parse_lines(_Run(origin, state, parsed), data, base, parsed)
