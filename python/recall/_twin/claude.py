"""Twin of `rust/src/claude.rs`: Claude Code lines into sessions and turns.

Only the natural conversation is kept (docs/mirror.md, "Claude Code"):
`text` blocks of user and assistant lines that are neither `isMeta` nor
`isCompactSummary`, with `<system-reminder>` spans and Claude's slash-command,
local-command and bash-mode scaffolding taken out of user text. The file's
place on disk arrives as `origin` (see `recall.agents.claude`).
"""

from __future__ import annotations

from typing import Any

from recall._twin.claude_text import clean_user_text, text_pieces
from recall._twin.records import Origin
from recall.jsonlines import SKIP_BAD_SHAPE, SKIP_UNKNOWN, iter_json_lines
from recall.recordtypes import CLAUDE_IGNORED as IGNORED
from recall.textutil import scrub
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

AGENT = "claude"
SYNTHETIC_MODEL = "<synthetic>"
"""The model of assistant lines Claude Code writes itself (API errors, "No response requested.")."""

_TITLES = {
    "custom-title": ("customTitle", TITLE_USER_GIVEN),
    "ai-title": ("aiTitle", TITLE_AGENT),
}


def _str(value: Any) -> str:
    """A string field of a line, safe to store ('' when absent or not a string)."""
    return scrub(value) if isinstance(value, str) else ""


class _Session:
    """One session's share of a parse, being built."""

    def __init__(self, session_id: str, parent: str | None) -> None:
        self.info = SessionInfo(session_id=session_id, agent=AGENT, parent_session_id=parent)
        self.messages: dict[str, Message] = {}

    def title(self, text: str, rank: int) -> None:
        if text and rank >= self.info.title_rank:
            self.info.title = text
            self.info.title_rank = rank

    def part(self) -> SessionPart:
        return SessionPart(info=self.info, messages=list(self.messages.values()))


class _Reader:
    """Reads one piece of one file; `state()` carries what the next piece needs.

    Which session a line belongs to is settled by the first line that names a
    `sessionId` (or, failing that, by the first turn, which then falls back to
    the file name). A title seen before that waits in `pending`, so that any
    newline-aligned split of a file gives the same sessions as one read.
    """

    def __init__(self, origin: Origin, state: dict[str, Any], parsed: Parsed) -> None:
        self.stem, self.agent_id, fixed_parent, _ = origin
        self.parsed = parsed
        self.sessions: dict[str, _Session] = {}
        sid = state.get("sid")
        self.sid: str | None = sid if isinstance(sid, str) and sid else None
        self.decided = state.get("decided") is True
        pending = state.get("pending")
        self.pending: list[Any] | None = None
        if isinstance(pending, list) and [type(v) for v in pending] == [str, int]:
            self.pending = pending
        done = state.get("proj")
        projected = done if isinstance(done, list) else []
        self.projected = {s for s in projected if isinstance(s, str)}
        if fixed_parent is not None:
            self.sid, self.decided = fixed_parent, True

    def state(self) -> dict[str, Any]:
        return {
            "sid": self.sid,
            "decided": self.decided,
            "pending": self.pending,
            "proj": sorted(self.projected),
        }

    def parts(self) -> list[SessionPart]:
        return [s.part() for s in self.sessions.values()]

    # --- which session -------------------------------------------------------

    def _decide(self, obj: dict[str, Any]) -> None:
        sid = _str(obj.get("sessionId"))
        if sid and not (self.agent_id is not None and sid == self.stem):
            self.sid = sid
            self._settle()

    def _settle(self) -> None:
        self.decided = True
        if self.pending is not None:
            text, rank = self.pending
            self.pending = None
            self._own().title(text, rank)

    def _session(self, session_id: str, parent: str | None) -> _Session:
        session = self.sessions.get(session_id)
        if session is None:
            session = self.sessions[session_id] = _Session(session_id, parent)
        return session

    def _own(self) -> _Session:
        """The session the whole file belongs to (a sub-agent file's child session)."""
        if self.agent_id is None:
            return self._session(self.sid or self.stem, None)
        if self.sid is None:
            return self._session(self.stem, None)
        return self._session(f"{self.sid}:agent-{self.agent_id}", self.sid)

    def _session_of(self, obj: dict[str, Any]) -> _Session:
        if not self.decided:
            self._settle()
        if self.agent_id is None and obj.get("isSidechain") is True:
            parent = self.sid or self.stem
            agent_id = _str(obj.get("agentId"))
            child = f"{parent}:agent-{agent_id}" if agent_id else f"{parent}:sidechain"
            return self._session(child, parent)
        return self._own()

    # --- lines ---------------------------------------------------------------

    def line(self, offset: int, obj: dict[str, Any]) -> None:
        kind = obj.get("type")
        if not isinstance(kind, str):
            self.parsed.skip(SKIP_BAD_SHAPE)
            return
        if not self.decided:
            self._decide(obj)
        if kind in (USER, ASSISTANT):
            self._turn(offset, kind, obj)
        elif kind == "attachment":
            self._queued(offset, obj)
        elif kind == "summary":
            self._summary(obj)
        elif kind in _TITLES:
            field, rank = _TITLES[kind]
            text = _str(obj.get(field)).strip()
            if not text:
                return
            if self.decided:
                self._own().title(text, rank)
            elif self.pending is None or rank >= self.pending[1]:
                self.pending = [text, rank]
        elif kind not in IGNORED:
            self.parsed.skip(SKIP_UNKNOWN)

    def _summary(self, obj: dict[str, Any]) -> None:
        """A `summary` line titles the session holding its leaf message, which may be in
        another file: it is reported as `(leaf, text)` for the store to match."""
        leaf = _str(obj.get("leafUuid"))
        text = _str(obj.get("summary")).strip()
        if leaf and text:
            self.parsed.summaries.append((leaf, text))

    def _turn(self, offset: int, role: str, obj: dict[str, Any]) -> None:
        if obj.get("isMeta") is True or obj.get("isCompactSummary") is True:
            return
        message = obj.get("message")
        pieces = text_pieces(message.get("content")) if isinstance(message, dict) else None
        if pieces is None or not isinstance(message, dict):
            self.parsed.skip(SKIP_BAD_SHAPE)
            return
        session = self._session_of(obj)
        model = _str(message.get("model"))
        self._note(session, obj, model)
        if role == ASSISTANT:
            if model == SYNTHETIC_MODEL or obj.get("isApiErrorMessage") is True:
                return
            self._add(session, offset, role, obj, [p.strip() for p in pieces])
        else:
            self._add(session, offset, role, obj, [clean_user_text(p) for p in pieces])

    def _queued(self, offset: int, obj: dict[str, Any]) -> None:
        """A prompt sent while a turn ran and absorbed into it (2.1.x).

        It is written only as a `queued_command` attachment, never as a user
        line. Background-task news takes the same path, in another `commandMode`.
        """
        attachment = obj.get("attachment")
        if not isinstance(attachment, dict) or attachment.get("type") != "queued_command":
            return
        mode = attachment.get("commandMode")
        if attachment.get("isMeta") is True or mode not in (None, "prompt"):
            return
        pieces = text_pieces(attachment.get("prompt")) or []
        texts = [clean_user_text(p) for p in pieces]
        self._add(self._session_of(obj), offset, USER, obj, texts)

    def _add(
        self, session: _Session, offset: int, role: str, obj: dict[str, Any], texts: list[str]
    ) -> None:
        text = "\n\n".join(t for t in texts if t)
        if not text:
            return
        key = _str(obj.get("uuid")) or f"{session.info.session_id}@{offset}"
        session.messages[key] = Message(
            key=key, role=role, text=text, timestamp=_str(obj.get("timestamp")) or None
        )

    def _note(self, session: _Session, obj: dict[str, Any], model: str) -> None:
        info = session.info
        cwd = _str(obj.get("cwd"))
        if cwd and info.session_id not in self.projected:
            # The first cwd: later ones follow the agent's `cd`s inside the project.
            info.project = cwd
            self.projected.add(info.session_id)
        for field, name in (
            ("gitBranch", "git_branch"),
            ("version", "agent_version"),
            ("entrypoint", "entrypoint"),
        ):
            value = _str(obj.get(field))
            if value:
                info.metadata[name] = value
        if model and model != SYNTHETIC_MODEL and obj.get("type") == ASSISTANT:
            info.metadata["model"] = model


def parse(origin: Origin, data: bytes, base: int, state: dict[str, Any]) -> Parsed:
    parsed = Parsed()
    reader = _Reader(origin, state if isinstance(state, dict) else {}, parsed)
    for line_offset, obj in iter_json_lines(data, parsed, base=base):
        reader.line(line_offset, obj)
    parsed.parts = reader.parts()
    parsed.state = reader.state()
    return parsed
