"""Keyword search over the mirrors: FTS5/BM25, best message per session.

The ranking does not depend on how many results are asked for: every pass
reads a fixed window of messages (`WINDOW`), the any-word pass runs when fewer
than `POOL` results were found whatever the limit, and the limit
only cuts the ranked list (near-duplicates are dropped in order, which keeps
a shorter list a prefix of a longer one). So the first k results for any
limit n ≥ k are the results for limit k.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Hashable, Sequence
from typing import Any

from recall.record import Record, replace
from recall.search.query import Query, Term, has_cjk, match_all, match_any
from recall.search.results import HL_END, HL_START, MAX_LIMIT, POOL, Filters, Result, SearchOutput
from recall.search.sql import filter_sql, message_places, message_texts
from recall.sqltext import like_literal
from recall.timeutil import format_ts

WINDOW = 500
"""Messages each FTS5 pass reads, best first, whatever the limit (the sessions found are
those of these messages; a title pass reads as many titles)."""
COMMON_SHARE = 0.1
"""A word in more than this share of messages is left out of the any-word fallback."""
COMMON_FLOOR = 2000
"""...but never one found in fewer messages than this: small indexes keep every word."""


_SESSION_COLS = "s.id, s.session_id, s.agent, s.project, s.computer, s.title"


class _Hit(Record):
    """One candidate: a session and its best-matching message (or its title)."""

    sid: int
    session_id: str
    agent: str
    project: str | None
    computer: str
    title: str | None
    position: int | None
    ts: float | None
    score: float
    snippet: str = ""
    message_id: int | None = None
    """Set while the snippet is still to be cut (see `_cut_snippets`)."""
    match: str = ""
    """The FTS5 expression that found the message, for cutting its snippet."""


def _hit(row: tuple[Any, ...], **extra: Any) -> _Hit:
    return _Hit(*row, **extra)


def _message_hits(db: sqlite3.Connection, expr: str, f: Filters, window: int) -> list[_Hit]:
    """The `window` best messages for `expr`, scored by BM25, snippets left for later.

    Snippets are cut only for the few messages that end up shown: cutting one
    for every candidate cost more than ranking them. Without filters the FTS5
    ranking runs alone and only its top rows are joined.
    """
    where, args = filter_sql(f, "coalesce(m.ts, s.ended_at)")
    if where:
        sql = f"""
            SELECT {_SESSION_COLS}, m.position, coalesce(m.ts, s.ended_at),
                   -bm25(messages_fts), m.id
            FROM messages_fts
            JOIN messages m ON m.id = messages_fts.rowid
            JOIN sessions s ON s.id = m.session
            WHERE messages_fts MATCH ?{where}
            ORDER BY bm25(messages_fts) LIMIT ?"""
    else:
        sql = f"""
            WITH top(mid, score) AS (
                SELECT rowid, -bm25(messages_fts) FROM messages_fts
                WHERE messages_fts MATCH ? ORDER BY bm25(messages_fts) LIMIT ?)
            SELECT {_SESSION_COLS}, m.position, coalesce(m.ts, s.ended_at), top.score, m.id
            FROM top JOIN messages m ON m.id = top.mid JOIN sessions s ON s.id = m.session
            ORDER BY top.score DESC"""
    rows = db.execute(sql, [expr, *args, window]).fetchall()
    return [_hit(r[:9], message_id=r[9], match=expr) for r in rows]


def _title_hits(db: sqlite3.Connection, expr: str, f: Filters, window: int) -> list[_Hit]:
    where, args = filter_sql(f, "s.ended_at")
    sql = f"""
        SELECT {_SESSION_COLS}, NULL, s.ended_at, -bm25(sessions_fts),
               highlight(sessions_fts, 0, '{HL_START}', '{HL_END}')
        FROM sessions_fts JOIN sessions s ON s.id = sessions_fts.rowid
        WHERE sessions_fts MATCH ?{where}
        ORDER BY bm25(sessions_fts) LIMIT ?"""
    return [_hit(r) for r in db.execute(sql, [expr, *args, window]).fetchall()]


def _cut_snippets(db: sqlite3.Connection, hits: list[_Hit]) -> None:
    """Cut the snippets of the hits that will be shown: one query per FTS5 expression."""
    pending: dict[str, dict[int, _Hit]] = {}
    for hit in hits:
        if hit.message_id is not None:
            pending.setdefault(hit.match, {})[hit.message_id] = hit
    for expr, by_id in pending.items():
        rows = db.execute(
            f"SELECT rowid, snippet(messages_fts, 0, '{HL_START}', '{HL_END}', '…', 24) "
            f"FROM messages_fts WHERE messages_fts MATCH ? "
            f"AND rowid IN ({','.join('?' * len(by_id))})",
            [expr, *by_id],
        ).fetchall()
        for rowid, snippet in rows:
            by_id[rowid].snippet = snippet or ""
    for hit in hits:
        hit.message_id = None


def _substring_hits(
    db: sqlite3.Connection, words: list[str], f: Filters, window: int
) -> list[tuple[_Hit, str]]:
    """CJK text has no spaces for unicode61 to split on: fall back to substring matching.

    Each hit comes with its message's whole text (ranked, then cut to a
    snippet, by `_add_substring_hits`).
    """
    where, args = filter_sql(f, "coalesce(m.ts, s.ended_at)")
    likes = " AND ".join("m.text LIKE ? ESCAPE '\\'" for _ in words)
    escaped = ["%" + like_literal(w) + "%" for w in words]
    sql = f"""
        SELECT {_SESSION_COLS}, m.position, coalesce(m.ts, s.ended_at), 1.0, m.text
        FROM messages m JOIN sessions s ON s.id = m.session
        WHERE {likes}{where}
        ORDER BY coalesce(m.ts, s.ended_at) DESC LIMIT ?"""
    rows = db.execute(sql, [*escaped, *args, window]).fetchall()
    return [(_hit(r[:-1]), r[-1]) for r in rows]


def _mark_substring(text: str, words: list[str], width: int = 120) -> str:
    at = max(0, text.find(words[0]))
    start = max(0, at - width // 2)
    piece = text[start : start + width]
    for w in words:
        piece = piece.replace(w, f"{HL_START}{w}{HL_END}")
    return ("…" if start else "") + piece + ("…" if start + width < len(text) else "")


def _common_terms(db: sqlite3.Connection, terms: list[Term]) -> frozenset[Term]:
    """The positive terms found in so many messages that they would only slow the fallback."""
    positive = [t for t in terms if not t.negated]
    if len(positive) < 2:
        return frozenset()
    (top,) = db.execute("SELECT coalesce(max(id), 0) FROM messages").fetchone()
    cap = max(COMMON_FLOOR, int(top * COMMON_SHARE))
    sql = "SELECT count(*) FROM (SELECT 1 FROM messages_fts WHERE messages_fts MATCH ? LIMIT ?)"
    return frozenset(t for t in positive if db.execute(sql, (t.fts(), cap)).fetchone()[0] >= cap)


Unit = Callable[["_Hit"], Hashable]
"""What one result stands for: a session (its best message), or one message."""


def _session(hit: _Hit) -> Hashable:
    return hit.sid


def _message(hit: _Hit) -> Hashable:
    return (hit.sid, hit.position)


def _add_substring_hits(
    best: dict[Hashable, _Hit],
    found: list[tuple[_Hit, str]],
    query: Query,
    words: list[str],
    unit: Unit,
) -> None:
    """Rank substring hits, which have no FTS5 score, by BM25 over their own texts.

    Like any-word hits, they rank below every FTS5 hit (whose match is
    token-exact), in their own order.
    """
    from recall.search.rank import merge

    fresh = [pair for pair in found if unit(pair[0]) not in best]
    floor = min((h.score for h in best.values()), default=1.0)
    for score, (hit, text) in merge(query.words(), fresh, lambda pair: pair[1]):
        if unit(hit) not in best:  # a session's best-scoring message stands for it
            hit.snippet = _mark_substring(text, words)
            hit.score = floor - 1.0 / (1.0 + score)
            best[unit(hit)] = hit


def _texts(db: sqlite3.Connection, hits: Sequence[_Hit]) -> list[str | None]:
    """The best message's text of each hit, in one query; None for a title-only hit."""
    return message_texts(db, [(h.sid, h.position) for h in hits])


def search(
    db: sqlite3.Connection,
    query: Query,
    filters: Filters,
    limit: int = 10,
    messages: bool = False,
) -> SearchOutput:
    """Best-matching sessions for `query` (with `messages`: best-matching messages, several
    per session allowed): never raises on what the user typed."""
    return _search(db, query, filters, limit, messages)[0]


def _search(
    db: sqlite3.Connection, query: Query, filters: Filters, limit: int, messages: bool
) -> tuple[SearchOutput, int]:
    """`search`, and how many of its first results hold every query word (or the phrase):
    those rank above any-word and substring hits, so they are a prefix of the list."""
    limit = max(1, min(limit, MAX_LIMIT))
    terms = query.terms
    window = WINDOW
    unit: Unit = _message if messages else _session
    best: dict[Hashable, _Hit] = {}

    def take(hits: list[_Hit]) -> None:
        for hit in hits:
            key = unit(hit)
            if key not in best or hit.score > best[key].score:
                best[key] = hit

    strict = match_all(terms)
    if strict:
        take(_message_hits(db, strict, filters, window))
        if not messages:  # a title is a session's, not a message's
            for title in _title_hits(db, strict, filters, window):
                if title.sid in best:  # a title match lifts that session's best message
                    best[title.sid].score += 0.5 * title.score
                else:
                    take([title])
    exact = set(best)
    loose = match_any(terms, _common_terms(db, terms)) if len(best) < POOL else None
    if loose:
        extra: dict[Hashable, _Hit] = {}
        for hit in _message_hits(db, loose, filters, window):
            if unit(hit) not in best and unit(hit) not in extra:
                extra[unit(hit)] = hit
        # Any-word hits rank below every all-words hit, in their own BM25 order.
        floor = min((h.score for h in best.values()), default=1.0)
        for key, hit in extra.items():
            hit.score = floor - 1.0 / (1.0 + max(hit.score, 0.0))
            best[key] = hit
    if len(best) < POOL and has_cjk(query.text):
        words = [t.text for t in terms if not t.negated]
        if words:
            substrings = _substring_hits(db, words, filters, window)
            _add_substring_hits(best, substrings, query, words, unit)
    ranked = sorted(best.values(), key=lambda h: h.score, reverse=True)
    if len(ranked) > 1:
        from recall.search.rank import distinct

        # The same text pasted into several sessions is one result, not many.
        ranked = distinct(ranked, lambda hits: _texts(db, hits), limit)
    ranked = ranked[:limit]
    _cut_snippets(db, ranked)
    at = [(h.sid, h.position) for h in ranked]
    places = message_places(db, at)
    results = [
        Result(
            session_id=h.session_id,
            agent=h.agent,
            project=h.project,
            computer=h.computer,
            title=h.title,
            date=format_ts(h.ts),
            score=round(float(h.score), 4),
            snippet=h.snippet or "",
            message_index=index,
            role=role,
        )
        for h, (index, role) in zip(ranked, places, strict=True)
    ]
    n_exact = sum(1 for h in ranked if unit(h) in exact)
    _judge(db, query, ranked, [unit(h) in exact for h in ranked], results)
    return SearchOutput(query=query.text, found=len(results), results=results), n_exact


def _judge(
    db: sqlite3.Connection,
    query: Query,
    ranked: list[_Hit],
    every: list[bool],
    results: list[Result],
) -> None:
    """Say how each result matched, and mark weak a some-words hit whose words carry too
    little of the query's rarity (`search.bar`): judged on its whole message and title."""
    from recall.search import bar
    from recall.search.results import plain

    partial = [i for i, e in enumerate(every) if not e]
    words = bar.query_words(query) if partial else []
    weights = bar.rarity(db, words) if words else []
    texts = _texts(db, [ranked[i] for i in partial]) if partial else []
    for i, r in enumerate(results):
        r.matched = bar.EVERY if every[i] else bar.SOME
        r.relevance = bar.words_relevance(1.0)
    for i, text in zip(partial, texts, strict=True):
        h = ranked[i]
        whole = f"{h.title or ''} {text or ''} {plain(h.snippet)}"
        share = bar.coverage(words, weights, whole)
        results[i].matched = bar.EVERY if share >= 1.0 else bar.SOME
        results[i].relevance = bar.words_relevance(share)
        results[i].weak = results[i].relevance < 1.0


class KeywordHits(Record):
    results: list[Result]
    exact: int = 0
    """How many of the first results hold every query word or the quoted phrase."""


def keyword_search(
    db: sqlite3.Connection,
    query: Query,
    filters: Filters,
    limit: int,
    messages: bool = False,
) -> KeywordHits:
    """Keyword results for `query` as given: a typo was corrected once for the whole
    request before any source ran (`search.asked`, by the engine). With `messages`, the
    best `POOL` messages are ranked again with their passages (`by_passage`) before the
    cut."""
    if messages:
        out, exact = _search(db, query, filters, POOL, messages)
        return KeywordHits(by_passage(query, out.results, exact)[:limit], min(exact, limit))
    out, exact = _search(db, query, filters, limit, messages)
    return KeywordHits(out.results, exact)


def by_passage(query: Query, results: list[Result], exact: int) -> list[Result]:
    """Messages ranked by two ranks fused, `1/(K + rank)` each: the message's BM25 in the
    index, and BM25 over the candidates' snippets (the passage FTS5 cut around the query's
    words, stop words counted). The second rewards the words close together, where a long
    message that mentions them far apart scores as well in the first. The first `exact`
    (every word held) stay above the rest. On the quality gate's slices (docs/search.md)
    message recall@5 went 0.593 → 0.676 on LongMemEval and 0.70 → 0.71 on agent
    decisions, 0.536 → 0.529 on LoCoMo; re-scoring whole results' snippets instead, as the
    merge across sources once did, cost agent decisions 0.06."""
    if len(results) < 2:
        return results
    from recall.search.fusion import rrf_scores
    from recall.search.rank import bm25_order
    from recall.search.results import plain

    order = bm25_order(query.words(), [plain(r.snippet) for r in results])
    both = rrf_scores([list(range(len(results))), [i for i, _ in order]])
    fused = [(i < exact, both[i]) for i in range(len(results))]
    ranked = sorted(range(len(results)), key=lambda i: (fused[i], -i), reverse=True)
    # the score shown is the fused one (+1 for every word held), falling down the list
    return [replace(results[i], score=round(fused[i][0] + fused[i][1], 6)) for i in ranked]
