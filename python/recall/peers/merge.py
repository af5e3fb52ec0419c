"""One ranking from several computers' rankings.

Scores from different indexes are not comparable (BM25 depends on each
index's statistics; hybrid scores are fused ranks). Two fair signals remain:
each computer's own ranks, and the core's BM25 over every candidate's title
and snippet, computed on the merged pool. Alone, ranks interleave the
computers blindly and BM25 sees only snippets; fused by reciprocal rank
(`both`, the default) they came within 0.055 of one index holding every
session on LongMemEval split across three computers (two splits, keyword and
hybrid search), where either alone lost 0.09–0.23 of ndcg_any@5
(bench/merge_eval.py; figures in docs/serve.md).
Ties go to the newer result.
"""

from __future__ import annotations

import functools
import operator

from recall import _accel
from recall.search.results import Result, plain

K = 60
METHODS = ("both", "rrf", "bm25")


def _date_key(r: Result) -> str:
    return r.date or ""


def rrf(lists: list[list[Result]], limit: int) -> list[Result]:
    scored: list[tuple[float, str, int, Result]] = []
    for n, results in enumerate(lists):
        for rank, r in enumerate(results, 1):
            scored.append((1.0 / (K + rank), _date_key(r), -n, r))
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


def merge(query: str, lists: list[list[Result]], limit: int, method: str = "both") -> list[Result]:
    """The best `limit` of all lists, each list ranked best first."""
    if len(lists) == 1:
        return lists[0][:limit]
    if method == "both":
        return both(query, lists, limit)
    return bm25(query, lists, limit) if method == "bm25" else rrf(lists, limit)
