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

# How much a title is trusted; the store keeps the highest rank seen (docs/mirror.md).
TITLE_FIRST_PROMPT = 1  # the first real user message, cleaned to one line (set by the store)
TITLE_SUMMARY = 2  # a Claude `summary` line whose leaf message is in the session (the store)
TITLE_AGENT = 3  # the agent's own title: Claude ai-title, Codex thread name, Gemini summary
TITLE_USER_GIVEN = 4  # a title the user chose (/rename, import `title`)

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
    records dropped as unreadable, by reason. `summaries`: Claude `summary`
    lines as `(leaf uuid, text)`, in file order; each titles whichever session
    holds the message keyed by its leaf, often in another file (the store
    matches them, `recall.store.summaries`).
    """

    parts: list[SessionPart] = field(default_factory=list)
    offset: int = 0
    state: dict[str, Any] = field(default_factory=dict)
    skipped: dict[str, int] = field(default_factory=dict)
    summaries: list[tuple[str, str]] = field(default_factory=list)

    def skip(self, reason: str, count: int = 1) -> None:
        self.skipped[reason] = self.skipped.get(reason, 0) + count
