"""Hybrid's fusion weighs each hit by how well it matched, not by its rank alone (issue 22).

Plain reciprocal-rank fusion counts a result found by both legs about twice,
whatever each leg thought of it: a session holding one common word of a prose
question (keyword) and sitting third by meaning beat the session that stood out
by meaning first. Each hit's reciprocal rank is now scaled by its own strength
(`fusion.hit_strength`), so that tie goes to the strong match, while a hit
holding every query word keeps the weight it had.
"""

from __future__ import annotations

from recall.search import bar
from recall.search.fusion import fuse, hit_strength, rrf
from recall.search.results import Result


def _r(session: str, matched: str, relevance: float) -> Result:
    return Result(
        session, "a", None, "pc", None, None, 1.0, f"text of {session}", "session", None,
        matched, relevance, relevance < 1.0,
    )  # fmt: skip


def _words(session: str, share: float) -> Result:
    return _r(session, bar.EVERY if share >= 1 else bar.SOME, bar.words_relevance(share))


def test_a_standout_meaning_hit_is_not_dragged_down_by_a_chance_keyword_match() -> None:
    # "a shipped artifact did not match the code we meant to ship": the keyword leg holds
    # "match" and "code" in three unrelated sessions; the answer stands out by meaning
    keyword = [_words("edge_cases", 0.09), _words("other", 0.09), _words("third", 0.05)]
    meaning = [_r("answer", bar.MEANING, 0.73), _r("x12", bar.MEANING, 0.42)]
    meaning.append(_r("edge_cases", bar.MEANING, 0.35))
    out = fuse([keyword, meaning], "rrf", limit=5)
    assert out[0].session_id == "answer"
    assert out[0].matched == bar.MEANING


def test_a_hit_holding_every_word_keeps_its_place_above_a_weak_meaning_neighbour() -> None:
    keyword = [_words("exact", 1.0), _words("partial", 0.5)]
    meaning = [_r("near", bar.MEANING, 0.6), _r("partial", bar.MEANING, 0.5)]
    meaning.append(_r("exact", bar.MEANING, 0.4))
    out = fuse([keyword, meaning], "rrf", limit=5)
    assert [r.session_id for r in out][:2] == ["exact", "partial"]


def test_an_answer_by_words_is_not_outranked_by_a_weak_meaning_neighbour() -> None:
    # where every chunk is near every question (LoCoMo's chats), meaning hits sit below the
    # bar at 0.6-0.9 of it: one at 0.75 must not beat a hit holding 0.6 of the query's
    # rarity, an answer by the bar (`fusion.MEANING_WEIGHT`; at equal weights it did)
    keyword = [_words("answer", 0.6), _words("chance", 0.2)]
    meaning = [_r("neighbour", bar.MEANING, 0.75), _r("other", bar.MEANING, 0.7)]
    out = fuse([keyword, meaning], "rrf", limit=5)
    assert [r.session_id for r in out][:2] == ["answer", "neighbour"]
    assert not out[0].weak and out[1].weak


def test_a_hit_nobody_judged_counts_in_full() -> None:
    # results from a peer that predates the bar carry no judgement: ranks alone, as before
    unjudged = Result("s", "a", None, "pc", None, None, 1.0, "s")
    assert hit_strength(unjudged) == 1.0
    scores = rrf([[unjudged], [unjudged]])
    assert scores[("pc", "a", "s", None)] == 2 / 61
