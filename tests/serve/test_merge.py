"""Merging computers' rankings: ranks and the pool's BM25, fused; ties to the newer result."""

from __future__ import annotations

from recall.peers.merge import merge
from recall.search.results import Result


def _r(computer: str, sid: str, text: str, date: str, score: float = 1.0) -> Result:
    return Result(sid, "claude", None, computer, text, date, score, text)


def test_equal_ranks_go_to_the_newer_result_and_scores_descend() -> None:
    a = [_r("a", "a1", "alpha", "2026-01-01"), _r("a", "a2", "alpha", "2026-01-02")]
    b = [_r("b", "b1", "alpha", "2026-03-01"), _r("b", "b2", "alpha", "2026-01-03")]
    got = merge("alpha", [a, b], 10, "rrf")
    assert [r.session_id for r in got] == ["b1", "a1", "b2", "a2"]
    assert [r.score for r in got] == sorted((r.score for r in got), reverse=True)


def test_the_fused_merge_puts_a_strong_match_above_an_equal_rank_elsewhere() -> None:
    # both computers rank two hits; desk's second is the real answer, laptop's second is noise
    laptop = [_r("laptop", "l1", "notes", "2026-01-01"), _r("laptop", "l2", "misc", "2026-01-01")]
    desk = [
        _r("desk", "d1", "kafka", "2026-01-01"),
        _r("desk", "d2", "kafka retry budget decided", "2026-01-01"),
    ]
    by_rank = [
        r.session_id for r in merge("kafka retry budget", [list(laptop), list(desk)], 4, "rrf")
    ]
    fused = [r.session_id for r in merge("kafka retry budget", [list(laptop), list(desk)], 4)]
    assert by_rank.index("d2") > by_rank.index("l2")  # ranks alone: computer order decides
    assert fused.index("d2") < fused.index("l2")  # the pool's BM25 breaks the tie
    assert sorted(fused) == ["d1", "d2", "l1", "l2"]


def test_one_list_and_the_limit() -> None:
    only = [_r("a", f"a{i}", "x", "2026-01-01", 5 - i) for i in range(5)]
    assert merge("x", [only], 3) == only[:3]
    assert merge("x", [[], []], 3) == []
    assert len(merge("x", [only[:2], only[2:]], 3)) == 3
