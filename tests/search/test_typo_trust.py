"""Typo correction a person would trust (issue 22): a real word is never turned into
another token, each word is corrected on its own, and the correction is always said."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from clihelp import call

CHATS = {
    "s-delop": "the delop script and the invocation of the helper charges nothing",
    "s-help": "help me with the charges on this account",
    "s-math": "the mathematica printer prints Sqrt as a function call",
    "s-printer": "the printer for latex output drops parentheses",
    "s-lambdify": "the lambdify printer emits a tuple without its comma",
    "s-prefs": "remember my editor preferences: dark theme and vim keys",
    "s-run": "the tests keep running out of memory on the large fixture",
}


@pytest.fixture
def indexed(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src = tmp_path / "chats.jsonl"
    src.write_text(
        "\n".join(json.dumps({"session": s, "role": "user", "text": t}) for s, t in CHATS.items())
        + "\n"
    )
    assert call(capsys, "ingest", "--format", "jsonl", str(src))[0] == 0


def _search(capsys: pytest.CaptureFixture[str], query: str) -> tuple[dict[str, object], str]:
    code, out, err = call(capsys, "search", query, "--mode", "keyword", "--json")
    assert code == 0
    return json.loads(out), err


@pytest.mark.parametrize("query", ["deployment", "invoice", "helm chart", "mathematics"])
def test_an_english_word_is_never_turned_into_another_token(
    indexed: None, capsys: pytest.CaptureFixture[str], query: str
) -> None:
    """Before: "deployment" became "delop", "invoice" "invocation", "helm chart" "help
    charges" (none of these words is in the index, but each is a real word)."""
    doc, err = _search(capsys, query)
    assert doc["corrected"] is None
    assert "showing results for" not in err


def test_a_typo_beside_a_word_that_matches_is_corrected_and_said(
    indexed: None, capsys: pytest.CaptureFixture[str]
) -> None:
    """Before: "printer" found sessions, so "mathematca" was never corrected and the
    search silently returned other sessions."""
    doc, err = _search(capsys, "mathematca printer")
    assert doc["corrected"] == "mathematica printer"
    assert 'recall: showing results for "mathematica printer"' in err
    assert doc["results"][0]["session_id"] == "s-math"  # type: ignore[index]


def test_each_word_is_corrected_on_its_own(
    indexed: None, capsys: pytest.CaptureFixture[str]
) -> None:
    doc, _ = _search(capsys, "lamdify prefernces")
    assert doc["corrected"] == "lambdify preferences"


def test_a_typo_is_corrected_to_the_word_as_written_nearest_to_it(
    indexed: None, capsys: pytest.CaptureFixture[str]
) -> None:
    """The stems "rune" (of the typo) and "run" are one edit apart, as are "rune" and
    "rule"; the written word "running" is what was meant, one edit from "runing"."""
    doc, _ = _search(capsys, "runing memory")
    assert doc["corrected"] == "running memory"
    assert doc["results"][0]["session_id"] == "s-run"  # type: ignore[index]


def test_the_json_keeps_what_was_typed_beside_what_was_searched(
    indexed: None, capsys: pytest.CaptureFixture[str]
) -> None:
    doc, _ = _search(capsys, "lamdify printer")
    assert doc["query"] == "lamdify printer" and doc["corrected"] == "lambdify printer"
