"""Ranking behaviour of keyword search: what a user sees first, and why."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from clihelp import call, call_json
from recall.search import keyword as search_module


def _ingest(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], lines: list[dict[str, Any]]
) -> None:
    path = tmp_path / "import.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    code, _, err = call(capsys, "ingest", "--format", "jsonl", str(path))
    assert code == 0, err


def _session(sid: str, text: str, project: str = "/srv/app", day: int = 1) -> dict[str, Any]:
    return {
        "session": sid,
        "role": "user",
        "text": text,
        "project": project,
        "timestamp": f"2026-01-{day:02d}T10:00:00Z",
    }


def test_prose_question_ranks_by_its_rare_words_not_its_common_ones(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(search_module, "COMMON_FLOOR", 5)
    chatter = [_session(f"chat{i}", f"we need to decide on item {i}") for i in range(30)]
    _ingest(tmp_path, capsys, [*chatter, _session("tuning", "exponential backoff tuning")])
    out = call_json(capsys, "search", "how should we decide the backoff for retries")
    assert [r["session_id"] for r in out["results"]] == ["tuning"]


def test_every_word_of_a_small_index_counts_in_the_fallback(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    chatter = [_session(f"chat{i}", f"we need to decide on item {i}") for i in range(30)]
    _ingest(tmp_path, capsys, [*chatter, _session("tuning", "exponential backoff tuning")])
    out = call_json(capsys, "search", "decide the backoff for retries", "--limit", "50")
    ids = [r["session_id"] for r in out["results"]]
    assert ids[0] == "tuning" and len(ids) == 31


def test_snippet_highlights_the_matched_words_of_the_shown_message(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _ingest(
        tmp_path,
        capsys,
        [
            _session("a", "unrelated opening remark"),
            {**_session("a", "we settled on NATS JetStream for the queue"), "role": "assistant"},
        ],
    )
    code, out, _ = call(capsys, "search", "jetstream")
    assert code == 0
    assert "JetStream" in out
    hit = call_json(capsys, "search", "jetstream")["results"][0]
    assert hit["message_index"] == 1
    assert "\x02JetStream\x03" not in hit["snippet"]  # markers never leak into JSON
    assert "JetStream" in hit["snippet"] and "unrelated" not in hit["snippet"]


def test_filters_apply_before_the_result_limit(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    noise = [_session(f"n{i}", f"deadlock in the scheduler {i}", "/srv/noise") for i in range(40)]
    _ingest(tmp_path, capsys, [*noise, _session("mine", "deadlock in billing", "/srv/billing")])
    out = call_json(capsys, "search", "deadlock", "--project", "billing", "--limit", "1")
    assert [r["session_id"] for r in out["results"]] == ["mine"]
    out = call_json(capsys, "search", "deadlock", "--since", "2026-01-01", "--limit", "50")
    assert len(out["results"]) == 41


def test_a_title_match_lifts_its_session(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _ingest(
        tmp_path,
        capsys,
        [
            _session("plain", "eviction policy: LRU, decided on Monday"),
            {**_session("titled", "eviction policy: LRU, decided on Friday"), "title": "Eviction"},
        ],
    )
    out = call_json(capsys, "search", "eviction")
    assert [r["session_id"] for r in out["results"]] == ["titled", "plain"]


def test_messages_mode_returns_several_messages_of_one_session(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    src = tmp_path / "chats.jsonl"
    rows = [
        {"session": "s1", "role": "user", "text": "should the ledger use postgres?"},
        {"session": "s1", "role": "assistant", "text": "yes: postgres, serializable isolation"},
        {"session": "s1", "role": "user", "text": "and the cache, not postgres?"},
        {"session": "s2", "role": "user", "text": "postgres upgrade to 16 next week"},
    ]
    src.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    assert call(capsys, "ingest", "--format", "jsonl", str(src))[0] == 0
    sessions = call_json(capsys, "search", "postgres", "--mode", "keyword", "--json")
    assert [r["session_id"] for r in sessions["results"]].count("s1") == 1
    found = call_json(capsys, "search", "postgres", "--messages", "--mode", "keyword", "--json")
    hits = [(r["session_id"], r["message_index"]) for r in found["results"]]
    assert sorted(hits) == [("s1", 0), ("s1", 1), ("s1", 2), ("s2", 0)]
    shown = call_json(capsys, "show", "s1", "--json")["messages"]
    for r in found["results"]:
        if r["session_id"] == "s1":  # each points at its own message
            assert "postgres" in shown[r["message_index"]]["text"]
