"""One search over every source: mirrors, memories, MEMORY.md, daily logs, guidance files.

`run` is what `search.engine` calls. The mirrors are searched by `modes.run`
(keyword, semantic or hybrid, as the user chose), the other sources by
`source_sql` (and `modes.source_nearest` by meaning); each source ranks a list
`POOL` deep whatever the limit, and the lists are merged into one ranking:

- one source with results: its ranking, unchanged;
- several: by the query words each result's text holds (a tier, made
  non-increasing down each list so no source's own order is broken), then
  within a tier by weighted reciprocal rank, `weight(kind) / (RRF_K + rank)`.

Scores of different indexes cannot be compared (`rank.py`), ranks can, and how
many of the question's words an answer holds says which source's best is the
better answer; re-scoring snippets did both worse (issue 20, docs/search.md,
where the weights are justified). Near-duplicates across sources are then
dropped (Jaccard ≥ 0.8, the core's dedup), keeping the better-ranked.
"""

from __future__ import annotations

import sqlite3

from recall import _accel
from recall.errors import ConfigError
from recall.record import replace
from recall.search import bar
from recall.search.asked import Asked
from recall.search.fusion import decay_factor, reciprocal, rrf_scores
from recall.search.modes import Outcome, source_nearest
from recall.search.modes import run as run_sessions
from recall.search.query import STOPWORDS, Query
from recall.search.rank import DEDUP_THRESHOLD
from recall.search.results import POOL, Filters, Result, SearchOutput, plain
from recall.search.source_sql import (
    DAILY_KINDS,
    FILE_KINDS,
    MEMORY_KINDS,
    chunk_hits,
    memory_hits,
)

WEIGHTS = {
    "memory": 1.0,
    "memory_file": 1.0,
    "daily_log": 0.8,
    "file": 0.7,
    "message": 0.6,
    "session": 0.5,
}
"""Per-kind weights in the rank merge, within a tier of words held (docs/search.md)."""


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
    """What a result says, for near-duplicates: its heading (a file chunk's) and snippet."""
    heading = getattr(r, "heading", "")
    return f"{heading} {plain(r.snippet)}" if heading else plain(r.snippet)


def _words(query: Query) -> list[str]:
    """The query words a result is tiered by: its positive words less stop words (all of
    them when nothing else is left), lowercased, each once."""
    positive = [w.lower() for t in query.terms if not t.negated for w in t.text.split()]
    meant = [w for w in positive if w not in STOPWORDS] or positive
    return list(dict.fromkeys(meant))


def held(query: Query, results: list[Result]) -> list[int]:
    """For each result, in order, how many of the query's words its text holds, made
    non-increasing down the list: a tier never lifts a result above one its own source
    ranked higher."""
    words = [w for raw in _words(query) for w in _accel.tokenize(raw)]
    words = list(dict.fromkeys(words))
    tiers: list[int] = []
    floor = len(words)
    for r in results:
        has = bar.holder(f"{r.title or ''} {_text(r)}")
        floor = min(floor, sum(1 for w in words if has(w)))
        tiers.append(floor)
    return tiers


def merge(
    lists: list[list[Result]], query: Query, limit: int, weights: dict[str, float]
) -> list[Result]:
    """One ranking from per-source rankings (see the module), near-duplicates dropped.

    A source's own order is never changed: within a list the tier does not rise and
    the reciprocal rank falls. One list with results comes back as it is. Scores are
    `tier + weight / (RRF_K + rank)`, falling down the merged list.
    """
    lists = [results for results in lists if results]
    if not lists:
        return []
    if len(lists) == 1:
        return lists[0][:limit]
    scored: list[tuple[float, int, int, Result]] = []
    for n, results in enumerate(lists):
        for rank, (r, tier) in enumerate(zip(results, held(query, results), strict=True), 1):
            final = tier + reciprocal(rank, weights[kind(r)])
            scored.append((final, n, rank, r))
    scored.sort(key=lambda t: (-t[0], t[2], t[1]))
    ranked = [replace(r, score=float(f"{final:.6g}")) for final, _, _, r in scored]
    keep = _accel.dedup([_text(r) for r in ranked], DEDUP_THRESHOLD)
    return [ranked[i] for i in keep][:limit]


def _ident(r: Result) -> str:
    """What a memory or chunk result stands for, across its keyword and semantic lists."""
    where = f"{getattr(r, 'path', '')}#{getattr(r, 'heading', '')}"
    return f"{r.source}:{getattr(r, 'memory_id', '')}:{where}"


def _hybrid(keyword: list[Result], semantic: list[Result]) -> list[Result]:
    """Memories or chunks found by words and by meaning, fused by reciprocal rank."""
    scores = rrf_scores([[_ident(r) for r in results] for results in (keyword, semantic)])
    first: dict[str, Result] = {}
    judged: dict[str, list[tuple[str, float]]] = {}
    for results in (keyword, semantic):
        for r in results:
            k = _ident(r)
            first.setdefault(k, r)
            judged.setdefault(k, []).append((r.matched, r.relevance))
    ranked = sorted(first, key=lambda k: -scores[k])[:POOL]
    out = []
    for k in ranked:
        matched, relevance = bar.combined(judged[k])
        score = float(f"{scores[k]:.6g}")
        out.append(
            replace(first[k], score=score, matched=matched, relevance=relevance, weak=relevance < 1)
        )
    return out


def judge_words(db: sqlite3.Connection, query: Query, found: list[Result]) -> list[Result]:
    """A memory's or chunk's keyword hits, said how they matched and marked weak when the
    words they hold carry too little of the query's rarity (`search.bar`)."""
    if not found:
        return found
    words = bar.query_words(query)
    weights = bar.rarity(db, words)
    out = []
    for r in found:
        share = bar.coverage(words, weights, f"{r.title or ''} {_text(r)}")
        matched = bar.EVERY if share >= 1.0 else bar.SOME
        relevance = bar.words_relevance(share)
        out.append(replace(r, matched=matched, relevance=relevance, weak=relevance < 1.0))
    return out


def run(
    db: sqlite3.Connection,
    asked: Asked,
    filters: Filters,
    limit: int,
    computer: str,
    scope: str = "all",
    mode: str | None = None,
    fusion: str = "rrf",
    decay: float = 0.0,
    messages: bool = False,
    weights: dict[str, float] | None = None,
) -> Outcome:
    """Search `scope` (one of `search.request.SCOPES`; the request is checked); sessions
    go through `modes.run` unchanged. The first `limit` of a ranking that does not depend
    on `limit`."""
    weights = checked_weights(weights or {})
    if scope == "sessions":
        return run_sessions(db, asked, filters, limit, mode, fusion, decay, messages)
    query = asked.query
    lists: list[list[Result]] = []
    outcome = None
    by_meaning = mode != "keyword"
    if scope in ("all", "memories"):
        found = judge_words(db, query, list(memory_hits(db, query, filters, POOL, computer)))
        lists.append(_with_meaning(asked, filters, found, by_meaning, "memory", computer))
    chunk_kinds = {
        "all": MEMORY_KINDS + DAILY_KINDS + FILE_KINDS,
        "memories": MEMORY_KINDS,
        "daily": DAILY_KINDS,
        "files": FILE_KINDS,
    }[scope]
    found = judge_words(
        db, query, list(chunk_hits(db, query, filters, POOL, computer, chunk_kinds))
    )
    lists.append(_with_meaning(asked, filters, found, by_meaning, ",".join(chunk_kinds), computer))
    if decay > 0:  # the sessions' list comes decayed from `modes.run`
        lists = [
            sorted(
                (
                    replace(r, score=float(f"{r.score * decay_factor(r.date, decay):.6g}"))
                    for r in lst
                ),
                key=lambda r: -r.score,
            )
            for lst in lists
        ]
    if scope == "all":
        # the sessions' own ranking, as deep as the others' when they found anything
        depth = POOL if any(lists) else limit
        outcome = run_sessions(db, asked, filters, depth, mode, fusion, decay, messages)
        lists.insert(0, outcome.output.results)
    results = merge(lists, query, limit, weights)
    output = SearchOutput(query.text, len(results), results)
    ran = outcome.mode if outcome else ("keyword" if not by_meaning else "hybrid")
    return Outcome(output, ran, outcome.note if outcome else None)


def _with_meaning(
    asked: Asked,
    filters: Filters,
    found: list[Result],
    by_meaning: bool,
    kinds: str,
    computer: str,
) -> list[Result]:
    if not by_meaning:
        return found
    return _hybrid(found, source_nearest(asked, filters, POOL, kinds, computer))
