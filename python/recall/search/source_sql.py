"""Keyword search over the sources beside the mirrors: memories and markdown file chunks.

Both use FTS5/BM25 as the mirrors do: every query word first, then any
meaningful word, ranked below; as for the mirrors, the passes read fixed
windows and run when fewer than `POOL` were found, whatever the limit, which
only cuts the ranking. A memory's relevance is weighed with its
importance (`importance_factor`, docs/memory.md). Results are `Result`s with
the fields that locate them: a memory's id and category, a chunk's file and
heading path. The tables are written by `recall.memory`; this module only reads.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

from recall.search.query import Query, match_all, match_any
from recall.search.results import HL_END, HL_START, POOL, Filters, Result
from recall.search.sql import filter_sql
from recall.timeutil import format_ts

if TYPE_CHECKING:
    from recall.search.asked import Asked

FETCH = POOL * 5
"""Rows each FTS5 pass reads, best first."""


class MemoryResult(Result):
    memory_id: str = ""
    category: str = ""
    importance: int = 0


class FileResult(Result):
    path: str = ""
    heading: str = ""
    kind: str = ""
    """memory_md (recall's MEMORY.md), daily_log or guidance (CLAUDE.md and the like)."""


MEMORY_KINDS = ("memory_md",)
DAILY_KINDS = ("daily_log",)
FILE_KINDS = ("guidance",)
SOURCE_OF_KIND = {"memory_md": "file", "daily_log": "daily_log", "guidance": "file"}
"""The JSON `source` of a chunk by its file's kind: MEMORY.md and guidance files are
files (their `path` tells them apart), daily logs are `daily_log`."""


def importance_factor(importance: int) -> float:
    """0.8 at importance 1, 1.0 at 5, 1.25 at 10: a tie in relevance goes to the more
    important memory, and a small lead in relevance can be overtaken, a large one not."""
    return 0.75 + 0.05 * importance


def _where(f: Filters, ts: str, project: str, agent: str | None) -> tuple[str, list[Any]]:
    """The filters as SQL; memories belong to no agent (`agent` None): an agent filter
    leaves them out."""
    if f.agents and agent is None:
        return " AND 0", []
    return filter_sql(f, ts, agent or "", project)


Row = tuple[Any, ...]
R = TypeVar("R", bound=Result)


def _two_passes(
    query: Query, fetch: Callable[[str], list[Row]], key: Callable[[Row], float]
) -> list[tuple[float, Row]]:
    """Rows matching every word (scored by `key`), then, when fewer than POOL, rows
    matching any meaningful word, placed below all of them in their own order."""
    found: dict[Any, tuple[float, Row]] = {}
    strict = match_all(query.terms)
    if strict:
        for row in fetch(strict):
            found[row[0]] = (key(row), row)
    loose = match_any(query.terms) if len(found) < POOL else None
    if loose:
        floor = min((s for s, _ in found.values()), default=1.0)
        for row in fetch(loose):
            if row[0] not in found:
                found[row[0]] = (floor - 1.0 / (1.0 + max(key(row), 0.0)), row)
    return sorted(found.values(), key=lambda pair: -pair[0])


class Found(list[R]):
    """Results of one source, best first, and the corrected query when words that matched
    nothing were retried as their nearest indexed word and that found something."""

    corrected: str | None = None


def _found(results: list[R], corrected: str | None) -> Found[R]:
    found = Found(results)
    found.corrected = corrected
    return found


def _ranked(
    db: sqlite3.Connection,
    table: str,
    query: Query,
    limit: int,
    fetch: Callable[[str], list[Row]],
    key: Callable[[Row], float],
    asked: Asked | None,
) -> tuple[list[tuple[float, Row]], str | None]:
    """The first `limit` of `_two_passes`, then, when that found fewer than POOL, the
    query with its words that match nothing corrected to the nearest indexed word
    ("prefernces"; `asked` holds the search's one correction, else `table` is asked),
    ranked below; and the corrected query when it added results."""
    ranked = _two_passes(query, fetch, key)
    if len(ranked) >= POOL or len(ranked) >= limit:
        return ranked[:limit], None
    if asked is None:
        from recall.search.asked import Asked

        asked = Asked(db, query, (table,))
    fixed = asked.corrected()
    if fixed is None:
        return ranked, None
    seen = {row[0] for _, row in ranked}
    floor = min((s for s, _ in ranked), default=1.0)
    extra = [
        (floor - 1.0 / (1.0 + max(score, 0.0)), row)
        for score, row in _two_passes(fixed, fetch, key)
        if row[0] not in seen
    ]
    return (ranked + extra)[:limit], fixed.text if extra else None


def _score(value: float) -> float:
    return float(f"{value:.6g}")


def memory_hits(
    db: sqlite3.Connection,
    query: Query,
    filters: Filters,
    limit: int,
    computer: str,
    category: str | None = None,
    asked: Asked | None = None,
) -> Found[MemoryResult]:
    """Memories matching `query`, by relevance × importance factor, best first."""
    where, args = _where(filters, "m.created_at", "m.project", None)
    if category:
        where += " AND m.category = ?"
        args.append(category)
    sql = f"""
        SELECT {_MEMORY_COLS}, -bm25(memories_fts),
               highlight(memories_fts, 0, '{HL_START}', '{HL_END}')
        FROM memories_fts JOIN memories m ON m.id = memories_fts.rowid
        WHERE memories_fts MATCH ?{where} ORDER BY bm25(memories_fts) LIMIT ?"""

    def fetch(expr: str) -> list[Row]:
        return db.execute(sql, [expr, *args, FETCH]).fetchall()

    ranked, corrected = _ranked(
        db, "memories_fts", query, limit, fetch, lambda r: r[5] * importance_factor(r[1]), asked
    )
    return _found([_memory(row, score, computer) for score, row in ranked], corrected)


_MEMORY_COLS = "m.id, m.importance, m.category, m.project, m.created_at"
_CHUNK_COLS = "c.id, f.kind, f.agent, f.project, f.ts, f.path, c.heading"


def _memory(row: Row, score: float, computer: str) -> MemoryResult:
    rowid, importance, category, project, created = row[:5]
    return MemoryResult(
        session_id="",
        agent="",
        project=project,
        computer=computer,
        title=None,
        date=format_ts(created),
        score=_score(score),
        snippet=row[-1] or "",
        source="memory",
        memory_id=str(rowid),
        category=category,
        importance=importance,
    )


def _chunk(row: Row, score: float, computer: str) -> FileResult:
    _, kind, agent, project, ts, path, heading = row[:7]
    name = path.replace("\\", "/").rsplit("/", 1)[-1]
    return FileResult(
        session_id="",
        agent=agent,
        project=project,
        computer=computer,
        title=f"{name} › {heading}" if heading else name,
        date=format_ts(ts),
        score=_score(score),
        snippet=row[-1] or "",
        source=SOURCE_OF_KIND[kind],
        path=path,
        heading=heading,
        kind=kind,
    )


def memory_rows(
    db: sqlite3.Connection,
    ids: list[int],
    filters: Filters,
    similarity: dict[int, float],
    computer: str,
) -> list[MemoryResult]:
    """Memories by id (the semantic leg's), filtered, scored by similarity × importance factor."""
    where, args = _where(filters, "m.created_at", "m.project", None)
    marks = ",".join("?" * len(ids))
    sql = f"SELECT {_MEMORY_COLS}, m.text FROM memories m WHERE m.id IN ({marks}){where}"
    rows = db.execute(sql, [*ids, *args]).fetchall()
    scored = [(similarity[r[0]] * importance_factor(r[1]), r) for r in rows]
    return [_memory(r, s, computer) for s, r in sorted(scored, key=lambda p: -p[0])]


def chunk_rows(
    db: sqlite3.Connection,
    ids: list[int],
    filters: Filters,
    similarity: dict[int, float],
    kinds: Sequence[str],
    computer: str,
) -> list[FileResult]:
    """File chunks by id (the semantic leg's), filtered to `kinds`, by similarity."""
    where, args = _where(filters, "f.ts", "f.project", "f.agent")
    sql = (
        f"SELECT {_CHUNK_COLS}, substr(c.text, 1, 300)"
        " FROM file_chunks c JOIN files f ON f.id = c.file"
        f" WHERE c.id IN ({','.join('?' * len(ids))})"
        f" AND f.kind IN ({','.join('?' * len(kinds))}){where}"
    )
    rows = db.execute(sql, [*ids, *kinds, *args]).fetchall()
    return [
        _chunk(r, similarity[r[0]], computer) for r in sorted(rows, key=lambda r: -similarity[r[0]])
    ]


def chunk_hits(
    db: sqlite3.Connection,
    query: Query,
    filters: Filters,
    limit: int,
    computer: str,
    kinds: Sequence[str],
    asked: Asked | None = None,
) -> Found[FileResult]:
    """File chunks (of files of `kinds`) matching `query`, best first."""
    where, args = _where(filters, "f.ts", "f.project", "f.agent")
    where += f" AND f.kind IN ({','.join('?' * len(kinds))})"
    args.extend(kinds)
    sql = f"""
        SELECT {_CHUNK_COLS}, -bm25(file_chunks_fts, 2.0, 1.0),
               snippet(file_chunks_fts, 1, '{HL_START}', '{HL_END}', '…', 24)
        FROM file_chunks_fts
        JOIN file_chunks c ON c.id = file_chunks_fts.rowid JOIN files f ON f.id = c.file
        WHERE file_chunks_fts MATCH ?{where} ORDER BY bm25(file_chunks_fts, 2.0, 1.0) LIMIT ?"""

    def fetch(expr: str) -> list[Row]:
        return db.execute(sql, [expr, *args, FETCH]).fetchall()

    ranked, corrected = _ranked(db, "file_chunks_fts", query, limit, fetch, lambda r: r[7], asked)
    return _found([_chunk(row, score, computer) for score, row in ranked], corrected)
