"""Typo correction that tells the truth: only unmatched words, to a near word, and said."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from clihelp import call

CHATS = {
    "s-lambdify": "the lambdify printer emits a single-element tuple without its comma",
    "s-lim": "set the axis with _set_lim and then lim again for the plot",
    "s-redhat": "the Red Hat image ships an older openssl",
    "s-prefs": "remember my editor preferences: dark theme and vim keys",
}


@pytest.fixture
def indexed(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src = tmp_path / "chats.jsonl"
    src.write_text(
        "\n".join(json.dumps({"session": s, "role": "user", "text": t}) for s, t in CHATS.items())
        + "\n"
    )
    assert call(capsys, "ingest", "--format", "jsonl", str(src))[0] == 0


def _search(capsys: pytest.CaptureFixture[str], query: str) -> tuple[int, dict[str, object], str]:
    code, out, err = call(capsys, "search", query, "--mode", "keyword", "--json")
    return code, json.loads(out), err


def test_a_misspelt_word_finds_the_word_meant_and_says_so(
    indexed: None, capsys: pytest.CaptureFixture[str]
) -> None:
    code, doc, err = _search(capsys, "lamdify")
    assert code == 0
    assert [r["session_id"] for r in doc["results"]] == ["s-lambdify"]  # type: ignore[index]
    assert doc["corrected"] == "lambdify"
    assert 'recall: showing results for "lambdify"' in err


def test_a_word_is_never_cut_down_to_a_shorter_one(
    indexed: None, capsys: pytest.CaptureFixture[str]
) -> None:
    code, doc, err = _search(capsys, "Redis")
    assert code == 0 and doc["results"] == [] and doc["corrected"] is None
    assert "showing results for" not in err


def test_a_word_that_matches_is_left_alone(
    indexed: None, capsys: pytest.CaptureFixture[str]
) -> None:
    code, doc, err = _search(capsys, "lim")
    assert code == 0 and doc["corrected"] is None
    assert "showing results for" not in err


def test_a_longer_typo_still_reaches_its_stem(
    indexed: None, capsys: pytest.CaptureFixture[str]
) -> None:
    code, doc, _ = _search(capsys, "prefernces")
    assert code == 0 and doc["corrected"] == "preferences"
    assert [r["session_id"] for r in doc["results"]] == ["s-prefs"]  # type: ignore[index]


def test_results_are_listed_in_the_order_of_their_scores(
    indexed: None, capsys: pytest.CaptureFixture[str]
) -> None:
    """What the typed words found comes first; the scores shown never go up down the list."""
    for query in ("lambdify openssl", "lambdify prefernces", "prefernces", "tuple comma plot"):
        _, doc, _ = _search(capsys, query)
        scores = [r["score"] for r in doc["results"]]  # type: ignore[index]
        assert scores == sorted(scores, reverse=True), (query, scores)
