"""One ranking from several computers' rankings.

Scores from different indexes are not comparable (BM25 depends on each
index's statistics; hybrid scores are fused ranks), so the lists are merged
by reciprocal-rank fusion over each computer's ranks: 1/(K + rank), ties
(equal ranks on different computers) broken by date, newest first. The
alternative, re-scoring every candidate's title and snippet with the core's
BM25 against the query, was measured against it (bench/merge_eval.py,
docs/serve.md) and is kept as `bm25` for that comparison.
"""

from __future__ import annotations

from recall import _accel
from recall.search.results import Result, plain

K = 60
METHODS = ("rrf", "bm25")


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
    ranked = sorted(zip(scores, pool, strict=True), key=lambda t: (t[0], _date_key(t[1])), reverse=True)
    out = []
    for score, r in ranked[:limit]:
        r.score = round(float(score), 6)
        out.append(r)
    return out


def merge(query: str, lists: list[list[Result]], limit: int, method: str = "rrf") -> list[Result]:
    """The best `limit` of all lists, each list ranked best first."""
    if len(lists) == 1:
        return lists[0][:limit]
    return bm25(query, lists, limit) if method == "bm25" else rrf(lists, limit)
