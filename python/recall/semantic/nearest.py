"""Semantic ranking: embed the query, find the nearest chunks, rank their sessions.

A session scores as its best chunk (cosine similarity), and the result
points at that chunk's message, quoting the piece that matched.
"""

from __future__ import annotations

import sqlite3
from typing import TYPE_CHECKING, Any

from recall.search.results import Filters, Result
from recall.search.sql import filter_sql, message_indexes
from recall.semantic import vectors
from recall.semantic.index import open_searcher
from recall.semantic.meaning import worth_embedding
from recall.timeutil import format_ts

if TYPE_CHECKING:
    from recall.semantic.provider import Encoder

SNIPPET_CHARS = 220
FLOOR = 0.25
"""Cosine a semantic hit must reach (all-MiniLM-L6-v2), calibrated on two sets: 82-89 % of
evidence messages clear it, a third to two thirds of off-topic questions get nothing
(docs/semantic.md)."""


def _allowed(db: sqlite3.Connection, messages: list[int], f: Filters) -> set[int]:
    where, args = filter_sql(f, "coalesce(m.ts, s.ended_at)")
    if not where:
        return set(messages)
    out: set[int] = set()
    for i in range(0, len(messages), 500):
        part = messages[i : i + 500]
        marks = ",".join("?" * len(part))
        out.update(
            r[0]
            for r in db.execute(
                f"SELECT m.id FROM messages m JOIN sessions s ON s.id = m.session"
                f" WHERE m.id IN ({marks}){where}",
                [*part, *args],
            )
        )
    return out


def semantic_search(
    db: sqlite3.Connection,
    encoder: Encoder,
    query: str,
    filters: Filters,
    limit: int,
    messages: bool = False,
    excluded: str | None = None,
) -> list[Result]:
    """Sessions ranked by their nearest chunk to `query`, best first (at most `limit`);
    with `messages`, messages ranked by their nearest chunk, several per session.
    Chunks below `FLOOR` are left out: in hybrid too, as measured best on both sets;
    so are chunks of messages matching `excluded` (the query's `-words`, an FTS5 expression)."""
    floor = FLOOR
    unit = 1 if messages else 0  # the chunk row's message id, or its session
    vec = encoder.embed([query])[0]
    searcher = open_searcher(db, encoder.model_id, int(vec.shape[0]))
    total = len(searcher)
    k = min(total, max(limit * 4, 40))
    best: dict[int, tuple[float, tuple[Any, ...]]] = {}
    while k:
        hits = searcher.search(vec, k)
        info = vectors.chunk_rows(db, [c for c, _ in hits])
        allowed = _allowed(db, sorted({row[1] for row in info.values()}), filters)
        if excluded:
            allowed -= _matching(db, excluded, allowed)
        best = {}
        for chunk, sim in hits:
            row = info.get(chunk)
            if row is None or row[1] not in allowed or sim < floor:
                continue
            if not worth_embedding(row[5]):  # embedded before the rule: never a match
                continue
            if row[unit] not in best or sim > best[row[unit]][0]:
                best[row[unit]] = (sim, row)
        if len(best) >= limit or k >= total or (hits and hits[-1][1] < floor):
            break
        k = min(total, k * 4)
    ranked = sorted(best.values(), key=lambda hit: hit[0], reverse=True)[:limit]
    return _results(db, [(row[0], sim, row) for sim, row in ranked])


def _matching(db: sqlite3.Connection, expr: str, ids: set[int]) -> set[int]:
    """The messages among `ids` that match the FTS5 expression `expr`."""
    found: set[int] = set()
    ordered = sorted(ids)
    for i in range(0, len(ordered), 500):
        part = ordered[i : i + 500]
        marks = ",".join("?" * len(part))
        sql = f"SELECT rowid FROM messages_fts WHERE messages_fts MATCH ? AND rowid IN ({marks})"
        found.update(int(r[0]) for r in db.execute(sql, [expr, *part]))
    return found


def _results(
    db: sqlite3.Connection, hits: list[tuple[int, float, tuple[Any, ...]]]
) -> list[Result]:
    """Results for (session rowid, similarity, chunk row) hits, read in two queries."""
    if not hits:
        return []
    sessions = sorted({h[0] for h in hits})
    marks = ",".join("?" * len(sessions))
    srows = {
        r[0]: r[1:]
        for r in db.execute(
            "SELECT id, session_id, agent, project, computer, title, ended_at"
            f" FROM sessions WHERE id IN ({marks})",
            sessions,
        )
    }
    messages = [h[2][1] for h in hits]
    marks = ",".join("?" * len(messages))
    mrows = {
        r[0]: r[1:]
        for r in db.execute(
            f"SELECT id, text, ts, role FROM messages WHERE id IN ({marks})",
            messages,
        )
    }
    indexes = message_indexes(db, [(session, row[2]) for session, _, row in hits])
    out = []
    for (session, sim, (_, message, _position, start, end, _text)), index in zip(
        hits, indexes, strict=True
    ):
        s, m = srows[session], mrows[message]
        piece = " ".join(str(m[0])[start:end].split())
        snippet = piece if len(piece) <= SNIPPET_CHARS else piece[: SNIPPET_CHARS - 1] + "…"
        out.append(
            Result(
                session_id=s[0],
                agent=s[1],
                project=s[2],
                computer=s[3],
                title=s[4],
                date=format_ts(m[1] if m[1] is not None else s[5]),
                score=round(float(sim), 4),
                snippet=snippet,
                message_index=index,
                role=str(m[2] or ""),
            )
        )
    return out
