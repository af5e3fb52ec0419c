"""Vectors in SQLite, the truth the HNSW index is derived from.

A vector is stored as little-endian float32 bytes beside the message it came
from and the character span of its piece, so a semantic hit can point at its
message and quote it.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

from recall.types import ASSISTANT, USER

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt


NEWEST_FIRST = "s.ended_at DESC, s.id DESC"
"""The order messages are embedded in: the most recently active sessions first (SQLite
sorts NULL, a session without times, last), so the weeks a user searches most are
searchable by meaning first. `sessions_ended` serves it, rowid included."""


def _pending_clause(roles: Sequence[str]) -> str:
    marks = ",".join("?" * len(roles))
    return f"""m.role IN ({marks})
        AND NOT EXISTS (SELECT 1 FROM embedded e WHERE e.model = ? AND e.message = m.id)"""


def pending_sessions(db: sqlite3.Connection, model: str, roles: Sequence[str]) -> list[int]:
    """Rowids of the sessions with a message of `roles` that `model` has not embedded,
    newest first: one pass over the messages, whatever is done already."""
    return [
        int(r[0])
        for r in db.execute(
            f"""SELECT s.id FROM sessions s WHERE EXISTS (
                    SELECT 1 FROM messages m WHERE m.session = s.id AND {_pending_clause(roles)})
                ORDER BY {NEWEST_FIRST}""",
            (*roles, model),
        )
    ]


def pending_batches(
    db: sqlite3.Connection, model: str, roles: Sequence[str], size: int
) -> Iterator[list[tuple[int, str]]]:
    """Messages (id, text) of `roles` that `model` has not embedded, in batches of up to
    `size`: newest sessions first, each in order. Nothing is held open between batches
    (the caller commits in between); a session of any length is read `size` at a time."""
    batch: list[tuple[int, str]] = []
    for session in pending_sessions(db, model, roles):
        position = -1
        while True:
            rows = db.execute(
                f"""SELECT m.id, m.text, m.position FROM messages m
                    WHERE m.session = ? AND m.position > ? AND {_pending_clause(roles)}
                    ORDER BY m.position LIMIT ?""",
                (session, position, *roles, model, size - len(batch)),
            ).fetchall()
            if not rows:
                break
            batch += [(int(r[0]), str(r[1])) for r in rows]
            position = int(rows[-1][2])
            if len(batch) >= size:
                yield batch
                batch = []
    if batch:
        yield batch


def count_pending(db: sqlite3.Connection, model: str, roles: Sequence[str]) -> int:
    return pending_size(db, model, roles)[0]


def pending_size(
    db: sqlite3.Connection, model: str, roles: Sequence[str], limit: int | None = None
) -> tuple[int, int]:
    """(messages, characters) of `roles` not yet embedded by `model`, the first `limit`
    of them in the order `pending_batches` hands them out: a run's work, for its ETA."""
    n, chars = db.execute(
        f"""SELECT count(*), coalesce(sum(length(t)), 0) FROM (
              SELECT m.text AS t FROM messages m JOIN sessions s ON s.id = m.session
              WHERE {_pending_clause(roles)}
              ORDER BY {NEWEST_FIRST}, m.position LIMIT ?)""",
        (*roles, model, -1 if limit is None else limit),
    ).fetchone()
    return int(n), int(chars)


class Coverage(NamedTuple):
    """How much of the index `model` has embedded, for `recall status`."""

    messages: int
    """Messages of the embedded roles."""
    pending: int
    """Of those, not embedded yet."""
    complete_since: float | None
    """Every session active since this time (epoch seconds) is embedded whole; None when
    nothing is pending (all of it is) or the newest session is still pending."""
    newest_pending: float | None
    """When the newest session with something to embed was last active."""


def coverage(db: sqlite3.Connection, model: str, roles: Sequence[str]) -> Coverage:
    """What share is embedded and up to which date, for `recall status`.

    With both roles embedded (the default, and the only roles there are) the counts
    come from the sessions' message counts and the `embedded` table's index, without
    reading a message; the date from walking the sessions newest first (the order
    they are embedded in) to the first with something pending, so its cost is the
    messages already embedded, not the whole index.
    """
    marks = ",".join("?" * len(roles))
    if {USER, ASSISTANT} <= set(roles):
        (total,) = db.execute("SELECT coalesce(sum(message_count), 0) FROM sessions").fetchone()
        (done,) = db.execute("SELECT count(*) FROM embedded WHERE model = ?", (model,)).fetchone()
    else:
        (total,) = db.execute(
            f"SELECT count(*) FROM messages WHERE role IN ({marks})", tuple(roles)
        ).fetchone()
        (done,) = db.execute(
            f"SELECT count(*) FROM embedded e JOIN messages m ON m.id = e.message"
            f" WHERE e.model = ? AND m.role IN ({marks})",
            (model, *roles),
        ).fetchone()
    pending = max(0, int(total) - int(done))
    if not pending:
        return Coverage(int(total), 0, None, None)
    row = db.execute(
        f"""SELECT s.ended_at FROM sessions s WHERE EXISTS (
                SELECT 1 FROM messages m WHERE m.session = s.id AND {_pending_clause(roles)})
            ORDER BY {NEWEST_FIRST} LIMIT 1""",
        (*roles, model),
    ).fetchone()
    newest = row[0] if row else None
    since = None
    if newest is not None:
        (since,) = db.execute(
            "SELECT min(ended_at) FROM sessions WHERE ended_at > ?", (newest,)
        ).fetchone()
    return Coverage(int(total), pending, since, newest)


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
