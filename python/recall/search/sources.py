"""One search over every source: mirrors, memories, MEMORY.md, daily logs, guidance files.

`run` is what `recall search` calls. The mirrors are searched by `modes.run`
(keyword, semantic or hybrid, as the user chose), the other sources by
`source_sql`; the lists are then merged into one ranking:

    final = weight(kind) × (own + shared) / 2

where `own` is a result's score divided by the best score of its own list
(each source's own ranking, importance included for memories) and `shared`
is BM25 over the texts of all candidates together, divided by its best: the
scores of different indexes cannot be compared (`rank.py`), BM25 over one
merged collection can. Near-duplicates across sources are then dropped
(Jaccard ≥ 0.8, the core's dedup), keeping the better-ranked. Weights and
why they are what they are: docs/memory.md.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable

from recall import _accel
from recall.errors import ConfigError, UsageError
from recall.record import replace
from recall.search.fusion import RRF_K, decay_factor
from recall.search.modes import NO_WORDS, Outcome
from recall.search.modes import run as run_sessions
from recall.search.query import Query, parse
from recall.search.rank import DEDUP_THRESHOLD
from recall.search.results import Filters, Result, SearchOutput, plain
from recall.search.source_sql import (
    DAILY_KINDS,
    FILE_KINDS,
    MEMORY_KINDS,
    chunk_hits,
    memory_hits,
)

SCOPES = ("all", "sessions", "memories", "daily", "files")
WEIGHTS = {
    "memory": 1.0,
    "memory_file": 1.0,
    "daily_log": 0.8,
    "file": 0.7,
    "message": 0.6,
    "session": 0.5,
}
"""Per-kind weights (seed 000's memory 1.0, message 0.6, session 0.5; docs/memory.md)."""

Nearest = Callable[[sqlite3.Connection, Query, Filters, int, str], list[Result]]
"""A semantic leg over memories and chunks (`memory.vectors.nearest`), handed in by
the caller so that keyword search never imports `recall.semantic`."""


def checked_weights(given: dict[str, float]) -> dict[str, float]:
    """The defaults with the user's `[search.weights]` over them; ConfigError names a bad one."""
    for name, value in given.items():
        if name not in WEIGHTS:
            raise ConfigError(
                f"[search.weights] {name!r} is not a source (known: {', '.join(WEIGHTS)})"
            )
        if not 0 <= value < float("inf"):
            raise ConfigError(f"[search.weights] {name} must be a finite number, 0 or more")
    return {**WEIGHTS, **given}


def kind(r: Result) -> str:
    """Which weight applies to `r`."""
    if r.source == "session":
        return "message" if r.message_index is not None else "session"
    if getattr(r, "kind", "") == "memory_md":
        return "memory_file"
    return r.source


def _text(r: Result) -> str:
    heading = getattr(r, "heading", "")
    return f"{heading} {plain(r.snippet)}" if heading else plain(r.snippet)


def merge(
    lists: list[list[Result]], query: Query, limit: int, weights: dict[str, float]
) -> list[Result]:
    """One ranking from per-source lists (see the module's formula), near-duplicates dropped.

    A result whose text holds a query word ranks above every result found by meaning
    alone, in any source (as hybrid pins exact hits for sessions). `own` is relative to
    the best word-matched result of its list; a meaning-only result keeps its absolute
    score (a similarity), so a weak list's best neighbour does not look strong.
    """
    texts: list[str] = []
    flat: list[tuple[Result, int, list[Result]]] = []
    for results in lists:
        for rank, r in enumerate(results):
            texts.append(_text(r))
            flat.append((r, rank, results))
    if not flat:
        return []
    shared = _accel.bm25_scores(query.words(), texts)
    best = max(shared) or 1.0
    matched = {id(r) for (r, _, _), bm25 in zip(flat, shared, strict=True) if bm25 > 0}
    tops = {
        id(results): max((r.score for r in results if id(r) in matched), default=0.0)
        for results in lists
    }
    scored: list[tuple[bool, Result]] = []
    for (r, rank, results), bm25 in zip(flat, shared, strict=True):
        top = tops[id(results)]
        if id(r) not in matched:
            own = min(max(r.score, 0.0), 1.0)
        elif top > 0:
            own = max(r.score, 0.0) / top
        else:  # a list of fallback hits only (scores ≤ 0) keeps its order by rank
            own = 1.0 / (1 + rank)
        final = weights[kind(r)] * (own + bm25 / best) / 2
        scored.append((id(r) in matched, replace(r, score=float(f"{final:.6g}"))))
    scored.sort(key=lambda p: (p[0], p[1].score), reverse=True)
    ranked = [r for _, r in scored[: limit * 3]]
    keep = _accel.dedup([_text(r) for r in ranked], DEDUP_THRESHOLD)
    return [ranked[i] for i in keep][:limit]


def _ident(r: Result) -> str:
    """What a memory or chunk result stands for, across its keyword and semantic lists."""
    where = f"{getattr(r, 'path', '')}#{getattr(r, 'heading', '')}"
    return f"{r.source}:{getattr(r, 'memory_id', '')}:{where}"


def _hybrid(keyword: list[Result], semantic: list[Result], limit: int) -> list[Result]:
    """Memories or chunks found by words and by meaning, fused by reciprocal rank."""
    scores: dict[str, float] = {}
    first: dict[str, Result] = {}
    for results in (keyword, semantic):
        for rank, r in enumerate(results):
            k = _ident(r)
            scores[k] = scores.get(k, 0.0) + 1.0 / (RRF_K + rank + 1)
            first.setdefault(k, r)
    ranked = sorted(first, key=lambda k: -scores[k])[:limit]
    by_words = {_ident(r) for r in keyword}
    # found by meaning alone: keeps its similarity, which `merge` reads as absolute
    return [
        first[k] if k not in by_words else replace(first[k], score=float(f"{scores[k]:.6g}"))
        for k in ranked
    ]


def run(
    db: sqlite3.Connection,
    text: str,
    filters: Filters,
    limit: int,
    computer: str,
    scope: str = "all",
    mode: str | None = None,
    fusion: str = "rrf",
    decay: float = 0.0,
    messages: bool = False,
    weights: dict[str, float] | None = None,
    nearest: Nearest | None = None,
) -> Outcome:
    """Search `scope` (one of SCOPES); sessions go through `modes.run` unchanged."""
    weights = checked_weights(weights or {})
    if scope not in SCOPES:
        raise UsageError(f"scope must be one of {', '.join(SCOPES)}, not {scope!r}")
    query = parse(text)
    if not query.terms:  # in every scope, as `modes.run` says for sessions
        raise UsageError(NO_WORDS)
    if scope == "sessions":
        return run_sessions(db, text, filters, limit, mode, fusion, decay, messages)
    lists: list[list[Result]] = []
    outcome = None
    semantic = nearest if mode != "keyword" else None
    corrections: list[str | None] = []
    if scope in ("all", "memories"):
        memories = memory_hits(db, query, filters, limit, computer)
        corrections.append(memories.corrected)
        found: list[Result] = list(memories)
        lists.append(_with_meaning(db, query, filters, limit, found, semantic, "memory"))
    chunk_kinds = {
        "all": MEMORY_KINDS + DAILY_KINDS + FILE_KINDS,
        "memories": MEMORY_KINDS,
        "daily": DAILY_KINDS,
        "files": FILE_KINDS,
    }[scope]
    chunks = chunk_hits(db, query, filters, limit, computer, chunk_kinds)
    corrections.append(chunks.corrected)
    found_chunks: list[Result] = list(chunks)
    lists.append(
        _with_meaning(db, query, filters, limit, found_chunks, semantic, ",".join(chunk_kinds))
    )
    if decay > 0:  # the sessions' list comes decayed from `modes.run`
        lists = [
            [replace(r, score=r.score * decay_factor(r.date, decay)) for r in lst] for lst in lists
        ]
    if scope == "all":
        outcome = run_sessions(db, text, filters, limit, mode, fusion, decay, messages)
        lists.append(outcome.output.results)
    results = merge(lists, query, limit, weights)
    if outcome:
        corrections.insert(0, outcome.output.corrected)
    corrected = next((c for c in corrections if c), None)  # said as the sessions' is
    output = SearchOutput(query.text, len(results), results, corrected=corrected)
    ran = outcome.mode if outcome else ("keyword" if semantic is None else "hybrid")
    return Outcome(output, ran, outcome.note if outcome else None)


def _with_meaning(
    db: sqlite3.Connection,
    query: Query,
    filters: Filters,
    limit: int,
    found: list[Result],
    nearest: Nearest | None,
    kinds: str,
) -> list[Result]:
    if nearest is None:
        return found
    return _hybrid(found, nearest(db, query, filters, max(limit * 3, 30), kinds), limit)
