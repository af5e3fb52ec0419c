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
    return substantive(lines)


_PLACEHOLDER = re.compile(
    r"^\s*(?:[-*+]\s*(?:\[[ x]?\]\s*)?)?"
    r"(?:<!--.*-->|<[^<>]*>|\(?(?:none|nothing|empty|todo|tbd|n/a|none yet|nothing yet)\)?\.?"
    r"|[_*]*(?:add|write|put|your|describe)\b.*?(?:here|below)\W*_*|\.\.\.|…|)\s*$",
    re.IGNORECASE,
)
"""A line that says nothing: an empty bullet or checkbox, a `<placeholder>` or an HTML
comment, "TODO", "(none yet)", "_Add notes here_", "…"."""


def substantive(lines: list[str]) -> list[str]:
    """MEMORY.md's lines less its template: placeholder lines, and headings with nothing
    but placeholders or other headings under them. [] when only the template is left."""
    kept = [line for line in lines if line.strip() and not _PLACEHOLDER.match(line)]
    out: list[str] = []
    for n, line in enumerate(lines):
        if not line.strip():
            if out and out[-1]:
                out.append("")
            continue
        if _PLACEHOLDER.match(line):
            continue
        if line.lstrip().startswith("#"):
            level = len(line.lstrip()) - len(line.lstrip().lstrip("#"))
            if not _has_content(lines[n + 1 :], level):
                continue
        out.append(line)
    while out and not out[-1]:
        out.pop()
    return out if kept else []


def _has_content(rest: list[str], level: int) -> bool:
    """Whether a heading of `level` has a line of substance before its section ends."""
    for line in rest:
        bare = line.lstrip()
        if bare.startswith("#"):
            if len(bare) - len(bare.lstrip("#")) <= level:
                return False
            continue
        if bare and not _PLACEHOLDER.match(line):
            return True
    return False


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
    """Past messages, memories and notes that answer the prompt (prompt submit), or
    nothing: only when the prompt has something to look up and an excerpt covers it
    (`context.relevance`); this session's own messages excluded. A session's excerpt
    is the matched message with its neighbour (a question with its answer)."""
    from recall.context.relevance import Bar, lookup_words
    from recall.search.engine import search
    from recall.search.request import SearchRequest
    from recall.store import open_reader

    words = lookup_words(prompt)
    if not words:
        return Facts()
    with open_reader() as store:
        bar = Bar(store.conn, words)
        # only words the history holds are searched: an unknown word finds nothing
        # and would only send the search to its any-word and typo fallbacks (the team's
        # index may hold any of them: with it, every word is asked)
        team = with_team()
        known = words if team else [w for w in words if bar.holds(w)]
        if not known:
            return Facts()
        request = SearchRequest(
            text=prompt_query(" ".join(known)), mode="keyword", limit=CANDIDATES, messages=True
        )
        if team:  # this computer's and the team's, merged (docs/team.md)
            from recall.peers.fanout import search_computers
            from recall.record import replace
            from recall.search.request import with_team as asking_team

            request = replace(request, computers=asking_team([], True))
            outcome, _ = search_computers(request, search)
        else:
            outcome, _ = search(request)
        found: list[tuple[float, Any, Any]] = []
        shown: set[tuple[str, str, int]] = set()
        for r in outcome.output.results:
            if getattr(r, "weak", False) or (skip_session and r.session_id == skip_session):
                continue
            if getattr(r, "kind", "") == "memory_md":  # its head is sent whole beside
                continue
            seen = _candidate(store.conn, r, bar, shown)
            if seen is not None:
                found.append(seen)
        best = max((c for c, _, _ in found), default=0.0)
        kept = [(r, body) for c, r, body in found if bar.clears(c, best)][:limit]
        lines = [_line(r, body) for r, body in kept]
    return Facts(excerpts=lines, heading="Past messages and notes that match this prompt:")


def with_team() -> bool:
    """Whether prompts are looked up in the team's index too: `[team] context = true`."""
    from recall.config import load_config

    team = load_config().team
    return bool(team.dsn and team.context)


CANDIDATES = 20
"""Messages searched for a prompt's excerpts, before the relevance check and the pairs
already shown leave at most `limit`."""
TURN_CHARS = (160, 240)
"""Characters of the matched message and of its neighbour, in that order of the line."""


def _candidate(
    db: Any, r: Any, bar: Any, shown: set[tuple[str, str, int]]
) -> tuple[float, Any, Any] | None:
    """(coverage of the prompt, the result, what its line shows) for one result, or None
    when its messages are already shown (a question and its answer both match: one line):
    a session's matched message with its neighbour, a note's whole chunk."""
    from recall.search.results import plain

    if r.source != "session":
        whole = _note_whole(db, r)
        return bar.coverage(whole or plain(r.snippet)), r, whole
    if r.message_index is None:
        return None
    if r.computer.startswith("team:"):  # the team's: its snippet (its neighbours are there)
        return bar.coverage(plain(r.snippet)), r, None
    turns = _turns(db, r)
    keys = {(r.agent, r.session_id, index) for index, _, _ in turns}
    if not turns or keys & shown:
        return None
    shown |= keys
    return bar.coverage("\n".join(t for _, _, t in turns)), r, turns


def _line(r: Any, body: Any) -> str:
    """The excerpt line of a result `_candidate` kept."""
    from recall.search.results import plain

    if r.source != "session":
        return _note_line(r, body)
    where = " · ".join(x for x in (_day(r.date), r.agent, r.project or "") if x)
    title = f" “{_one_line(r.title, 80)}”" if r.title else ""
    if body is None:  # the team's (`recall show ID --computer COMPUTER` reads it)
        text = _one_line(plain(r.snippet), TURN_CHARS[1])
        place = f"session {r.session_id} #{r.message_index} on {r.computer}"
        return f"- {where}{title}: {text} [{place}]"
    parts = []
    for index, role, text in body:
        if index == r.message_index:
            text = _from_snippet(text, plain(r.snippet))
        parts.append(f"{role}: {_one_line(text, TURN_CHARS[index != r.message_index])}")
    return f"- {where}{title}: {' → '.join(parts)} [session {r.session_id} #{r.message_index}]"


def _turns(db: Any, r: Any) -> list[tuple[int, str, str]]:
    """The matched message and its neighbour: the reply after a user's message (the
    decision), the message before anyone else's (what it answered)."""
    from recall.store.queries import message_turns

    around = message_turns(db, r.session_id, r.agent, r.message_index - 1, 3)
    mine = [t for t in around if t[0] == r.message_index]
    if not mine:
        return []
    before = [t for t in around if t[0] == r.message_index - 1]
    after = [t for t in around if t[0] == r.message_index + 1]
    if mine[0][1] == "user":
        return mine + after[:1]
    return before[:1] + mine


def _from_snippet(whole: str, snippet: str) -> str:
    """`whole` from where its snippet starts (the words matched, then what follows: the
    decision, not the text before it), redacted within the whole message."""
    return _window(whole, snippet, to_end=True)


def _note_whole(db: Any, r: Any) -> str | None:
    """The chunk of a note (memory, daily log, guidance file) its snippet was cut from."""
    from recall.memory.files import chunk_texts
    from recall.search.results import plain

    if not getattr(r, "path", ""):
        return None
    core = plain(r.snippet).strip("…")
    return next((t for t in chunk_texts(db, r.path, r.heading) if core in t), None)


def _window(whole: str | None, snippet: str, to_end: bool = False) -> str:
    """The snippet as it reads within its whole message, redacted there: a secret the
    snippet's edge cut (`…R8vK2mQ9…`, the token's prefix left outside) matches no rule
    on its own. A secret reaching past an edge is shown whole, as `[REDACTED:label]`.
    Without the message, the snippet (redacted later, as every line is). `to_end`: from
    the snippet's start to the message's end (cut to a line later)."""
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
    end = len(whole) if to_end else start + len(core)
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
