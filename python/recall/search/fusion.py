"""Merging ranked lists: hybrid's legs added (`scored`), reciprocal-rank fusion, weighted
normalised scores, time decay, dedup.

Pure functions over `Result` lists, keyed by (computer, agent, session id),
with no numpy: they run on every hybrid search and are tested on known
inputs. Hybrid's two legs are fused by what each made of a hit (`leg_score`,
`SCORED`). `reciprocal` and `rrf_scores` are the one reciprocal-rank formula
every other merge uses (a memory's two lists and the sources' merge in
`search.sources`, a message's two ranks in `search.keyword`, the computers'
lists in `peers.merge`, the team index's candidates in SQL). Near-duplicates are
dropped by the core's Jaccard dedup (`recall._accel.dedup`, Rust or its Python twin).
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
"""Without `SCORED` (`--variant rrf:scored=0` in the evaluations): whether hybrid scales
each hit's reciprocal rank by its own strength (`hit_strength`): a meaning hit that
stands out from the query's background, or a keyword hit holding the query's rare
words, counts for more than one near the background at a similar rank. Plain
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
SCORED = True
"""Whether hybrid adds its two legs' judgements rather than their reciprocal ranks: a
keyword hit counts its strength (the share of the query's rarity it holds) discounted
by its rank, `KEYWORD_K / (KEYWORD_K + rank)`, and a meaning hit `MEANING_SHARE` times
its relevance (its deviations above the query's background over `LIFT`, up to
`MEANING_CAP`), so a hit that stands out counts for more than one just at the bar. Ranks at k = 60
hardly tell the first keyword hit from the tenth; on LoCoMo's multi-hop questions the
second and third evidence sessions sit there. Measured through the entry at default
flags (docs/search-quality.md, "Adding the legs' judgements"): LoCoMo dev half
session recall@5 0.793 -> 0.809 (multi-hop 0.352 -> 0.408), turn recall@5 0.558 ->
0.563; LongMemEval dev message recall@1 0.244 -> 0.310, @10 0.837 -> 0.840; agent
decisions message recall@1 0.28 -> 0.24; paraphrase top 1 stays 1.000."""
KEYWORD_K = 10.0
"""A keyword hit's rank discount (`SCORED`): the 10th counts 0.53 of the first. 5 and 15
measured 0.808 on LoCoMo, 10 0.809; 5 cost LongMemEval message recall@10 (0.826)."""
MEANING_SHARE = 0.6
"""What a meaning hit at the bar adds (`SCORED`), against 1 for a keyword hit holding
every word at rank 1. 0.5-0.8 gave LoCoMo 0.803-0.809; 0.6 was best."""
MEANING_CAP = 1.5
"""The most a meaning hit's relevance counts for (`SCORED`): one that stands out 1.5
times the bar is as sure as one at 3 times, and the cap keeps every fused score under
`EXACT_BONUS`. Uncapped gave the same LoCoMo figures."""
SPEAKER_BONUS = 0.5
"""What hybrid's `--messages` adds to a keyword hit written by the side a question is about
(`search.speaker`), times how far the hit reaches toward the relevance bar: "what is my
gin-to-vermouth ratio?" asks what the user said, and the assistant's reply that repeats
it holds the same words and more of the topic. Only keyword hits get it, so a user's
message found by meaning alone is not lifted over the assistant's answer. Measured
through the entry (docs/search-quality.md, "Whose words a question is about"):
LongMemEval message recall@1 / @5 0.324 / 0.738 -> 0.428 / 0.773 (keyword 0.402 /
0.710); the agent decisions, and the same asked with "I" for "we", unchanged."""
MIN_STRENGTH = 0.05
"""The least a judged hit's reciprocal rank is scaled by in the calibrated fusion."""
EXACT_BONUS = 1.0
"""Added to the fused score of a result holding every query word: RRF scores stay below
2/(RRF_K+1) and weighted ones at most 1, so shown scores fall down the list."""
SCORED_BONUS = 2.0
"""`EXACT_BONUS` for hybrid's `SCORED` fusion, whose scores stay below 1 +
`MEANING_SHARE` x `MEANING_CAP` = 1.9 (2.4 with `SPEAKER_BONUS`), while an exact hit's own
is at least 0.5 (every word held, within the keyword list's 10): 2.5 and up with it."""
PRESETS = {
    "rrf": None,  # the default; with SCORED, hybrid's two legs are added, not ranked
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
    """Min-max normalise each list's scores to [0, 1], then sum with `weights` (a lone
    list, as semantic or keyword mode decays it, weighs 1)."""
    scores: dict[Key, float] = {}
    for w, results in zip(weights if len(lists) > 1 else (1.0,), lists, strict=True):
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


def leg_score(keyword: bool, matched: str, relevance: float, rank: int) -> float:
    """What one leg's hit at `rank` (from 0) adds to a hybrid result (`SCORED`); a hit
    nobody judged (a peer that predates the bar) counts as the leg's best would
    (every word held, or `MEANING_SHARE`), discounted by its rank."""
    discount = KEYWORD_K / (KEYWORD_K + rank)
    if not matched:
        return (1.0 if keyword else MEANING_SHARE) * discount
    if not keyword:
        return MEANING_SHARE * min(relevance, MEANING_CAP)
    return leg_strength(matched, relevance) * discount


def scored(
    lists: list[list[Result]], by_message: bool, unseen: set[Key], about: str | None = None
) -> dict[Key, float]:
    """Hybrid's two lists (keyword, meaning) fused by adding each hit's `leg_score`. A
    keyword hit the meaning leg could not have held (its session not embedded yet) gets
    what the meaning list gives its own hit at the same rank: ranked alike, not last.
    With `by_message`, a keyword hit whose role is `about` (`search.speaker`) gets
    `SPEAKER_BONUS` times how far it reaches toward the relevance bar (all of it at the
    bar): a user's message holding one common word of the question is not lifted over
    the assistant's answer."""
    scores: dict[Key, float] = {}
    words, meaning = lists
    for rank, r in enumerate(words):
        k = key(r, by_message)
        scores[k] = scores.get(k, 0.0) + leg_score(True, r.matched, r.relevance, rank)
        if k in unseen and meaning:
            like = meaning[min(rank, len(meaning) - 1)]
            scores[k] += leg_score(False, like.matched, like.relevance, rank)
    for rank, r in enumerate(meaning):
        k = key(r, by_message)
        scores[k] = scores.get(k, 0.0) + leg_score(False, r.matched, r.relevance, rank)
    if by_message and about:
        said = {key(r, True): min(1.0, r.relevance) for r in words if r.role == about}
        for k, toward_the_bar in said.items():
            scores[k] += SPEAKER_BONUS * toward_the_bar
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
    about: str | None = None,
) -> list[Result]:
    """One ranking from several: the first list's copy of a result (its snippet) wins.

    The first `exact` results of the first list (the keyword hits holding every
    query word, or the quoted phrase) rank above every other result, in fused
    order; their score gets `EXACT_BONUS` (`SCORED_BONUS` when hybrid's legs are added)
    so that scores still fall down the list.

    `unseen`: results the other lists could not have held (a session not embedded
    yet, while the index is embedded newest first). The missing lists count as if they
    ranked them alike (`scored`, or `_as_if_seen` for RRF; a weighted fusion scales
    their first-list score by all the weights over the first list's): a result is not
    pushed down for lacking a vector, only for its own rank.

    `about`: the role whose messages the question asks about (`search.speaker`), which
    hybrid's `--messages` favours (`SPEAKER_BONUS`).
    """
    preset = PRESETS[fusion]
    weights = list(RRF_WEIGHTS[: len(lists)]) if preset is None else list(preset)
    if preset is None and CALIBRATED and len(weights) > 1:
        weights[1] *= MEANING_WEIGHT
    bonus = EXACT_BONUS
    if preset is None and SCORED and len(lists) == 2:
        scores = scored(lists, by_message, unseen or set(), about)
        unseen, bonus = None, SCORED_BONUS
    elif preset is None:
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
        final = score * decay_factor(r.date, decay) + (bonus if k in pinned else 0.0)
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
