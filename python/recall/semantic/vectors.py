"""Vectors in SQLite, the truth the HNSW index is derived from.

A vector is stored as little-endian float32 bytes beside the message it came
from and the character span of its piece, so a semantic hit can point at its
message and quote it.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt


def pending(
    db: sqlite3.Connection, model: str, roles: Sequence[str], after: int, limit: int
) -> list[tuple[int, str]]:
    """Messages (id, text) with `roles` not yet embedded by `model`, ids above `after`."""
    marks = ",".join("?" * len(roles))
    return db.execute(
        f"""SELECT m.id, m.text FROM messages m
            WHERE m.id > ? AND m.role IN ({marks})
              AND NOT EXISTS (SELECT 1 FROM embedded e WHERE e.model = ? AND e.message = m.id)
            ORDER BY m.id LIMIT ?""",
        (after, *roles, model, limit),
    ).fetchall()


def count_pending(db: sqlite3.Connection, model: str, roles: Sequence[str]) -> int:
    return pending_size(db, model, roles)[0]


def pending_size(
    db: sqlite3.Connection, model: str, roles: Sequence[str], limit: int | None = None
) -> tuple[int, int]:
    """(messages, characters) of `roles` not yet embedded by `model`, the first `limit`
    of them in id order (the order `pending` hands them out): a run's work, for its ETA."""
    marks = ",".join("?" * len(roles))
    n, chars = db.execute(
        f"""SELECT count(*), coalesce(sum(length(t)), 0) FROM (
              SELECT m.text AS t FROM messages m WHERE m.role IN ({marks})
                AND NOT EXISTS (SELECT 1 FROM embedded e WHERE e.model = ? AND e.message = m.id)
              ORDER BY m.id LIMIT ?)""",
        (*roles, model, -1 if limit is None else limit),
    ).fetchone()
    return int(n), int(chars)


def store(
    db: sqlite3.Connection,
    model: str,
    done: Sequence[int],
    rows: Sequence[tuple[int, int, int, int]],
    vectors: npt.NDArray[np.float32],
) -> None:
    """Record chunks `(message, piece, start, end)` with their vectors; mark `done` embedded.

    A message deleted or edited since it was read is skipped: its text is not
    what was embedded (the caller holds the write transaction).
    """
    alive = _alive(db, done)
    db.executemany(
        "INSERT OR IGNORE INTO chunks(message, model, piece, start, end, vector)"
        " VALUES (?, ?, ?, ?, ?, ?)",
        (
            (msg, model, piece, start, end, vectors[n].astype("<f4").tobytes())
            for n, (msg, piece, start, end) in enumerate(rows)
            if msg in alive
        ),
    )
    db.executemany(
        "INSERT OR IGNORE INTO embedded(model, message) VALUES (?, ?)",
        ((model, msg) for msg in done if msg in alive),
    )


def _alive(db: sqlite3.Connection, ids: Sequence[int]) -> set[int]:
    found: set[int] = set()
    for i in range(0, len(ids), 500):
        part = ids[i : i + 500]
        marks = ",".join("?" * len(part))
        found.update(
            r[0] for r in db.execute(f"SELECT id FROM messages WHERE id IN ({marks})", part)
        )
    return found


class Stats(NamedTuple):
    chunks: int
    max_id: int
    deletions: int


def stats(db: sqlite3.Connection, model: str) -> Stats:
    """A model's chunk count, highest chunk id and deletions so far (kept by triggers)."""
    row = db.execute(
        "SELECT chunks, max_id, deletions FROM chunk_stats WHERE model = ?", (model,)
    ).fetchone()
    return Stats(*map(int, row)) if row else Stats(0, 0, 0)


def iter_vectors(
    db: sqlite3.Connection,
    model: str,
    after: int = 0,
    upto: int = 1 << 62,
    batch: int = 20_000,
) -> Iterator[tuple[npt.NDArray[np.int64], npt.NDArray[np.float32]]]:
    """(ids, matrix) batches of `model`'s chunks with `after` < id ≤ `upto`, in id order."""
    import numpy as np

    last = after
    while True:
        rows = db.execute(
            "SELECT id, vector FROM chunks WHERE id > ? AND id <= ? AND model = ?"
            " ORDER BY id LIMIT ?",
            (last, upto, model, batch),
        ).fetchall()
        if not rows:
            return
        ids = np.fromiter((r[0] for r in rows), dtype=np.int64, count=len(rows))
        mat = np.frombuffer(b"".join(r[1] for r in rows), dtype="<f4").reshape(len(rows), -1)
        yield ids, mat.astype(np.float32, copy=False)
        last = int(ids[-1])


def chunk_rows(db: sqlite3.Connection, ids: Sequence[int]) -> dict[int, tuple[Any, ...]]:
    """chunk id → (session rowid, message id, position, start, end, piece text) for the
    given chunks (the text lets search pass over vectors of texts no longer embedded)."""
    out: dict[int, tuple[Any, ...]] = {}
    for i in range(0, len(ids), 500):
        part = list(ids[i : i + 500])
        marks = ",".join("?" * len(part))
        for row in db.execute(
            f"""SELECT c.id, m.session, m.id, m.position, c.start, c.end,
                       substr(m.text, c.start + 1, c.end - c.start)
                FROM chunks c CROSS JOIN messages m ON m.id = c.message WHERE c.id IN ({marks})""",
            part,
        ):
            out[int(row[0])] = tuple(row[1:])
    return out


def models(db: sqlite3.Connection) -> list[tuple[str, int]]:
    """(model id, chunks) for every model that has vectors."""
    return [
        (str(r[0]), int(r[1]))
        for r in db.execute("SELECT model, chunks FROM chunk_stats WHERE chunks ORDER BY model")
    ]
