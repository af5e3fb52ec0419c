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
from recall.semantic import firstpass, index, vectors

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    from recall.semantic.cache import VectorCache
    from recall.semantic.provider import Encoder
    from recall.store.db import Store

BATCH_MESSAGES = 128
"""Messages read and committed together: an interrupted run loses at most one batch."""
PAGE_CACHE_KIB = 8192
"""SQLite's page cache while embedding. The store keeps 64 MiB for FTS5's segment merges,
which an embedding run never does; it reads each message once and writes vectors, so the
bigger cache only filled with pages read once (peak RSS of `recall embed` over 15,298
chunks: 330 -> 297 MB)."""
GROUP_CHARS = 16_000
"""Characters of chunk text handed to the encoder at once (~4,000 tokens, one or two
onnxruntime calls): progress is reported after each group."""
FIRST_GROUP_CHARS = 2_000
"""The run's first group is small, so a rate (and an ETA) is known within a second or two."""


class Tick(Record):
    """Where a run stands, for a progress line."""

    messages: int
    total: int
    chunks: int
    chars: int
    """Characters of message text embedded so far (the ETA's measure of work)."""
    total_chars: int
    seconds: float
    opening: int = 0
    """While the first pass over the month runs: the characters read from each message's
    opening (`firstpass.py`); 0 while messages are read whole."""


Progress = Callable[[Tick], None]


class EmbedReport(Record):
    model: str
    messages: int = 0
    chunks: int = 0
    cached: int = 0
    indexed: int = 0
    seconds: float = 0.0
    total: int = 0
    """Messages that were pending when the run started (within `limit`)."""
    interrupted: bool = False
    """Stopped by Ctrl-C: batches committed so far are kept, the index is not refreshed."""
    skimmed: int = 0
    """Messages of the newest month the first pass read from their opening."""
    opening: int = 0
    """Characters the first pass read from each opening (0: no first pass ran)."""


def embed_pending(
    store: Store,
    encoder: Encoder,
    roles: Sequence[str],
    progress: Progress | None = None,
    cache: VectorCache | None = None,
    limit: int | None = None,
) -> EmbedReport:
    """Embed every message of `roles` that `encoder`'s model has not seen, the newest
    sessions first (`vectors.pending_batches`); refresh the index.

    After the first batch, when its rate says the newest month would not be
    embedded within `firstpass.SECONDS`, the month is first read from each
    message's opening (`firstpass.py`); a run with a `limit` reads whole only.
    Ctrl-C (KeyboardInterrupt) ends the run between or inside batches: what was
    committed stays, the batch under way is rolled back, and the report says so.
    """
    started = time.perf_counter()
    model = encoder.model_id
    report = EmbedReport(model=model)
    total, chars = vectors.pending_size(store.conn, model, roles, limit)
    report.total = total
    run = _Run(encoder, cache, progress, Tick(0, total, 0, 0, chars, 0.0))
    run.report()
    (kept,) = store.conn.execute("PRAGMA cache_size").fetchone()
    store.conn.execute(f"PRAGMA cache_size=-{PAGE_CACHE_KIB}")
    try:
        planned = limit is not None
        for batch in vectors.pending_batches(store.conn, model, roles, BATCH_MESSAGES):
            batch = batch[: total - report.messages]
            if not batch:
                break
            rows = [row for msg, text in batch for row in firstpass.pieces(encoder, msg, text)]
            read = dict(batch)
            texts = [read[msg][start:end] for msg, _, start, end in rows]
            skipped = sum(len(t) for _, t in batch) - sum(len(t) for t in texts)
            vecs, hits = run.embed(texts)
            with store.transaction() as db:
                vectors.store(db, model, read, list(read), rows, vecs)
            report.messages += len(batch)
            report.chunks += len(rows)
            report.cached += hits
            run.tick.messages = report.messages
            run.advance(0, max(0, skipped))
            if not planned:
                planned = True
                _first_pass(store, run, roles, report, time.perf_counter() - started)
        settle_openings(store, model, roles)
        if report.chunks or vectors.stats(store.conn, model).chunks:
            report.indexed = index.build(store.conn, model, stored_dims(encoder, store, model))
    except KeyboardInterrupt:  # an index build stopped half-way leaves the old one in place
        report.interrupted = True
    finally:
        store.conn.execute(f"PRAGMA cache_size={int(kept)}")
    report.seconds = time.perf_counter() - started
    return report


class _Run:
    """The encoder, the cache, the progress line and the encoder's measured rate."""

    def __init__(
        self, encoder: Encoder, cache: VectorCache | None, progress: Progress | None, tick: Tick
    ) -> None:
        self.encoder, self.cache, self.progress, self.tick = encoder, cache, progress, tick
        self.clock = time.perf_counter()
        self.busy = 0.0
        """Seconds spent in the encoder (not in commits, nor waiting in `progress`)."""
        self.read = 0
        """Characters the encoder embedded in those seconds."""

    def report(self) -> None:
        if self.progress:
            self.progress(self.tick)

    def advance(self, chunks: int, chars: int) -> None:
        self.tick.chunks += chunks
        self.tick.chars += chars
        self.tick.seconds = time.perf_counter() - self.clock
        self.report()

    def restart(self, tick: Tick) -> None:
        """Report `tick` from now on (a new pass: its own counts, rate and ETA)."""
        self.tick, self.clock = tick, time.perf_counter()
        self.report()

    def rate(self) -> float:
        """Characters a second the encoder has embedded so far."""
        return self.read / self.busy if self.busy > 0 else 0.0

    def embed(self, texts: list[str]) -> tuple[npt.NDArray[np.float32], int]:
        return _embed_groups(self, texts, self.tick.chunks == 0)


def _first_pass(
    store: Store, run: _Run, roles: Sequence[str], report: EmbedReport, elapsed: float
) -> None:
    """Read the newest month from each message's opening, if it would not be embedded
    whole in time (`firstpass.plan`); then report the whole pass afresh."""
    left = firstpass.SECONDS - elapsed
    plan = firstpass.plan(store, run.encoder.model_id, roles, run.rate(), left)
    if plan is None:
        return
    run.restart(Tick(0, len(plan.messages), 0, 0, plan.chars, 0.0, opening=plan.cut))
    report.opening = plan.cut

    def committed(messages: int, whole: int, chunks: int) -> None:
        report.skimmed += messages - whole
        report.messages += whole
        report.chunks += chunks  # of the messages read whole: openings go once all are
        run.tick.messages += messages
        run.report()

    firstpass.run(store, run.encoder, plan, run.embed, BATCH_MESSAGES, committed)
    total, chars = vectors.pending_size(store.conn, run.encoder.model_id, roles)
    report.total = report.messages + total
    run.restart(Tick(report.messages, report.total, 0, 0, chars, 0.0))


def _embed_groups(run: _Run, texts: list[str], first: bool) -> tuple[npt.NDArray[np.float32], int]:
    """Vectors for `texts`, embedded shortest first in groups of about GROUP_CHARS
    (similar lengths batch with little padding), reporting after each group."""
    import numpy as np

    order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
    parts: list[tuple[list[int], npt.NDArray[np.float32]]] = []
    hits = 0
    group: list[int] = []
    size = 0
    budget = FIRST_GROUP_CHARS if first else GROUP_CHARS
    for n, i in enumerate(order):
        group.append(i)
        size += len(texts[i])
        if size >= budget or n == len(order) - 1:
            began = time.perf_counter()
            vecs, found = _embed(run.encoder, [texts[j] for j in group], run.cache)
            run.busy += time.perf_counter() - began
            run.read += size
            parts.append((group, vecs))
            hits += found
            run.advance(len(group), size)
            group, size, budget = [], 0, GROUP_CHARS
    dims = parts[0][1].shape[1] if parts else run.encoder.dims  # an endpoint's: known once used
    out = np.zeros((len(texts), dims), dtype=np.float32)
    for rows, vecs in parts:
        out[rows] = vecs
    return out, hits


def settle_openings(store: Store, model: str, roles: Sequence[str]) -> bool:
    """Delete the first pass's openings once every message is read whole; whether any
    went. Deleting chunks makes the next index update a rebuild, so it waits until
    then (search already leaves out the opening of a message read whole)."""
    if not vectors.has_openings(store.conn, model):
        return False
    if vectors.pending_size(store.conn, model, roles)[0]:
        return False
    with store.transaction() as db:
        return vectors.drop_read_openings(db, model) > 0


def stored_dims(encoder: Encoder | None, store: Store, model: str) -> int:
    """The model's vector size: the encoder's, else that of the vectors stored (an
    endpoint's is known only once it has answered)."""
    if encoder is not None and encoder.dims:
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
