"""Merging ranked lists: reciprocal-rank fusion, weighted normalised scores, time decay, dedup.

Pure functions over `Result` lists, keyed by (computer, agent, session id),
with no numpy: they run on every hybrid search and are tested on known
inputs. `reciprocal` and `rrf_scores` are the one reciprocal-rank formula every
merge uses (hybrid's legs here, a memory's two lists and the sources' merge in
`search.sources`, a message's two ranks in `search.keyword`, the computers'
lists in `peers.merge`). Near-duplicates are dropped by the core's Jaccard dedup
(`recall._accel.dedup`, Rust or its Python twin).
"""

from __future__ import annotations

import math
import time
from collections.abc import Hashable, Sequence
from typing import TypeVar

from recall import _accel
from recall.record import replace
from recall.search.bar import COVERAGE, MEANING, combined
from recall.search.rank import DEDUP_THRESHOLD
from recall.search.results import Result, plain
from recall.timeutil import parse_iso

H = TypeVar("H", bound=Hashable)

RRF_K = 60
"""The constant of Cormack et al. (2009): ranks past ~60 count for little."""
RRF_WEIGHTS = (1.0, 1.0)
"""Each list's weight in RRF (keyword, semantic): equal, as measured best on both sets with
plain RRF; hybrid's calibrated fusion scales the semantic one by `MEANING_WEIGHT`."""
CALIBRATED = True
"""Whether hybrid scales each hit's reciprocal rank by its own strength (`hit_strength`):
a meaning hit that stands out from the query's background, or a keyword hit holding the
query's rare words, counts for more than one near the background at a similar rank. Plain
RRF counts a result both legs hold about twice whatever each thought of it, so one common
word held by chance beat the session that stood out by meaning (docs/search-quality.md,
"Fusion that weighs each hit")."""
MEANING_WEIGHT = 0.7
"""With `CALIBRATED`, the semantic list counts `MEANING_WEIGHT` times its `RRF_WEIGHTS`
weight. The two strengths are not on one scale: a keyword hit's is the share of the
query's rarity it holds, a meaning hit's its deviations above the index's background.
Where every chunk is near every question (LoCoMo's chats between two friends) meaning
hits sit at 0.6-0.9 of the bar and keyword hits holding the rare words at 0.3-0.6, so
at equal weights a weak meaning neighbour outranked an answer by words. 0.7 is the
lowest weight measured (0.5-1.0) that loses nothing elsewhere: LoCoMo dev half session
recall@5 0.772 -> 0.783 (keyword 0.782), turn recall@5 0.547 -> 0.567; agent decisions
message recall@1 0.24 -> 0.28; paraphrase top 1 stays 1.000; at 0.65 and below agent
decisions' top 1 falls 0.94 -> 0.92 (docs/search-quality.md, "A lighter meaning leg")."""
MIN_STRENGTH = 0.05
"""The least a judged hit's reciprocal rank is scaled by in the calibrated fusion."""
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


def reciprocal(rank: int, weight: float = 1.0) -> float:
    """What a list says of its result at `rank` (counted from 1): `weight / (RRF_K + rank)`."""
    return weight / (RRF_K + rank)


def rrf_scores(
    rankings: Sequence[Sequence[H]],
    weights: Sequence[float] | None = None,
    scales: Sequence[Sequence[float]] | None = None,
) -> dict[H, float]:
    """Each item's reciprocal ranks summed over `rankings` (best first), the n-th ranking's
    weighted by `weights[n]` and, with `scales`, each entry by its own scale."""
    scores: dict[H, float] = {}
    for n, ranking in enumerate(rankings):
        w = weights[n] if weights else 1.0
        for rank, item in enumerate(ranking):
            scale = scales[n][rank] if scales else 1.0
            scores[item] = scores.get(item, 0.0) + reciprocal(rank + 1, w * scale)
    return scores


def rrf(
    lists: list[list[Result]], weights: list[float] | None = None, by_message: bool = False
) -> dict[Key, float]:
    """`rrf_scores` of result lists by `key`; with `CALIBRATED` and several lists, each
    hit's reciprocal rank scaled by its own strength (`hit_strength`, at least
    `MIN_STRENGTH`)."""
    scales = None
    if CALIBRATED and len(lists) > 1:
        scales = [[max(hit_strength(r), MIN_STRENGTH) for r in results] for results in lists]
    rankings = [[key(r, by_message) for r in results] for results in lists]
    return rrf_scores(rankings, weights, scales)


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


def hit_strength(r: Result) -> float:
    """How well one hit matched, in [0, 1]: for words, the IDF share of the query it holds
    (1: every word); for meaning, its deviations above the query's background over LIFT,
    capped at the bar; 1 for a hit nobody judged (a peer that predates the bar)."""
    return leg_strength(r.matched, r.relevance) if r.matched else 1.0


def leg_strength(matched: str, relevance: float) -> float:
    """`hit_strength` of one leg's judgement (`matched`, `relevance`: `search.bar`)."""
    if matched == MEANING:
        return min(1.0, relevance)
    return min(1.0, relevance * COVERAGE)


def decay_factor(date: str | None, lam: float, now: float | None = None) -> float:
    """exp(-λ·age_days): 1 today, 0.5 after ln2/λ days; undated results are not decayed."""
    if lam <= 0 or not date:
        return 1.0
    ts = parse_iso(date)
    if ts is None:
        return 1.0
    age_days = max(0.0, ((now or time.time()) - ts) / 86400.0)
    return math.exp(-lam * age_days)


def _as_if_seen(
    scores: dict[Key, float],
    lists: list[list[Result]],
    weights: list[float],
    unseen: set[Key],
    by_message: bool,
) -> None:
    """Give each `unseen` first-list hit what every other list gives its own hit at the
    same rank (that hit's strength; the hit's own when the list is empty): ranked alike,
    not last, for lacking a vector."""
    for rank, r in enumerate(lists[0]):
        k = key(r, by_message)
        if k not in unseen:
            continue
        for n, other in enumerate(lists[1:], start=1):
            like = other[min(rank, len(other) - 1)] if other else r
            scores[k] += reciprocal(rank + 1, weights[n] * max(hit_strength(like), MIN_STRENGTH))


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
    yet, while the index is embedded newest first). The missing lists count as if they
    ranked them alike (`_as_if_seen`; a weighted fusion scales their first-list score by
    all the weights over the first list's): a result is not pushed down for lacking a
    vector, only for its own rank.
    """
    preset = PRESETS[fusion]
    weights = list(RRF_WEIGHTS[: len(lists)]) if preset is None else list(preset)
    if preset is None and CALIBRATED and len(weights) > 1:
        weights[1] *= MEANING_WEIGHT
    if preset is None:
        scores = rrf(lists, weights, by_message)
    else:
        scores = weighted(lists, preset, by_message)
    if unseen and len(lists) > 1 and preset is None and CALIBRATED:
        _as_if_seen(scores, lists, weights, unseen, by_message)
    elif unseen and len(lists) > 1:
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
