"""What a search returns, whichever leg found it: filters in, results out."""

from __future__ import annotations

from recall.record import Record, field

HL_START, HL_END = "\x02", "\x03"
"""Highlight markers in snippets; the CLI renders them (bold on a terminal)."""
MAX_LIMIT = 200
POOL = 50
"""How many results each source ranks before a search's results are cut to its limit,
whatever the limit: fallback passes run when a source found fewer than this, and sources
are merged from lists this long, so a larger limit shows more of one ranking rather than a
different one (issue 20). A merged search shows at most this many per source."""


class Filters(Record):
    agents: list[str] = field(default_factory=list)
    project: str | None = None
    since: float | None = None
    until: float | None = None


class Result(Record):
    session_id: str
    agent: str
    project: str | None
    computer: str
    title: str | None
    date: str | None
    score: float
    snippet: str
    source: str = "session"
    message_index: int | None = None
    matched: str = ""
    """How it matched: "every word", "some words" or "meaning" (`search.bar`)."""
    relevance: float = 0.0
    """How far it clears the relevance bar, the same for every query: 1 is the bar
    (`search.bar`); 0 from a peer that predates it."""
    weak: bool = False
    """Below the relevance bar (`search.bar`): shown after the answers, never to an agent."""
    role: str = ""
    """Who wrote the message: "user" or "assistant" (also "system" or "tool" where an
    agent keeps them); "" for a title hit, a memory or file, or a peer that predates it."""


class SearchOutput(Record):
    query: str
    found: int
    results: list[Result]
    errors: list[dict[str, str]] = field(default_factory=list)
    corrected: str | None = None
    """The query as typo correction rewrote it, when its results are shown (additive)."""


def plain(snippet: str) -> str:
    """A snippet without its highlight markers (JSON output, dedup)."""
    return snippet.replace(HL_START, "").replace(HL_END, "")
