"""Typo correction over every source: a word any source holds is no typo, and a
correction made in memories is said as the sessions' is."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from clihelp import call


def _chat(capsys: pytest.CaptureFixture[str], tmp_path: Path, text: str) -> None:
    chat = tmp_path / "chat.jsonl"
    line = {"session": "s1", "role": "user", "text": text, "timestamp": "2026-01-04T10:00:00Z"}
    chat.write_text(json.dumps(line) + "\n")
    assert call(capsys, "ingest", "--format", "jsonl", str(chat))[0] == 0


@pytest.mark.parametrize("mode", ["keyword", "hybrid"])
def test_a_word_in_a_memory_is_not_corrected_to_a_session_word(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, mode: str
) -> None:
    _chat(capsys, tmp_path, "Pelicans nest on the pier")
    assert call(capsys, "remember", "Use the pelicon protocol")[0] == 0
    code, out, err = call(capsys, "search", "pelicon", "--mode", mode, "--json")
    assert code == 0, err
    assert "showing results" not in err
    found = json.loads(out)
    assert found["corrected"] is None
    assert [r["snippet"] for r in found["results"]] == ["Use the pelicon protocol"]


def test_a_correction_in_memories_is_said(capsys: pytest.CaptureFixture[str]) -> None:
    assert call(capsys, "remember", "prefers vim")[0] == 0
    argv = ("search", "--scope", "memories", "--mode", "keyword", "prefrs")
    code, out, err = call(capsys, *argv, "--json")
    assert code == 0, err
    assert json.loads(out)["corrected"] == "prefers"
    assert 'showing results for "prefers"' in err
    code, out, err = call(capsys, *argv)
    assert code == 0 and 'showing results for "prefers"' in err
    code, out, err = call(capsys, "memories", "search", "prefrs")
    assert code == 0 and "vim" in out, err
    assert 'recall: showing results for "prefers"' in err
