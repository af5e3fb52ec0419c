"""One ranking from several computers' rankings, each computer's own order kept.

Scores from different indexes are not comparable (BM25 depends on each
index's statistics; hybrid scores are fused ranks). So results are merged as
`recall search` merges its sources (`search.sources.merge`): by how many of
the query's words a result's text holds (a tier that never rises down a
computer's list), then by rank, interleaving the computers; ties go to the
newer result. A computer's ranking is never reordered, and the first k merged
results come from each computer's first k, so a larger limit shows more of the
same ranking (issue 20). `rrf` (ranks alone), `bm25` (the pool re-scored) and
`both` (their fusion, which reorders a computer's list) remain for
bench/merge_eval.py's comparison (docs/serve.md).
"""

from __future__ import annotations

import functools
import operator

from recall import _accel
from recall.search.query import parse
from recall.search.results import Result, plain
from recall.search.sources import held

K = 60
METHODS = ("tiered", "both", "rrf", "bm25")


def _date_key(r: Result) -> str:
    return r.date or ""


def rrf(lists: list[list[Result]], limit: int, query: str | None = None) -> list[Result]:
    """Interleaved by rank (`1 / (K + rank)`); with `query`, first by the tier of words
    held (`search.sources.held`), so the score is `tier + 1 / (K + rank)`."""
    scored: list[tuple[float, str, int, Result]] = []
    parsed = parse(query) if query is not None else None
    for n, results in enumerate(lists):
        tiers = held(parsed, results) if parsed is not None else [0] * len(results)
        for rank, (r, tier) in enumerate(zip(results, tiers, strict=True), 1):
            scored.append((tier + 1.0 / (K + rank), _date_key(r), -n, r))
    scored.sort(key=lambda t: (t[0], t[1], t[2]), reverse=True)
    out = []
    for score, _, _, r in scored[:limit]:
        r.score = round(score, 6)
        out.append(r)
    return out


def bm25(query: str, lists: list[list[Result]], limit: int) -> list[Result]:
    pool = [r for results in lists for r in results]
    if not pool:
        return []
    docs = [f"{r.title or ''}\n{plain(r.snippet)}" for r in pool]
    scores = _accel.bm25_scores(query, docs)
    ranked = sorted(
        zip(scores, pool, strict=True), key=lambda t: (t[0], _date_key(t[1])), reverse=True
    )
    out = []
    for score, r in ranked[:limit]:
        r.score = round(float(score), 6)
        out.append(r)
    return out


def both(query: str, lists: list[list[Result]], limit: int) -> list[Result]:
    """Reciprocal-rank fusion of the two merges above: each computer's ranks and BM25's."""
    by_rank = rrf([list(rs) for rs in lists], len(functools.reduce(operator.iadd, lists, [])))
    rescored = bm25(query, [list(rs) for rs in lists], len(by_rank))
    key = {id(r): n for n, r in enumerate(by_rank)}
    fused: dict[int, float] = {}
    for ranking in (by_rank, rescored):
        for rank, r in enumerate(ranking, 1):
            fused[id(r)] = fused.get(id(r), 0.0) + 1.0 / (K + rank)
    pool = {id(r): r for r in by_rank}
    order = sorted(pool, key=lambda i: (-fused[i], key[i]))[:limit]
    out = []
    for i in order:
        pool[i].score = round(fused[i], 6)
        out.append(pool[i])
    return out


def merge(
    query: str, lists: list[list[Result]], limit: int, method: str = "tiered"
) -> list[Result]:
    """The best `limit` of all lists, each list ranked best first."""
    lists = [results for results in lists if results]
    if len(lists) <= 1:
        return lists[0][:limit] if lists else []
    if method == "tiered":
        return rrf(lists, limit, query)
    if method == "both":
        return both(query, lists, limit)
    return bm25(query, lists, limit) if method == "bm25" else rrf(lists, limit)
