"""Vectors of memories and file chunks, made at write time, searched exactly.

Memories and chunks are few and short, so they are embedded as they are
written (when a model is present) and `hybrid` finds a memory by meaning the
moment `remember` returns; they live in `source_vectors`, apart from the
messages' HNSW index, and are searched by an exact dot product (a few
thousand rows: under a millisecond of numpy). Without a model nothing is
embedded and nothing fails; `embed_pending` catches up later (`recall sync`).
Searching them is the search layer's (`search.modes.source_nearest`).
"""

from __future__ import annotations

import sqlite3
from typing import TYPE_CHECKING

from recall.log import log
from recall.store import Store

if TYPE_CHECKING:
    from recall.semantic.provider import Encoder

BATCH = 64


def _encoder(db: sqlite3.Connection) -> Encoder | None:
    """The encoder, loaded only when some memory or chunk lacks a vector: every `recall
    sync` reaches here, and loading the model costs far more than asking."""
    from recall.config import embedding_provider

    if embedding_provider() == "none":
        return None
    from recall.semantic import ModelError
    from recall.semantic.provider import current_model_id, get_encoder

    try:
        model = current_model_id()
        if not any(db.execute(sql, (model, 1)).fetchone() for sql in _PENDING.values()):
            return None
        return get_encoder()
    except ModelError:
        return None


_PENDING = {
    "memory": "SELECT m.id, m.text FROM memories m WHERE NOT EXISTS (SELECT 1 FROM"
    " source_vectors v WHERE v.kind = 'memory' AND v.ref = m.id AND v.model = ?) LIMIT ?",
    "chunk": "SELECT c.id, c.heading || char(10) || c.text FROM file_chunks c WHERE NOT EXISTS"
    " (SELECT 1 FROM source_vectors v WHERE v.kind = 'chunk' AND v.ref = c.id AND v.model = ?)"
    " LIMIT ?",
}


def embed_pending(store: Store, encoder: Encoder | None = None) -> int:
    """Embed every memory and chunk that has no vector for the current model; how many."""
    encoder = encoder or _encoder(store.conn)
    if encoder is None:
        return 0
    done = 0
    for kind, sql in _PENDING.items():
        while rows := store.conn.execute(sql, (encoder.model_id, BATCH)).fetchall():
            vectors = encoder.embed([text[: encoder.window * 8] for _, text in rows])
            with store.transaction() as db:
                alive = {
                    r[0]
                    for r in db.execute(
                        f"SELECT id FROM {'memories' if kind == 'memory' else 'file_chunks'}"
                        f" WHERE id IN ({','.join('?' * len(rows))})",
                        [r[0] for r in rows],
                    )
                }
                db.executemany(
                    "INSERT OR REPLACE INTO source_vectors(kind, ref, model, vector)"
                    " VALUES (?, ?, ?, ?)",
                    [
                        (kind, ref, encoder.model_id, vectors[n].astype("<f4").tobytes())
                        for n, (ref, _) in enumerate(rows)
                        if ref in alive
                    ],
                )
            done += len(rows)
            if len(rows) < BATCH:
                break
    return done


def embed_quietly(store: Store) -> None:
    """Embed what was just written, if a model is present; a failure is logged, never raised
    (the text is already stored and searchable by its words)."""
    try:
        embed_pending(store)
    except Exception as exc:  # an embedding failure must not undo a remember
        log(f"embedding memories: {type(exc).__name__}: {exc}")


def meaning_of(db: sqlite3.Connection, text: str) -> tuple[str, bytes] | None:
    """`text`'s vector (model id, float32 bytes) when a model is present and some memory
    has a vector of it to compare with; None otherwise (nothing to compare, no model)."""
    from recall.config import embedding_provider

    if embedding_provider() == "none":
        return None
    from recall.semantic import ModelError
    from recall.semantic.provider import current_model_id, get_encoder

    try:
        model = current_model_id()
        sql = "SELECT 1 FROM source_vectors WHERE kind = 'memory' AND model = ? LIMIT 1"
        if db.execute(sql, (model,)).fetchone() is None:
            return None
        encoder = get_encoder()
        return encoder.model_id, encoder.embed([text[: encoder.window * 8]])[0].astype(
            "<f4"
        ).tobytes()
    except ModelError:
        return None


def closest_memories(
    db: sqlite3.Connection, meaning: tuple[str, bytes], project: str | None, floor: float
) -> list[tuple[int, str, float]]:
    """The memories of `project` whose vectors (of the same model) are at cosine ≥ `floor`
    from `meaning`, closest first: (id, text, cosine)."""
    import numpy as np

    model, raw = meaning
    rows = db.execute(
        "SELECT m.id, m.text, v.vector FROM memories m JOIN source_vectors v"
        " ON v.kind = 'memory' AND v.ref = m.id AND v.model = ? WHERE m.project IS ?",
        (model, project),
    ).fetchall()
    if not rows:
        return []
    vector = np.frombuffer(raw, dtype="<f4")
    matrix = np.frombuffer(b"".join(r[2] for r in rows), dtype="<f4").reshape(len(rows), -1)
    if matrix.shape[1] != vector.shape[0]:
        return []
    sims = matrix @ vector
    order = [int(i) for i in np.argsort(-sims) if sims[i] >= floor]
    return [(int(rows[i][0]), str(rows[i][1]), float(sims[i])) for i in order]
