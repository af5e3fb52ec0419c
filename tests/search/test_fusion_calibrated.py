"""Hybrid's fusion weighs each hit by how well it matched, not by its rank alone (issue 22).

Plain reciprocal-rank fusion counts a result found by both legs about twice,
whatever each leg thought of it: a session holding one common word of a prose
question (keyword) and sitting third by meaning beat the session that stood out
by meaning first. Each leg's judgement of a hit is now what counts
(`fusion.leg_score`: a keyword hit's strength discounted by its rank, a meaning
hit's standing above the query's background), so that tie goes to the strong
match, while a hit holding every query word keeps its place.
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


def test_exact_hits_stay_first_and_scores_fall_however_far_meaning_stands_out() -> None:
    # hybrid adds the legs' judgements (`fusion.SCORED`): a meaning hit ten times the bar
    # counts as one at `MEANING_CAP`, so no fused score reaches the exact tier's bonus
    keyword = [_words("exact", 1.0), _words("partial", 0.5)]
    meaning = [_r("far", bar.MEANING, 10.0), _r("partial", bar.MEANING, 2.0)]
    out = fuse([keyword, meaning], "rrf", limit=5, exact=1)
    assert [r.session_id for r in out] == ["exact", "partial", "far"]
    assert [r.score for r in out] == sorted((r.score for r in out), reverse=True)
    capped = fuse([[], [_r("a", bar.MEANING, 10.0), _r("b", bar.MEANING, 1.5)]], "rrf", 5)
    assert capped[0].score == capped[1].score


def test_a_keyword_hit_a_few_places_down_still_outweighs_meaning_neighbours() -> None:
    # LoCoMo's multi-hop questions: the second evidence session is keyword's third hit,
    # while every turn of the chat sits near the question by meaning, below the bar
    keyword = [_words("first", 0.6), _words("chance", 0.2), _words("second", 0.6)]
    meaning = [_r(f"near{n}", bar.MEANING, 0.8) for n in range(3)]
    out = [r.session_id for r in fuse([keyword, meaning], "rrf", limit=5)]
    assert out[:2] == ["first", "second"]
