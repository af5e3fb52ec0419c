"""`recall search --mode keyword|semantic|hybrid`: pick the mode, degrade, never fail.

Hybrid is the default when the configured model has vectors. Without a
model, without vectors, or with `embedding = "none"`, every mode answers
with keyword results and one note saying why semantic search is off. This
module imports nothing heavy itself: a keyword search never loads numpy.
"""

from __future__ import annotations

import sqlite3
from typing import TYPE_CHECKING

from recall.record import Record
from recall.search import Filters, Result, SearchOutput, search
from recall.semantic import ModelError
from recall.semantic.fusion import PRESETS, fuse

if TYPE_CHECKING:
    from recall.semantic.provider import Encoder

MODES = ("keyword", "semantic", "hybrid")
FUSIONS = tuple(PRESETS)


class Outcome(Record):
    output: SearchOutput
    mode: str
    """The mode that actually ran."""
    note: str | None = None
    """Why semantic search was off, for stderr."""


def keyword_search(
    db: sqlite3.Connection, query: str, filters: Filters, limit: int
) -> list[Result]:
    """Keyword results; words that match nothing are retried as their nearest indexed term."""
    from recall.typo import correct

    out = search(db, query, filters, limit)
    if out.found >= limit:
        return out.results
    fixed = correct(db, query)
    if fixed is None:
        return out.results
    seen = {(r.agent, r.session_id) for r in out.results}
    extra = [
        r for r in search(db, fixed, filters, limit).results if (r.agent, r.session_id) not in seen
    ]
    return (out.results + extra)[:limit]


def _vectors_exist(db: sqlite3.Connection, model: str) -> bool:
    try:
        return (
            db.execute("SELECT 1 FROM chunks WHERE model = ? LIMIT 1", (model,)).fetchone()
            is not None
        )
    except sqlite3.OperationalError:
        return False


def run(
    db: sqlite3.Connection,
    query: str,
    filters: Filters,
    limit: int,
    mode: str | None = None,
    fusion: str = "rrf",
    decay: float = 0.0,
) -> Outcome:
    """Search in `mode` (None: hybrid when vectors exist, else keyword)."""
    from recall.textutil import scrub

    query = scrub(query)  # a non-UTF-8 argv brings lone surrogates, which no index can take
    from recall.semantic.provider import current_model_id, get_encoder

    note = None
    encoder = None
    if mode != "keyword":
        try:  # find the model id before loading the model: loading costs ~0.5 s
            if not _vectors_exist(db, current_model_id()):
                note = "semantic search is off: nothing is embedded yet (run `recall embed`)"
            else:
                encoder = get_encoder()
        except ModelError as exc:
            note = f"semantic search is off: {exc}"
    if encoder is None:
        results = keyword_search(db, query, filters, limit)
        if decay > 0:
            results = fuse([results], fusion, limit, decay)
        return Outcome(SearchOutput(query, len(results), results), "keyword", note)
    from recall.semantic.nearest import semantic_search

    window = max(limit * 3, 30)
    if mode == "semantic":
        semantic = semantic_search(db, encoder, query, filters, window)
        results = fuse([semantic], "weighted", limit, decay) if decay > 0 else semantic[:limit]
        return Outcome(SearchOutput(query, len(results), results), "semantic")
    keyword, semantic = _both(db, encoder, query, filters, limit)
    results = fuse([keyword, semantic], fusion, limit, decay)
    return Outcome(SearchOutput(query, len(results), results), "hybrid")


def _both(
    db: sqlite3.Connection, encoder: Encoder, query: str, filters: Filters, limit: int
) -> tuple[list[Result], list[Result]]:
    """The keyword and the semantic ranking to fuse.

    The keyword list is cut at twice the results wanted: its cost grows with
    depth (BM25 over more rows, more texts read for dedup); on LongMemEval a
    list as long as the results cost 0.011 of hybrid recall_all@5 and a
    30-deep one gained as much (docs/semantic.md). The semantic list is
    deeper because it is cheap. Running the two legs on two threads was measured and gained
    nothing on two cores (onnxruntime already uses both), so they run in turn.
    """
    from recall.semantic.nearest import semantic_search

    keyword = keyword_search(db, query, filters, max(limit, 10) * 2)
    return keyword, semantic_search(db, encoder, query, filters, max(limit * 3, 30))
