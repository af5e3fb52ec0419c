"""An honest "nothing": results below the relevance bar are marked weak (issue 22).

A keyword hit holding only some of the query's words is an answer only when the
words it holds carry enough of what is rare in the query; `--json` marks the
rest `"weak": true`, text output lists them after the answers under a line
saying they are weaker matches, and the MCP tool never returns them. Every
result says how it matched.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from clihelp import call, call_json
from recall.mcp.history import search_history
from recall.search import bar
from recall.search.query import parse

SESSIONS = {
    "ingress": "We put the kubernetes ingress controller in front of the billing service.",
    "payments": "The payment client retries with exponential backoff and jitter.",
    "ledger": "Ledger rounding now uses banker's rounding for the monthly report.",
    "cache": "The report cache expires after ten minutes so the ledger stays fresh.",
}


@pytest.fixture
def history(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    lines = [
        json.dumps({"session": name, "role": "user", "text": text})
        for name, text in SESSIONS.items()
    ]
    src = tmp_path / "chats.jsonl"
    src.write_text("\n".join(lines) + "\n", encoding="utf-8")
    assert call(capsys, "ingest", "--format", "jsonl", str(src))[0] == 0


def _search(capsys: pytest.CaptureFixture[str], *words: str) -> list[dict[str, object]]:
    doc = call_json(capsys, "search", *words, "--mode", "keyword")
    results: list[dict[str, object]] = doc["results"]
    return results


def test_every_word_held_is_an_answer(history: None, capsys: pytest.CaptureFixture[str]) -> None:
    (first, *_) = _search(capsys, "kubernetes", "ingress", "controller")
    assert first["session_id"] == "ingress"
    assert first["matched"] == "every word" and first["weak"] is False


def test_a_common_word_alone_is_weak(history: None, capsys: pytest.CaptureFixture[str]) -> None:
    """'helm chart values' holds none of its rare words in any session: the one session
    sharing 'kubernetes' comes back, marked weak, as a some-words match."""
    results = _search(capsys, "kubernetes", "helm", "chart", "values", "override")
    assert [r["session_id"] for r in results] == ["ingress"]
    assert results[0]["matched"] == "some words" and results[0]["weak"] is True


def test_the_rare_word_held_is_an_answer(history: None, capsys: pytest.CaptureFixture[str]) -> None:
    """No session says 'quarterly'; 'rounding' is in one session, 'report' in two: the
    session holding both carries enough of the query's rarity to answer, the one holding
    the commoner 'report' alone does not."""
    results = {r["session_id"]: r for r in _search(capsys, "rounding", "report", "quarterly")}
    assert results["ledger"]["weak"] is False and results["ledger"]["matched"] == "some words"
    assert results["cache"]["weak"] is True


def test_text_output_lists_weaker_matches_after_the_answers(
    history: None, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = call(capsys, "search", "rounding", "report", "quarterly", "--mode", "keyword")
    assert code == 0
    line = next(i for i, text in enumerate(out.splitlines()) if text.startswith("Weaker matches"))
    lines = out.splitlines()
    assert any("Ledger rounding" in text for text in lines[:line])
    assert any("report cache" in text for text in lines[line:])
    assert "matched some words" in out


def test_text_output_says_when_nothing_clearly_matches(
    history: None, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = call(capsys, "search", "kubernetes helm chart values override")
    assert code == 0
    assert out.startswith("Nothing clearly matches 'kubernetes helm chart values override'")
    assert "Weaker matches" in out


def test_mcp_never_returns_weak_results(history: None) -> None:
    found = search_history({"query": "kubernetes helm chart values override"})
    assert found["results"] == [] and found["found"] == 0
    found = search_history({"query": "kubernetes ingress controller"})
    assert [r["session_id"] for r in found["results"]] == ["ingress"]
    assert found["results"][0]["weak"] is False


def test_coverage_weighs_rare_words_more() -> None:
    words = bar.query_words(parse("what is the kubernetes controller"))
    assert words == ["kubernetes", "controller"]
    share = bar.coverage(words, [3.0, 1.0], "the kubernetes docs")
    assert share == pytest.approx(0.75)
    assert bar.coverage(words, [3.0, 1.0], "a controller") == pytest.approx(0.25)


def test_meaning_is_judged_against_the_query_background() -> None:
    assert not bar.meaning_weak(0.5, (0.1, 0.05))  # eight deviations above its background
    assert bar.meaning_weak(0.5, (0.4, 0.05))  # two: a query that is near everything
    assert bar.meaning_weak(0.3, None) and not bar.meaning_weak(0.5, None)  # tiny index


def test_a_result_found_two_ways_takes_the_stronger_leg() -> None:
    assert bar.combined([("some words", 0.5), ("meaning", 1.2)])[0] == "meaning"
    assert bar.combined([("every word", 2.5), ("meaning", 1.2)])[0] == "every word"
    _, relevance = bar.combined([("some words", 0.5), ("meaning", 0.8)])
    assert relevance == pytest.approx(0.8 + bar.BOTH * 0.5)


def test_relevance_is_comparable_across_queries(
    history: None, capsys: pytest.CaptureFixture[str]
) -> None:
    """Not divided by the query's own best: a weak best result stays below the bar (1)."""
    (weak,) = _search(capsys, "kubernetes", "helm", "chart", "values", "override")
    strong = _search(capsys, "kubernetes", "ingress", "controller")[0]
    assert float(str(weak["relevance"])) < 1.0 <= float(str(strong["relevance"]))


@pytest.mark.parametrize(
    ("asked", "said"),
    [
        ("camped", "we went camping by the lake"),
        ("hiked", "hiking last week was hard"),
        ("studies", "she will study nursing"),
        ("planned", "the planning meeting"),
        ("painting", "Melanie painted a sunrise"),
        ("coding", "the code review"),
        ("running", "a run"),
        ("promoted", "John got his promotion at work"),
        ("organization", "she organizes the meetup"),
        ("eyes", "she closed one eye"),  # whole stems "ey": the plural still holds
        ("ages", "at that age"),
    ],
)
def test_another_form_of_a_word_is_the_word(asked: str, said: str) -> None:
    # the index's porter tokenizer finds "camping" for "camped"; the bar must not then
    # judge that hit as holding none of the question's words
    assert bar.coverage([asked, "zebra"], [1.0, 1.0], said) == pytest.approx(0.5)


@pytest.mark.parametrize(
    ("asked", "said"),
    [
        ("painter", "she painted it"),
        ("cards", "the car park"),
        ("newest", "the news"),
        ("notes", "I did not go"),
        ("caring", "a car"),
        ("coding", "cod and chips"),
        ("hats", "I hate it"),
        ("wines", "we win"),
    ],
)
def test_different_words_sharing_letters_are_not_the_word(asked: str, said: str) -> None:
    assert bar.coverage([asked], [1.0], said) == 0.0


def test_a_hit_for_another_form_of_the_words_is_an_answer(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Asked about "camped", BM25 finds the message saying "camping": judged to hold it."""
    lines = [
        json.dumps({"session": "trip", "role": "user", "text": "We went camping at the glacier."}),
        json.dumps({"session": "other", "role": "user", "text": "The glacier melts in summer."}),
        json.dumps({"session": "river", "role": "user", "text": "Kayaking on the river."}),
    ]
    src = tmp_path / "trips.jsonl"
    src.write_text("\n".join(lines) + "\n", encoding="utf-8")
    assert call(capsys, "ingest", "--format", "jsonl", str(src))[0] == 0
    results = {r["session_id"]: r for r in _search(capsys, "camped", "glacier", "kayaking")}
    assert results["trip"]["matched"] == "some words" and results["trip"]["weak"] is False
    assert float(str(results["trip"]["relevance"])) > float(str(results["other"]["relevance"]))


def test_mcp_gives_the_answers_asked_for_when_a_weak_result_ranks_among_them(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The weak results are dropped from a list cut deeper than the agent's limit, so a
    weak hit ranked first does not leave the agent with fewer answers than it asked for."""
    from recall.peers import warm
    from recall.search.modes import Outcome
    from recall.search.request import SearchRequest
    from recall.search.results import Result, SearchOutput

    def hit(sid: str, weak: bool) -> Result:
        return Result(sid, "a", None, "pc", None, None, 1.0, sid, weak=weak, relevance=0.5)

    ranked = [hit("weak", True), hit("first", False), hit("second", False)]

    def search(request: SearchRequest) -> tuple[Outcome, bool]:
        found = ranked[: request.limit]
        return Outcome(SearchOutput("q", len(found), found), "hybrid"), True

    monkeypatch.setattr(warm, "search_here", search)
    found = search_history({"query": "retry budget", "limit": 2})
    assert [r["session_id"] for r in found["results"]] == ["first", "second"]
    assert found["found"] == 2
