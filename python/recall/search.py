"""Keyword search over the mirrors: FTS5/BM25, best message per session."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from typing import Any

import msgspec

from recall.query import has_cjk, match_all, match_any, parse_query
from recall.textutil import scrub
from recall.timeutil import format_ts

HL_START, HL_END = "\x02", "\x03"
"""Highlight markers in snippets; the CLI renders them (bold on a terminal)."""
MAX_LIMIT = 200


class Filters(msgspec.Struct):
    agents: list[str] = msgspec.field(default_factory=list)
    project: str | None = None
    since: float | None = None
    until: float | None = None


class Result(msgspec.Struct):
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


class SearchOutput(msgspec.Struct):
    query: str
    found: int
    results: list[Result]
    errors: list[dict[str, str]] = msgspec.field(default_factory=list)


def _filter_sql(f: Filters, ts_expr: str) -> tuple[str, list[Any]]:
    clauses: list[str] = []
    args: list[Any] = []
    if f.agents:
        clauses.append(f"s.agent IN ({','.join('?' * len(f.agents))})")
        args.extend(f.agents)
    if f.project:
        clauses.append("s.project LIKE ? ESCAPE '\\'")
        escaped = f.project.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
        args.append(f"%{escaped}%")
    if f.since is not None:
        clauses.append(f"{ts_expr} >= ?")
        args.append(f.since)
    if f.until is not None:
        clauses.append(f"{ts_expr} <= ?")
        args.append(f.until)
    return "".join(f" AND {c}" for c in clauses), args


_SESSION_COLS = "s.session_id, s.agent, s.project, s.computer, s.title"


def _message_hits(
    db: sqlite3.Connection, expr: str, f: Filters, window: int
) -> list[tuple[Any, ...]]:
    where, args = _filter_sql(f, "coalesce(m.ts, s.ended_at)")
    sql = f"""
        SELECT s.id, {_SESSION_COLS}, m.position, coalesce(m.ts, s.ended_at),
               -bm25(messages_fts),
               snippet(messages_fts, 0, '{HL_START}', '{HL_END}', '…', 24)
        FROM messages_fts
        JOIN messages m ON m.id = messages_fts.rowid
        JOIN sessions s ON s.id = m.session
        WHERE messages_fts MATCH ?{where}
        ORDER BY bm25(messages_fts) LIMIT ?"""
    return db.execute(sql, [expr, *args, window]).fetchall()


def _title_hits(
    db: sqlite3.Connection, expr: str, f: Filters, window: int
) -> list[tuple[Any, ...]]:
    where, args = _filter_sql(f, "s.ended_at")
    sql = f"""
        SELECT s.id, {_SESSION_COLS}, NULL, s.ended_at, -bm25(sessions_fts),
               highlight(sessions_fts, 0, '{HL_START}', '{HL_END}')
        FROM sessions_fts JOIN sessions s ON s.id = sessions_fts.rowid
        WHERE sessions_fts MATCH ?{where}
        ORDER BY bm25(sessions_fts) LIMIT ?"""
    return db.execute(sql, [expr, *args, window]).fetchall()


def _substring_hits(
    db: sqlite3.Connection, words: list[str], f: Filters, window: int
) -> list[tuple[Any, ...]]:
    """CJK text has no spaces for unicode61 to split on: fall back to substring matching.

    Rows end with the message's whole text (ranked, then cut to a snippet, by
    `_add_substring_hits`).
    """
    where, args = _filter_sql(f, "coalesce(m.ts, s.ended_at)")
    likes = " AND ".join("m.text LIKE ? ESCAPE '\\'" for _ in words)
    escaped = [
        "%" + w.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%" for w in words
    ]
    sql = f"""
        SELECT s.id, {_SESSION_COLS}, m.position, coalesce(m.ts, s.ended_at), 1.0, m.text
        FROM messages m JOIN sessions s ON s.id = m.session
        WHERE {likes}{where}
        ORDER BY coalesce(m.ts, s.ended_at) DESC LIMIT ?"""
    return db.execute(sql, [*escaped, *args, window]).fetchall()


def _mark_substring(text: str, words: list[str], width: int = 120) -> str:
    at = max(0, text.find(words[0]))
    start = max(0, at - width // 2)
    piece = text[start : start + width]
    for w in words:
        piece = piece.replace(w, f"{HL_START}{w}{HL_END}")
    return ("…" if start else "") + piece + ("…" if start + width < len(text) else "")


def _add_substring_hits(
    best: dict[int, tuple[Any, ...]], rows: list[tuple[Any, ...]], query: str, words: list[str]
) -> None:
    """Rank substring hits, which have no FTS5 score, by BM25 over their own texts.

    Like any-word hits, they rank below every FTS5 hit (whose match is
    token-exact), in their own order.
    """
    from recall.rank import merge

    fresh = [r for r in rows if r[0] not in best]
    floor = min((r[8] for r in best.values()), default=1.0)
    ranked = merge(query, fresh, lambda r: str(r[9]))
    for score, row in ranked:
        if row[0] not in best:  # a session's best-scoring message stands for it
            snippet = _mark_substring(row[9], words)
            best[row[0]] = (*row[:8], floor - 1.0 / (1.0 + score), snippet)


def _texts(db: sqlite3.Connection, rows: Sequence[tuple[Any, ...]]) -> list[str | None]:
    """The best message's text of each result row; None for a title-only hit."""
    out: list[str | None] = []
    for row in rows:
        found = None
        if row[6] is not None:
            found = db.execute(
                "SELECT text FROM messages WHERE session = ? AND position = ?", (row[0], row[6])
            ).fetchone()
        out.append(found[0] if found else None)
    return out


def _message_index(db: sqlite3.Connection, session: int, position: int | None) -> int | None:
    if position is None:
        return None
    (n,) = db.execute(
        "SELECT count(*) FROM messages WHERE session = ? AND position < ?", (session, position)
    ).fetchone()
    return int(n)


def search(db: sqlite3.Connection, query: str, filters: Filters, limit: int = 10) -> SearchOutput:
    """Best-matching sessions for `query`: never raises on what the user typed."""
    # A non-UTF-8 argv arrives with lone surrogates, which SQLite cannot take.
    query = scrub(query)
    limit = max(1, min(limit, MAX_LIMIT))
    terms = parse_query(query)
    window = max(limit * 10, 100)
    best: dict[int, tuple[Any, ...]] = {}

    def take(rows: list[tuple[Any, ...]]) -> None:
        for row in rows:
            if row[0] not in best or row[8] > best[row[0]][8]:
                best[row[0]] = row

    strict = match_all(terms)
    if strict:
        take(_message_hits(db, strict, filters, window))
        for row in _title_hits(db, strict, filters, window):
            if row[0] in best:  # a title match lifts that session's best message
                hit = best[row[0]]
                best[row[0]] = (*hit[:8], hit[8] + 0.5 * row[8], hit[9])
            else:
                take([row])
    loose = match_any(terms)
    if len(best) < limit and loose:
        extra: dict[int, tuple[Any, ...]] = {}
        for row in _message_hits(db, loose, filters, window):
            if row[0] not in best and row[0] not in extra:
                extra[row[0]] = row
        # Any-word hits rank below every all-words hit, in their own BM25 order.
        floor = min((r[8] for r in best.values()), default=1.0)
        for sid, row in extra.items():
            best[sid] = (*row[:8], floor - 1.0 / (1.0 + max(row[8], 0.0)), row[9])
    if len(best) < limit and has_cjk(query):
        words = [t.text for t in terms if not t.negated]
        if words:
            _add_substring_hits(best, _substring_hits(db, words, filters, window), query, words)
    ranked = sorted(best.values(), key=lambda r: r[8], reverse=True)
    if len(ranked) > 1:
        from recall.rank import distinct

        # The same text pasted into several sessions is one result, not many.
        ranked = distinct(ranked, lambda rows: _texts(db, rows), limit)
    ranked = ranked[:limit]
    results = [
        Result(
            session_id=r[1],
            agent=r[2],
            project=r[3],
            computer=r[4],
            title=r[5],
            date=format_ts(r[7]),
            score=round(float(r[8]), 4),
            snippet=r[9] or "",
            message_index=_message_index(db, r[0], r[6]),
        )
        for r in ranked
    ]
    return SearchOutput(query=query, found=len(results), results=results)
