"""Merging ranked lists: reciprocal-rank fusion, weighted normalised scores, time decay, dedup.

Pure functions over `Result` lists, keyed by (computer, agent, session id),
with no numpy: they run on every hybrid search and are tested on known
inputs. Near-duplicates are dropped by the core's Jaccard dedup
(`recall._accel.dedup`, Rust or its Python twin).
"""

from __future__ import annotations

import math
import time

from recall import _accel
from recall.record import replace
from recall.search.bar import combined
from recall.search.rank import DEDUP_THRESHOLD
from recall.search.results import Result, plain
from recall.timeutil import parse_iso

RRF_K = 60
"""The constant of Cormack et al. (2009): ranks past ~60 count for little."""
RRF_WEIGHTS = (1.0, 1.0)
"""Each list's weight in RRF (keyword, semantic): equal, as measured best on both sets."""
PROSE_WEIGHTS = (1.0, 1.0)
"""RRF weights (keyword, semantic) when no keyword hit holds every query word, as a prose
question without the session's words: equal until a lighter keyword weight is measured
better on every set (docs/search-quality.md, "The paraphrase set")."""
EXACT_BONUS = 1.0
"""Added to the fused score of a result holding every query word: RRF scores stay below
2/(RRF_K+1) and weighted ones at most 1, so shown scores fall down the list."""
PRESETS = {
    "rrf": None,
    "weighted": (0.4, 0.6),
    "0.4/0.6": (0.4, 0.6),  # Shelley: 0.4 FTS + 0.6 vector
    "0.3/0.7": (0.3, 0.7),  # OneClaw: 0.3 BM25 + 0.7 vector
}


Key = tuple[str, str, str, int | None]


def key(r: Result, by_message: bool = False) -> Key:
    """What one result stands for: a session, or (`by_message`) one of its messages."""
    return (r.computer, r.agent, r.session_id, r.message_index if by_message else None)


def rrf(
    lists: list[list[Result]], weights: list[float] | None = None, by_message: bool = False
) -> dict[Key, float]:
    scores: dict[Key, float] = {}
    for n, results in enumerate(lists):
        w = weights[n] if weights else 1.0
        for rank, r in enumerate(results):
            k = key(r, by_message)
            scores[k] = scores.get(k, 0.0) + w / (RRF_K + rank + 1)
    return scores


def weighted(
    lists: list[list[Result]], weights: tuple[float, ...], by_message: bool = False
) -> dict[Key, float]:
    """Min-max normalise each list's scores to [0, 1], then sum with `weights`."""
    scores: dict[Key, float] = {}
    for w, results in zip(weights, lists, strict=True):
        if not results:
            continue
        hi = max(r.score for r in results)
        lo = min(r.score for r in results)
        span = hi - lo
        for r in results:
            norm = (r.score - lo) / span if span > 0 else 1.0
            k = key(r, by_message)
            scores[k] = scores.get(k, 0.0) + w * norm
    return scores


def decay_factor(date: str | None, lam: float, now: float | None = None) -> float:
    """exp(-λ·age_days): 1 today, 0.5 after ln2/λ days; undated results are not decayed."""
    if lam <= 0 or not date:
        return 1.0
    ts = parse_iso(date)
    if ts is None:
        return 1.0
    age_days = max(0.0, ((now or time.time()) - ts) / 86400.0)
    return math.exp(-lam * age_days)


def fuse(
    lists: list[list[Result]],
    fusion: str,
    limit: int,
    decay: float = 0.0,
    by_message: bool = False,
    exact: int = 0,
    unseen: set[Key] | None = None,
) -> list[Result]:
    """One ranking from several: the first list's copy of a result (its snippet) wins.

    The first `exact` results of the first list (the keyword hits holding every
    query word, or the quoted phrase) rank above every other result, in fused
    order; their score gets `EXACT_BONUS` so that scores still fall down the list.

    `unseen`: results the other lists could not have held (a session not embedded
    yet, while the index is embedded newest first). Their first-list score is scaled
    by all the weights over the first list's, as if the missing lists ranked them
    alike: a result is not pushed down for lacking a vector, only for its own rank.
    """
    preset = PRESETS[fusion]
    weights = list(RRF_WEIGHTS[: len(lists)]) if preset is None else list(preset)
    if preset is None:
        chosen = PROSE_WEIGHTS if exact == 0 and len(lists) > 1 else RRF_WEIGHTS
        weights = list(chosen[: len(lists)])
        scores = rrf(lists, weights, by_message)
    else:
        scores = weighted(lists, preset, by_message)
    if unseen and len(lists) > 1:
        scale = sum(weights[: len(lists)]) / weights[0]
        for k in unseen & scores.keys():
            scores[k] *= scale
    first: dict[Key, Result] = {}
    judged: dict[Key, list[tuple[str, float]]] = {}
    for results in lists:
        for r in results:
            k = key(r, by_message)
            first.setdefault(k, r)
            judged.setdefault(k, []).append((r.matched, r.relevance))
    pinned = {key(r, by_message) for r in lists[0][:exact]} if lists else set()
    ranked = []
    for k, score in scores.items():
        r = first[k]
        final = score * decay_factor(r.date, decay) + (EXACT_BONUS if k in pinned else 0.0)
        matched, relevance = combined(judged[k])
        ranked.append(
            replace(
                r,
                score=float(f"{final:.6g}"),
                matched=matched,
                relevance=relevance,
                weak=relevance < 1.0,
            )
        )
    ranked.sort(key=lambda r: (key(r, by_message) in pinned, r.score), reverse=True)
    ranked = ranked[: limit * 3]
    keep = _accel.dedup([plain(r.snippet) for r in ranked], DEDUP_THRESHOLD)
    return [ranked[i] for i in keep][:limit]
