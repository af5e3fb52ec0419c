"""Memories found by meaning alone pass the sessions' gate and floor, and rank below any
result that holds a query word, in every source."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from clihelp import call
from recall.search.fusion import RRF_K
from recall.search.query import parse
from recall.search.source_sql import MemoryResult
from recall.search.sources import WEIGHTS, merge


def _chat(capsys: pytest.CaptureFixture[str], tmp_path: Path, text: str) -> None:
    chat = tmp_path / "chat.jsonl"
    line = {"session": "s1", "role": "user", "text": text, "timestamp": "2026-01-04T10:00:00Z"}
    chat.write_text(json.dumps(line) + "\n")
    assert call(capsys, "ingest", "--format", "jsonl", str(chat))[0] == 0


def _remember_two(capsys: pytest.CaptureFixture[str]) -> None:
    assert call(capsys, "remember", "uses pnpm")[0] == 0
    assert call(capsys, "remember", "prefers vim")[0] == 0


@pytest.mark.needs_model
@pytest.mark.parametrize("mode", [[], ["--mode", "semantic"], ["--mode", "hybrid"]])
def test_nonsense_finds_no_memory(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, mode: list[str]
) -> None:
    _chat(capsys, tmp_path, "the useSimpleTodo hook re-renders twice")
    _remember_two(capsys)
    assert call(capsys, "sync", "-q")[0] == 0
    code, out, _ = call(capsys, "search", "qwfp zxcv jkl", *mode)
    assert code == 1, out
    assert out.startswith("No results")
    assert call(capsys, "search", "--since", "yesterday", "quokkas", *mode)[0] == 1


@pytest.mark.needs_model
def test_a_word_in_a_session_outranks_memories_near_in_meaning(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    _chat(capsys, tmp_path, "the useSimpleTodo hook re-renders twice")
    _remember_two(capsys)
    assert call(capsys, "sync", "-q")[0] == 0
    code, out, err = call(capsys, "search", "useSimpleTodo", "--json")
    assert code == 0, err
    assert [r["source"] for r in json.loads(out)["results"]] == ["session"]


def _result(source: str, score: float, snippet: str) -> MemoryResult:
    return MemoryResult(
        session_id="",
        agent="",
        project="",
        computer="c",
        title=None,
        date="2026-01-04",
        score=score,
        snippet=snippet,
        source=source,
    )


def test_a_word_match_outranks_a_meaning_only_list_whatever_its_own_scale() -> None:
    """A meaning-only memory keeps its similarity: not 1.0 for being its list's best."""
    memories = [_result("memory", 0.3, "prefers vim")]
    sessions = [_result("session", 0.02, "the useSimpleTodo hook"), _result("session", 0.01, "x")]
    ranked = merge([memories, sessions], parse("useSimpleTodo"), 10, WEIGHTS)
    assert [r.snippet for r in ranked] == ["the useSimpleTodo hook", "prefers vim", "x"]
    # a tier of no words held, then its rank alone: not its similarity, not its list's best
    assert ranked[1].score == pytest.approx(WEIGHTS["memory"] / (RRF_K + 1), rel=1e-5)
