"""The records that flow from an agent adapter into the store.

An adapter turns transcript bytes into `Parsed`: one or more `SessionPart`s
(the sessions those bytes touch, with their new messages), how many bytes it
consumed, the state to resume from, and what it skipped and why.
"""

from __future__ import annotations

from typing import Any

from recall.record import Record, field

USER = "user"
ASSISTANT = "assistant"

# How much an adapter trusts a title; the store keeps the highest rank seen.
TITLE_FIRST_PROMPT = 1  # the first real user message, shortened (set by the store)
TITLE_AGENT_SUMMARY = 2  # an agent-written summary or ai-title
TITLE_USER_GIVEN = 3  # a title the user chose (/rename, import `title`)

Origin = tuple[str, str | None, str | None, bool]
"""What a transcript's path says: `(file_id, agent_id, parent, document)` (see `_core.pyi`)."""


class Message(Record, frozen=True):
    """One turn of the natural conversation.

    `key` identifies the record across re-reads: a natural id (Claude's line
    uuid, Gemini's message id) or one derived from the record's place in its
    file. The same key arriving twice in one session updates the message in
    place (Gemini re-appends updated messages); arriving in another session of
    the same agent it is a copy (a resumed session) and is dropped.
    """

    key: str
    role: str
    text: str
    timestamp: str | None = None


class SessionInfo(Record):
    """What the bytes said about a session; `None` fields leave stored values alone."""

    session_id: str
    agent: str
    project: str | None = None
    title: str | None = None
    title_rank: int = 0
    parent_session_id: str | None = None
    started_at: str | None = None
    metadata: dict[str, str] = field(default_factory=dict)


class SessionPart(Record):
    """A session's share of one parse.

    `replace`: `messages` are the whole conversation (drop what was stored).
    `rewinds`: keys whose message, and everything after it, must be removed
    before `messages` are added (Gemini's `$rewindTo`).
    """

    info: SessionInfo
    messages: list[Message] = field(default_factory=list)
    replace: bool = False
    rewinds: list[str] = field(default_factory=list)


class Parsed(Record):
    """The result of parsing a transcript from some offset.

    `offset`: bytes of the input consumed up to the end of the last complete
    line; the next parse starts there with `state`. `skipped` counts the
    records dropped as unreadable, by reason.
    """

    parts: list[SessionPart] = field(default_factory=list)
    offset: int = 0
    state: dict[str, Any] = field(default_factory=dict)
    skipped: dict[str, int] = field(default_factory=dict)

    def skip(self, reason: str, count: int = 1) -> None:
        self.skipped[reason] = self.skipped.get(reason, 0) + count
