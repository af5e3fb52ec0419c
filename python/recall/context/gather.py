"""The facts worth injecting, as ready lines, most useful first.

Written as facts with their source, never as instructions: agents guard
against text that tells them what to do, and a quoted past message is data.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from recall.record import Record, field

PROMPT_TERMS = 24
"""A prompt is searched by its 24 longest distinct non-stop words. On LongMemEval
(bench/context_terms_eval.py, docs/agents.md) questions inside a long prompt were found
0.863 of the time this way, 0.800 with 16 words, 0.189 with the prompt as typed (whose
first 32 words are mostly greeting); bare questions 0.968 either way."""
MEMORY_READ = 64 * 1024
"""Only the head of MEMORY.md is ever read: a huge file costs the hook nothing more."""
SNIPPET_CHARS = 300


class Facts(Record):
    memory: list[str] = field(default_factory=list)
    """The head of MEMORY.md, line by line."""
    excerpts: list[str] = field(default_factory=list)
    """One line per past session or message."""
    heading: str = ""
    """What the excerpts are (recent sessions here, or messages matching the prompt)."""


def memory_head(path: Path) -> list[str]:
    """MEMORY.md's first lines (up to MEMORY_READ bytes), blank runs folded; [] when absent."""
    from recall.safeio import read_head

    try:  # a FIFO or device left at MEMORY.md must not hold up the agent's prompt
        raw = read_head(path, MEMORY_READ)
    except OSError:
        return []
    text = raw.decode("utf-8", errors="ignore")
    if len(raw) == MEMORY_READ:
        text = text[: text.rfind("\n")] if "\n" in text else text
    lines: list[str] = []
    for line in text.splitlines():
        line = line.rstrip()
        if line or (lines and lines[-1]):
            lines.append(line)
    while lines and not lines[-1]:
        lines.pop()
    return lines


def redacted(facts: Facts) -> Facts:
    """`facts` as they may leave recall: every line through the user's redactor.

    The hook sends its text to the agent's model unasked, so it redacts what it
    emits rather than trust its sources: MEMORY.md is read from disk as it is, and
    an index built while redaction was off, or before a rule the user added, still
    holds raw text. MEMORY.md's head is redacted as one text, so a secret spanning
    lines (a PEM block) goes whole. A configuration error propagates: the hook
    then prints nothing rather than unredacted text.
    """
    from recall.privacy.redaction import current

    redact = current().redact
    memory = redact("\n".join(facts.memory)).split("\n") if facts.memory else []
    return Facts(
        memory=memory,
        excerpts=[redact(line) for line in facts.excerpts],
        heading=redact(facts.heading),
    )


def _day(iso: str | None) -> str:
    return iso[:10] if iso else "undated"


def _one_line(text: str, limit: int = SNIPPET_CHARS) -> str:
    """`text` on one line of at most `limit` characters, redacted before it is cut (a cut
    secret no longer matches its rule, and its head would go out as it is)."""
    from recall.privacy.redaction import current

    flat = " ".join(current().redact(text).split())
    return flat if len(flat) <= limit else flat[: limit - 1].rstrip() + "…"


def recent_here(project: str, limit: int) -> Facts:
    """The latest sessions in this project (session start)."""
    from recall.store import open_reader
    from recall.store.queries import recent_sessions

    with open_reader() as store:
        found = recent_sessions(store.conn, project, limit)
    lines = [
        f"- {_day(s.ended_at)} · {s.agent} · {_one_line(s.title or '(untitled)', 160)}"
        f" [session {s.session_id}]"
        for s in found
    ]
    return Facts(excerpts=lines, heading=f"Recent sessions in {project}:")


def prompt_query(prompt: str, terms: int = PROMPT_TERMS, longest: bool = True) -> str:
    """The words of `prompt` to search for: its `terms` longest distinct words that are not
    stop words (longer words are rarer, so they say more), in the prompt's order, as plain
    words (no query syntax: a prompt's quotes and dashes are prose). `longest=False` keeps
    the first ones instead (compared in bench/context_terms_eval.py)."""
    from recall.search.query import STOPWORDS

    kept: dict[str, str] = {}
    for word in re.findall(r"\w[\w.]*\w|\w", prompt):
        key = word.casefold()
        if key not in STOPWORDS and key not in kept:
            kept[key] = word
    words = list(kept.values())
    if len(words) > terms:
        chosen = (
            sorted(range(len(words)), key=lambda i: -len(words[i]))[:terms]
            if longest
            else range(terms)
        )
        words = [words[i] for i in sorted(chosen)]
    return " ".join(words)


def matching(prompt: str, limit: int, skip_session: str | None) -> Facts:
    """Past messages, memories and notes that match the prompt (prompt submit), this
    session's own messages and MEMORY.md (its head is sent whole) excluded."""
    from recall.search.engine import search
    from recall.search.request import SearchRequest
    from recall.search.results import plain

    query = prompt_query(prompt)
    if not query:
        return Facts()
    request = SearchRequest(text=query, mode="keyword", limit=limit + 5, messages=True)
    outcome, _ = search(request)
    lines = []
    whole = _wholes(outcome.output.results)
    for n, r in enumerate(outcome.output.results):
        if skip_session and r.session_id == skip_session:
            continue
        if r.source != "session":
            if getattr(r, "kind", "") != "memory_md":
                lines.append(_note_line(r, whole.get(n)))
            if len(lines) >= limit:
                break
            continue
        where = " · ".join(x for x in (_day(r.date), r.agent, r.project or "") if x)
        title = f" “{_one_line(r.title, 80)}”" if r.title else ""
        at = f" #{r.message_index}" if r.message_index is not None else ""
        text = _window(whole.get(n), plain(r.snippet))
        lines.append(f"- {where}{title}: {_one_line(text)} [session {r.session_id}{at}]")
        if len(lines) >= limit:
            break
    return Facts(excerpts=lines, heading="Past messages and notes that match this prompt:")


def _wholes(results: list[Any]) -> dict[int, str]:
    """The whole text each result's snippet was cut from (by the result's place in
    `results`): a message, or the chunk of a note that holds the snippet."""
    from recall.memory.files import chunk_texts
    from recall.search.results import plain
    from recall.store import open_reader
    from recall.store.queries import message_text

    found = {}
    with open_reader() as store:
        for n, r in enumerate(results):
            text = None
            if r.source == "session" and r.message_index is not None:
                text = message_text(store.conn, r.session_id, r.agent, r.message_index)
            elif r.source != "session" and getattr(r, "path", ""):
                core = plain(r.snippet).strip("…")
                texts = chunk_texts(store.conn, r.path, r.heading)
                text = next((t for t in texts if core in t), None)
            if text is not None:
                found[n] = text
    return found


def _window(whole: str | None, snippet: str) -> str:
    """The snippet as it reads within its whole message, redacted there: a secret the
    snippet's edge cut (`…R8vK2mQ9…`, the token's prefix left outside) matches no rule
    on its own. A secret reaching past an edge is shown whole, as `[REDACTED:label]`.
    Without the message, the snippet (redacted later, as every line is)."""
    from recall.privacy.redaction import current
    from recall.spans import render
    from recall.textutil import scrub

    if whole is None:
        return snippet
    whole, core = scrub(whole), scrub(snippet).strip("…")
    start = whole.find(core) if core else -1
    redactor = current()
    if start < 0:  # not found as it is: the message itself, redacted (then cut to a line)
        return redactor.redact(whole)
    end = start + len(core)
    spans = redactor.spans(whole) if redactor.enabled else []
    for a, b, _ in spans:
        if a < end and b > start:
            start, end = min(start, a), max(end, b)
    inside = [(a - start, b - start, label) for a, b, label in spans if start <= a and b <= end]
    cut = render(whole[start:end], inside)
    return ("…" if start > 0 else "") + cut + ("…" if end < len(whole) else "")


def _note_line(r: Any, whole: str | None) -> str:
    """A memory, daily log or guidance file chunk as one excerpt line, with where it is
    (`whole`: the chunk the snippet was cut from, redacted within it)."""
    from recall.search.results import plain

    text = _one_line(_window(whole, plain(r.snippet)))
    if r.source == "memory":
        return f"- {_day(r.date)} remembered ({r.category}, importance {r.importance}): {text}"
    return f"- {_day(r.date)} {r.path} › {r.heading}: {text}"
