"""Vectors in SQLite, the truth the HNSW index is derived from.

A vector is stored as little-endian float32 bytes beside the message it came
from and the character span of its piece, so a semantic hit can point at its
message and quote it.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any

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
    marks = ",".join("?" * len(roles))
    (n,) = db.execute(
        f"""SELECT count(*) FROM messages m WHERE m.role IN ({marks})
              AND NOT EXISTS (SELECT 1 FROM embedded e WHERE e.model = ? AND e.message = m.id)""",
        (*roles, model),
    ).fetchone()
    return int(n)


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
        "INSERT OR REPLACE INTO chunks(message, model, piece, start, end, vector)"
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


def fingerprint(db: sqlite3.Connection, model: str, upto: int | None = None) -> tuple[int, int]:
    """(count, max id) of `model`'s chunks, those with id ≤ `upto` when given."""
    if upto is None:
        row = db.execute(
            "SELECT count(*), coalesce(max(id), 0) FROM chunks WHERE model = ?", (model,)
        ).fetchone()
    else:
        row = db.execute(
            "SELECT count(*), coalesce(max(id), 0) FROM chunks WHERE model = ? AND id <= ?",
            (model, upto),
        ).fetchone()
    return int(row[0]), int(row[1])


def iter_vectors(
    db: sqlite3.Connection, model: str, after: int = 0, batch: int = 20_000
) -> Iterator[tuple[npt.NDArray[np.int64], npt.NDArray[np.float32]]]:
    """(ids, matrix) batches of `model`'s chunks with id above `after`, in id order."""
    import numpy as np

    last = after
    while True:
        rows = db.execute(
            "SELECT id, vector FROM chunks WHERE model = ? AND id > ? ORDER BY id LIMIT ?",
            (model, last, batch),
        ).fetchall()
        if not rows:
            return
        ids = np.fromiter((r[0] for r in rows), dtype=np.int64, count=len(rows))
        mat = np.frombuffer(b"".join(r[1] for r in rows), dtype="<f4").reshape(len(rows), -1)
        yield ids, mat.astype(np.float32, copy=False)
        last = int(ids[-1])


def chunk_rows(db: sqlite3.Connection, ids: Sequence[int]) -> dict[int, tuple[Any, ...]]:
    """chunk id → (session rowid, message id, position, start, end) for the given chunks."""
    out: dict[int, tuple[Any, ...]] = {}
    for i in range(0, len(ids), 500):
        part = list(ids[i : i + 500])
        marks = ",".join("?" * len(part))
        for row in db.execute(
            f"""SELECT c.id, m.session, m.id, m.position, c.start, c.end
                FROM chunks c JOIN messages m ON m.id = c.message WHERE c.id IN ({marks})""",
            part,
        ):
            out[int(row[0])] = tuple(row[1:])
    return out


def models(db: sqlite3.Connection) -> list[tuple[str, int]]:
    """(model id, chunks) for every model that has vectors."""
    return [
        (str(r[0]), int(r[1]))
        for r in db.execute("SELECT model, count(*) FROM chunks GROUP BY model ORDER BY model")
    ]
