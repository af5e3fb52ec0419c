"""Vectors in SQLite, the truth the HNSW index is derived from.

A vector is stored as little-endian float32 bytes beside the message it came
from and the character span of its piece, so a semantic hit can point at its
message and quote it.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

from recall.types import ASSISTANT, USER

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt


NEWEST_FIRST = "s.ended_at DESC, s.id DESC"
"""The order messages are embedded in: the most recently active sessions first (SQLite
sorts NULL, a session without times, last), so the weeks a user searches most are
searchable by meaning first. `sessions_ended` serves it, rowid included."""
OPENING = -1
"""The piece number of a message's opening, embedded by the first pass over the month
(`firstpass.py`) before the message is read whole. Search leaves an opening out once its
message is embedded whole; the run that finds nothing left to embed deletes it."""
SKIMMED = f"""EXISTS (SELECT 1 FROM chunks c
    WHERE c.model = ? AND c.message = m.id AND c.piece = {OPENING})"""
"""A message of `m` read from its opening only (`chunks_openings` serves it)."""


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


def month_unread(
    db: sqlite3.Connection, model: str, roles: Sequence[str], days: float
) -> list[tuple[int, int]]:
    """(message id, length) of every message of `roles` in the sessions active in the
    history's newest `days` days (counted back from its newest session, or from now when
    a clock set wrong dated one in the future) that
    `model` has neither embedded nor read from its opening: newest sessions first."""
    (newest,) = db.execute("SELECT max(ended_at) FROM sessions").fetchone()
    if newest is None:
        return []
    newest = min(float(newest), time.time())
    return [
        (int(r[0]), int(r[1]))
        for r in db.execute(
            f"""SELECT m.id, length(m.text) FROM messages m JOIN sessions s ON s.id = m.session
                WHERE s.ended_at >= ? AND {_pending_clause(roles)} AND NOT {SKIMMED}
                ORDER BY {NEWEST_FIRST}, m.position""",
            (float(newest) - days * 86400, *roles, model, model),
        )
    ]


def texts(db: sqlite3.Connection, ids: Sequence[int]) -> list[tuple[int, str]]:
    """(id, text) of the messages `ids` still in the index, in the order given."""
    found: dict[int, str] = {}
    for i in range(0, len(ids), 500):
        part = list(ids[i : i + 500])
        marks = ",".join("?" * len(part))
        found.update(
            (int(r[0]), str(r[1]))
            for r in db.execute(f"SELECT id, text FROM messages WHERE id IN ({marks})", part)
        )
    return [(i, found[i]) for i in ids if i in found]


def has_openings(db: sqlite3.Connection, model: str) -> bool:
    """Whether any message of `model` is stored with its opening (`chunks_openings`)."""
    sql = f"""SELECT 1 FROM chunks INDEXED BY chunks_openings
              WHERE model = ? AND piece = {OPENING} LIMIT 1"""
    return db.execute(sql, (model,)).fetchone() is not None


def drop_read_openings(db: sqlite3.Connection, model: str) -> int:
    """Delete the openings of messages embedded whole since; returns how many went.
    Deleting chunks makes the next index update a rebuild, so the embedding run does
    this once, when nothing is left to embed."""
    cur = db.execute(
        f"""DELETE FROM chunks INDEXED BY chunks_openings WHERE model = ? AND piece = {OPENING}
            AND EXISTS (
                SELECT 1 FROM embedded e WHERE e.model = chunks.model
                AND e.message = chunks.message)""",
        (model,),
    )
    return int(cur.rowcount)


class Coverage(NamedTuple):
    """How much of the index `model` has embedded, for `recall status`."""

    messages: int
    """Messages of the embedded roles."""
    pending: int
    """Of those, not embedded whole yet."""
    complete_since: float | None
    """Every session active since this time (epoch seconds) is embedded whole; None when
    nothing is pending (all of it is) or the newest session is still pending."""
    newest_pending: float | None
    """When the newest session with something to embed was last active."""
    skimmed: int = 0
    """Of the pending, messages searchable by meaning from their opening (`OPENING`)."""
    searchable_since: float | None = None
    """Every session active since this time is searchable by meaning, openings counted;
    None when nothing is skimmed or no session is wholly searchable."""


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
    (skimmed,) = db.execute(
        f"""SELECT count(*) FROM chunks c INDEXED BY chunks_openings
            JOIN messages m ON m.id = c.message AND m.role IN ({marks})
            WHERE c.model = ? AND c.piece = {OPENING} AND NOT EXISTS (
                SELECT 1 FROM embedded e WHERE e.model = c.model AND e.message = c.message)""",
        (*roles, model),
    ).fetchone()
    newest = _newest_with(db, _pending_clause(roles), (*roles, model))
    searchable = None
    if skimmed:
        unread = f"{_pending_clause(roles)} AND NOT {SKIMMED}"
        last_unread = _newest_with(db, unread, (*roles, model, model))
        if last_unread is None:  # every message not read whole has its opening
            (searchable,) = db.execute("SELECT min(ended_at) FROM sessions").fetchone()
        else:
            searchable = _since(db, last_unread)
    return Coverage(int(total), pending, _since(db, newest), newest, int(skimmed), searchable)


def _newest_with(db: sqlite3.Connection, clause: str, args: Sequence[Any]) -> float | None:
    """When the newest session holding a message `m` that meets `clause` was last active."""
    row = db.execute(
        f"""SELECT s.ended_at FROM sessions s WHERE EXISTS (
                SELECT 1 FROM messages m WHERE m.session = s.id AND {clause})
            ORDER BY {NEWEST_FIRST} LIMIT 1""",
        args,
    ).fetchone()
    return row[0] if row else None


def _since(db: sqlite3.Connection, newest: float | None) -> float | None:
    """The first time after `newest` a session ended: every session since is done."""
    if newest is None:
        return None
    sql = "SELECT min(ended_at) FROM sessions WHERE ended_at > ?"
    (since,) = db.execute(sql, (newest,)).fetchone()
    return float(since) if since is not None else None


def store(
    db: sqlite3.Connection,
    model: str,
    read: Mapping[int, str],
    done: Sequence[int],
    rows: Sequence[tuple[int, int, int, int]],
    vectors: npt.NDArray[np.float32],
) -> None:
    """Record chunks `(message, piece, start, end)` with their vectors; mark `done` embedded
    (a message read from its opening has a chunk and is not done).

    `read` holds each message's text as it was embedded. A message deleted since, or
    whose text changed (a redaction, an edit re-synced), is skipped: its vectors would
    be of a text it no longer holds, and the next run reads it afresh (the caller holds
    the write transaction).
    """
    alive = _unchanged(db, read)
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


def _unchanged(db: sqlite3.Connection, read: Mapping[int, str]) -> set[int]:
    """The messages of `read` that still hold the text read."""
    return {i for i, text in texts(db, sorted(read)) if text == read[i]}


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
    given chunks (the text lets search pass over vectors of texts no longer embedded);
    the opening of a message since embedded whole is left out, as if deleted."""
    out: dict[int, tuple[Any, ...]] = {}
    for i in range(0, len(ids), 500):
        part = list(ids[i : i + 500])
        marks = ",".join("?" * len(part))
        for row in db.execute(
            f"""SELECT c.id, m.session, m.id, m.position, c.start, c.end,
                       substr(m.text, c.start + 1, c.end - c.start)
                FROM chunks c CROSS JOIN messages m ON m.id = c.message WHERE c.id IN ({marks})
                AND (c.piece != {OPENING} OR NOT EXISTS (
                    SELECT 1 FROM embedded e WHERE e.model = c.model AND e.message = c.message))""",
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
