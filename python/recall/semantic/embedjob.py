"""`recall embed`: embed what is not embedded yet, resumably, then refresh the HNSW index.

Embedding runs outside every write transaction; each batch of messages is
committed on its own, so an interrupted run keeps what it finished and the
next run starts after it. Hooks never call this: `sync`, the daemon and the
user do.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from recall.record import Record
from recall.semantic import index, vectors
from recall.semantic.meaning import worth_embedding

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    from recall.semantic.cache import VectorCache
    from recall.semantic.provider import Encoder
    from recall.store.db import Store

BATCH_MESSAGES = 128

Progress = Callable[[int, int], None]


class EmbedReport(Record):
    model: str
    messages: int = 0
    chunks: int = 0
    cached: int = 0
    indexed: int = 0
    seconds: float = 0.0


def embed_pending(
    store: Store,
    encoder: Encoder,
    roles: Sequence[str],
    progress: Progress | None = None,
    cache: VectorCache | None = None,
    limit: int | None = None,
) -> EmbedReport:
    """Embed every message of `roles` that `encoder`'s model has not seen; refresh the index."""
    started = time.perf_counter()
    model = encoder.model_id
    report = EmbedReport(model=model)
    total = vectors.count_pending(store.conn, model, roles)
    if limit is not None:
        total = min(total, limit)
    after = 0
    while report.messages < total:
        want = min(BATCH_MESSAGES, total - report.messages)
        batch = vectors.pending(store.conn, model, roles, after, want)
        if not batch:
            break
        after = batch[-1][0]
        rows: list[tuple[int, int, int, int]] = []
        texts: list[str] = []
        for msg, text in batch:
            if not worth_embedding(text):  # "ok", "." (meaning.py); marked done, no vector
                continue
            for piece, (start, end) in enumerate(encoder.split(text)):
                if worth_embedding(text[start:end]):  # a last piece may be only "``"
                    rows.append((msg, piece, start, end))
                    texts.append(text[start:end])
        vecs, hits = _embed(encoder, texts, cache)
        with store.transaction() as db:
            vectors.store(db, model, [m for m, _ in batch], rows, vecs)
        report.messages += len(batch)
        report.chunks += len(rows)
        report.cached += hits
        if progress:
            progress(report.messages, total)
    if report.chunks or vectors.stats(store.conn, model).chunks:
        report.indexed = index.build(store.conn, model, _dims(encoder, store, model))
    report.seconds = time.perf_counter() - started
    return report


def _dims(encoder: Encoder, store: Store, model: str) -> int:
    if encoder.dims:
        return encoder.dims
    row = store.conn.execute("SELECT length(vector) FROM chunks WHERE model = ? LIMIT 1", (model,))
    found = row.fetchone()
    return int(found[0]) // 4 if found else 0


def _embed(
    encoder: Encoder, texts: list[str], cache: VectorCache | None
) -> tuple[npt.NDArray[np.float32], int]:
    import numpy as np

    if cache is None:
        return encoder.embed(texts), 0
    keys = [cache.key(encoder.model_id, t) for t in texts]
    known = cache.get(keys)
    todo = sorted({i for i, k in enumerate(keys) if k not in known})
    new: dict[str, npt.NDArray[np.float32]] = {}
    if todo:
        fresh = encoder.embed([texts[i] for i in todo])
        new = {keys[i]: fresh[n] for n, i in enumerate(todo)}
        cache.put(new)
    rows = [known[k] if k in known else new[k] for k in keys]
    out = np.stack(rows) if rows else np.zeros((0, encoder.dims), dtype=np.float32)
    return out.astype(np.float32), len(texts) - len(todo)
