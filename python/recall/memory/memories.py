"""Memories: facts the user or an agent chose to keep, with a category and an importance.

A memory is written, and indexed (FTS triggers), in one transaction: it is
searchable the moment `remember` returns. Its text goes through the user's
redactor first, as every stored text does. A new memory that near-duplicates
one already kept (Jaccard ≥ 0.8 over word sets, the core's `dedup`), or with a
model present says the same in other words ("prefers uv over pip" / "prefers uv
instead of pip": `same_meaning`), is merged into it rather than stored twice:
the newer wording wins, the higher importance stays, and `merged` counts the
repeats (docs/memory.md).
"""

from __future__ import annotations

import sqlite3
import time
from typing import Any

from recall import _accel
from recall.errors import NotFoundError, UsageError
from recall.memory import CATEGORIES
from recall.memory.vectors import closest_memories, embed_quietly, meaning_of
from recall.privacy.redaction import current
from recall.record import Record
from recall.sqltext import fts_string
from recall.store import Store

MAX_TEXT = 4000
"""A memory is a fact, not a document: longer text belongs in MEMORY.md."""
DUPLICATE = 0.8
"""Jaccard similarity of word sets at or above which two memories are one (as search's dedup)."""
_CANDIDATES = 500
"""Memories sharing a probe word with a new one that are checked for near-duplication."""
SAME_MEANING = 0.9
"""Cosine at or above which two memories may say one thing in other words (with the word
checks of `same_meaning`): "prefers uv over pip" / "… instead of pip" are 0.98 with
all-MiniLM-L6-v2, "uses tabs" / "never uses tabs" 0.91, "postgres 15" / "16" 0.96."""
SHARED_WORDS = 0.5
"""Jaccard over content words (stop words dropped) a same-meaning pair must also reach."""
_NEGATIONS = frozenset(
    {
        "not",
        "no",
        "never",
        "without",
        "nor",
        "cannot",
        "don",
        "doesn",
        "didn",
        "isn",
        "aren",
        "wasn",
        "weren",
        "won",
        "shouldn",
        "mustn",
        "avoid",
        "avoids",
        "stop",
        "stopped",
        "unless",
    }
)
"""Words whose presence in one text only turns a statement around."""


class Memory(Record):
    id: int
    text: str
    category: str
    importance: int
    project: str | None
    created_at: float
    updated_at: float
    merged: int = 0


_COLS = "id, text, category, importance, project, created_at, updated_at, merged"


def check(text: str | None, category: str | None, importance: int | None) -> None:
    """Raise UsageError, naming the problem, for a memory recall would not keep."""
    if text is not None:
        if not text.strip():
            raise UsageError("the memory is empty: give the text to remember")
        if len(text) > MAX_TEXT:
            raise UsageError(
                f"a memory is at most {MAX_TEXT} characters (put longer notes in MEMORY.md)"
            )
    if category is not None and category not in CATEGORIES:
        raise UsageError(f"category must be one of {', '.join(CATEGORIES)}, not {category!r}")
    if importance is not None and not 1 <= importance <= 10:
        raise UsageError(f"importance must be 1 to 10, not {importance}")


def _probe(text: str) -> str | None:
    """An FTS5 expression that every near-duplicate of `text` matches: any of its
    `n // 4 + 1` longest distinct words (each quoted: never a syntax error).

    A memory at Jaccard ≥ 0.8 shares at least 80% of `text`'s `n` words, so it
    lacks at most a fifth of them and holds at least one of any quarter plus
    one; longer words are the rarer, so the probe matches few other memories.
    """
    words = list(dict.fromkeys(_accel.tokenize(text)))
    pick = sorted(words, key=len, reverse=True)[: len(words) // 4 + 1]
    return " OR ".join(fts_string(w) for w in pick) or None


def _near_duplicate(db: sqlite3.Connection, text: str, project: str | None) -> int | None:
    """The id of a kept memory (same project) whose words are ≥ 80% those of `text`."""
    expr = _probe(text)
    if expr is None:
        return None
    rows = db.execute(
        "SELECT m.id, m.text FROM memories_fts JOIN memories m ON m.id = memories_fts.rowid "
        "WHERE memories_fts MATCH ? AND m.project IS ? LIMIT ?",
        (expr, project, _CANDIDATES),
    ).fetchall()
    others = [t for _, t in rows]
    kept = set(_accel.dedup([text, *others], DUPLICATE))
    for n, (rowid, other) in enumerate(rows, 1):
        # dropped: a duplicate of `text`, or of another candidate kept before it
        if n not in kept and len(_accel.dedup([other, text], DUPLICATE)) == 1:
            return int(rowid)
    return None


def same_meaning(new: str, old: str) -> bool:
    """Whether two texts close in meaning may be merged: their content words (stop words
    dropped) overlap by `SHARED_WORDS` or more, and the words only one of them has hold no
    number and no negation ("postgres 15" is not "postgres 16"; "never uses tabs" is not
    "uses tabs"). Embeddings place such pairs close together; the words tell them apart."""
    from recall.search.query import STOPWORDS

    a, b = ({w for w in _accel.tokenize(t) if w not in STOPWORDS} for t in (new, old))
    if not a or not b or len(a & b) / len(a | b) < SHARED_WORDS:
        return False
    differ = a ^ b
    return not (differ & _NEGATIONS or any(c.isdigit() for w in differ for c in w))


def _same_meaning(
    db: sqlite3.Connection, text: str, project: str | None, meaning: tuple[str, bytes] | None
) -> int | None:
    """The id of a kept memory (same project) saying what `text` says in other words."""
    if meaning is None:
        return None
    for rowid, other, _ in closest_memories(db, meaning, project, SAME_MEANING):
        if same_meaning(text, other):
            return rowid
    return None


def get(db: sqlite3.Connection, memory_id: int) -> Memory:
    row = db.execute(f"SELECT {_COLS} FROM memories WHERE id = ?", (memory_id,)).fetchone()
    if row is None:
        raise NotFoundError(f"no memory {memory_id} (`recall memories list` shows them)")
    return Memory(*row)


def remember(
    store: Store,
    text: str,
    category: str,
    importance: int,
    project: str | None = None,
    now: float | None = None,
) -> tuple[Memory, bool]:
    """Keep `text`; returns the memory and whether it was merged into a near-duplicate."""
    check(text, category, importance)
    redact = current().redact
    clean = redact(text.strip())
    project = redact(project) if project else None
    now = time.time() if now is None else now
    meaning = meaning_of(store.conn, clean)  # the model is loaded outside the write lock
    with store.transaction() as db:
        same = _near_duplicate(db, clean, project)
        if same is None:
            same = _same_meaning(db, clean, project, meaning)
        if same is not None:
            db.execute(
                "UPDATE memories SET text = ?, category = ?, importance = max(importance, ?),"
                " updated_at = ?, merged = merged + 1 WHERE id = ?",
                (clean, category, importance, now, same),
            )
            kept, merged = get(db, same), True
        else:
            cur = db.execute(
                "INSERT INTO memories(text, category, importance, project, created_at, updated_at)"
                " VALUES (?, ?, ?, ?, ?, ?)",
                (clean, category, importance, project, now, now),
            )
            kept, merged = get(db, int(cur.lastrowid or 0)), False
    embed_quietly(store)  # found by meaning at once too, when a model is present
    return kept, merged


def edit(
    store: Store,
    memory_id: int,
    text: str | None = None,
    category: str | None = None,
    importance: int | None = None,
) -> Memory:
    """Change a memory's text, category or importance (what is None stays)."""
    check(text, category, importance)
    clean = current().redact(text.strip()) if text is not None else None
    with store.transaction() as db:
        old = get(db, memory_id)
        db.execute(
            "UPDATE memories SET text = ?, category = ?, importance = ?, updated_at = ?"
            " WHERE id = ?",
            (
                clean if clean is not None else old.text,
                category or old.category,
                importance if importance is not None else old.importance,
                time.time(),
                memory_id,
            ),
        )
        changed = get(db, memory_id)
    embed_quietly(store)
    return changed


def forget(store: Store, memory_ids: list[int]) -> list[Memory]:
    """Delete memories for good: rows, index entries, and (compaction) every copy in the file."""
    from recall.privacy.forget import compact

    store.conn.execute("PRAGMA secure_delete=ON")
    with store.transaction() as db:
        gone = [get(db, i) for i in memory_ids]
        db.executemany("DELETE FROM memories WHERE id = ?", [(i,) for i in memory_ids])
    compact(store)
    return gone


def listing(
    db: sqlite3.Connection,
    category: str | None = None,
    project: str | None = None,
    limit: int = 50,
) -> list[Memory]:
    """Memories, most important first, then newest."""
    check(None, category, None)
    where: list[str] = []
    args: list[Any] = []
    if category:
        where.append("category = ?")
        args.append(category)
    if project:
        where.append("project LIKE ? ESCAPE '\\'")
        escaped = project.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
        args.append(f"%{escaped}%")
    clause = f" WHERE {' AND '.join(where)}" if where else ""
    sql = (
        f"SELECT {_COLS} FROM memories{clause} "
        "ORDER BY importance DESC, created_at DESC, id DESC LIMIT ?"
    )
    return [Memory(*r) for r in db.execute(sql, [*args, limit])]
