"""Ranking where result lists meet: BM25 re-scoring of merged candidates, near-duplicate removal.

An FTS5 `bm25()` score depends on the index it came from (its document
count, its average length), so scores from different indexes — several
computers, memories, files, or a substring fallback that has no score at all —
cannot be compared. `merge` re-scores such a merged list against the query
with BM25 over the candidates' own texts (the candidates are the collection)
and drops near-duplicates; `distinct` drops near-duplicates from a list that
is already ranked, fetching texts lazily so a search reads only what it shows.
Both run on the active core (`recall._accel`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar

from recall import _accel

T = TypeVar("T")

DEDUP_THRESHOLD = 0.8
"""Jaccard similarity of word sets at or above which two results are one (README, "Searching")."""


def merge(
    words: str,
    candidates: Sequence[T],
    text: Callable[[T], str],
    *,
    limit: int | None = None,
    threshold: float = DEDUP_THRESHOLD,
) -> list[tuple[float, T]]:
    """Candidates from several indexes as one ranking: `(bm25, candidate)`, best first.

    Ties keep the input order. Of near-duplicates (by `text`) only the
    best-scored one stays. `words` are the query's positive terms (`Query.words`).
    """
    texts = [text(c) for c in candidates]
    order = bm25_order(words, texts)
    kept = _accel.dedup([texts[order[k][0]] for k in range(len(order))], threshold)
    ranked = [(order[k][1], candidates[order[k][0]]) for k in kept]
    return ranked if limit is None else ranked[:limit]


def bm25_order(words: str, texts: Sequence[str]) -> list[tuple[int, float]]:
    """`texts` re-scored with BM25 against `words`, the texts themselves the collection:
    `(index, score)` best first, ties in input order. The one re-scoring every merged
    list uses (`merge`, a message's passage rank, a computers' pool)."""
    scores = _accel.bm25_scores(words, list(texts))
    return sorted(((i, float(s)) for i, s in enumerate(scores)), key=lambda p: -p[1])


def distinct(
    rows: Sequence[T],
    texts_of: Callable[[Sequence[T]], list[str | None]],
    limit: int,
    threshold: float = DEDUP_THRESHOLD,
) -> list[T]:
    """The first `limit` rows, in order, that near-duplicate no earlier row kept.

    `texts_of` gives the text of each row of a batch (None: never a
    duplicate). Rows are read in batches of about twice `limit`, so texts are
    fetched only for rows that may be shown, plus what replaces duplicates.
    Dedup keeps first occurrences, so the texts kept so far followed by a new
    batch decide exactly as the whole prefix would.
    """
    out: list[T] = []
    kept: list[str] = []
    step = max(2 * limit, 20)
    pos = 0
    while len(out) < limit and pos < len(rows):
        batch = rows[pos : pos + step]
        pos += len(batch)
        texts = texts_of(batch)
        with_text = [i for i, t in enumerate(texts) if t is not None]
        new = [t for t in texts if t is not None]
        survivors = {
            with_text[k - len(kept)] for k in _accel.dedup(kept + new, threshold) if k >= len(kept)
        }
        for i, (row, t) in enumerate(zip(batch, texts, strict=True)):
            if t is None:
                out.append(row)
            elif i in survivors:
                out.append(row)
                kept.append(t)
    return out[:limit]
