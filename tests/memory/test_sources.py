"""One search over every source: scope, per-source weights, JSON fields, dates, dedup."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

from clihelp import SESSION_FIELDS, call
from recall.config import _load
from recall.memory.memories import remember
from recall.store import open_writer


def _search(capsys: pytest.CaptureFixture[str], *argv: str) -> list[dict]:
    code, out, err = call(capsys, "search", *argv, "--json")
    assert code == 0, err
    return json.loads(out)["results"]


def _configure(home: Path, text: str) -> None:
    (home / "config.toml").write_text(text)
    _load.cache_clear()


@pytest.fixture
def every_source(capsys: pytest.CaptureFixture[str], tmp_path: Path, recall_home: Path) -> Path:
    """The word 'walrus' in a session, a memory, MEMORY.md, a daily log and a CLAUDE.md."""
    project = tmp_path / "proj"
    project.mkdir()
    (project / "CLAUDE.md").write_text("# Conventions\n\nname fixtures after a walrus colony\n")
    chat = tmp_path / "chat.jsonl"
    lines = [
        {
            "session": "s1",
            "role": "user",
            "text": "should the walrus service retry on timeouts?",
            "project": str(project),
            "timestamp": "2026-01-04T10:00:00Z",
        },
        {
            "session": "s1",
            "role": "assistant",
            "text": "yes, three times with backoff",
            "timestamp": "2026-01-04T10:00:05Z",
        },
    ]
    chat.write_text("".join(json.dumps(x) + "\n" for x in lines))
    assert call(capsys, "ingest", "--format", "jsonl", str(chat))[0] == 0
    call(capsys, "remember", "the walrus service owner is Priya", "-c", "relationship", "-i", "7")
    recall_home.mkdir(exist_ok=True)
    (recall_home / "MEMORY.md").write_text(
        "# Services\n\n## Walrus\n\nwalrus runs on the blue cluster\n"
    )
    (recall_home / "daily").mkdir()
    (recall_home / "daily" / "2026-01-04.md").write_text(
        "# Summary\n\nwalrus retry budget agreed at three\n"
    )
    assert call(capsys, "sync", "-q", "--no-embed")[0] == 0
    return project


def test_all_sources_answer_one_search_with_their_json_fields(
    capsys: pytest.CaptureFixture[str], every_source: Path
) -> None:
    results = _search(capsys, "walrus")
    by_source: dict[str, list[dict]] = {}
    for r in results:
        by_source.setdefault(r["source"], []).append(r)
    assert set(by_source) == {"session", "memory", "file", "daily_log"}
    session = by_source["session"][0]
    assert set(session) == SESSION_FIELDS and session["session_id"] == "s1"
    memory = by_source["memory"][0]
    assert memory["category"] == "relationship" and memory["importance"] == 7
    assert memory["memory_id"].isdigit() and memory["session_id"] == ""
    files = {(Path(r["path"]).name, r["heading"], r["kind"]) for r in by_source["file"]}
    assert files == {
        ("MEMORY.md", "Services › Walrus", "memory_md"),
        ("CLAUDE.md", "Conventions", "guidance"),
    }
    daily = by_source["daily_log"][0]
    assert daily["heading"] == "Summary" and daily["date"].startswith("2026-01-04")
    for r in results:
        assert set(r) >= SESSION_FIELDS and r["computer"] == "testbox"


@pytest.mark.parametrize(
    ("scope", "sources"),
    [
        ("sessions", {"session"}),
        ("memories", {"memory", "file:memory_md"}),
        ("daily", {"daily_log"}),
        ("files", {"file:guidance"}),
    ],
)
def test_scope_keeps_to_its_sources(
    capsys: pytest.CaptureFixture[str], every_source: Path, scope: str, sources: set[str]
) -> None:
    got = _search(capsys, "walrus", "--scope", scope)
    assert {
        r["source"] + (":" + r["kind"] if r["source"] == "file" else "") for r in got
    } == sources


def test_default_weights_put_memory_first_and_config_can_change_them(
    capsys: pytest.CaptureFixture[str], every_source: Path, recall_home: Path
) -> None:
    order = [r["source"] for r in _search(capsys, "walrus")]
    assert order.index("memory") < order.index("daily_log") < order.index("session")
    _configure(recall_home, "[search.weights]\nmessage = 5.0\nmemory = 0.1\n")
    order = [r["source"] for r in _search(capsys, "walrus")]
    assert order[0] == "session" and order[-1] == "memory"


def test_an_unknown_weight_is_a_config_error(
    capsys: pytest.CaptureFixture[str], every_source: Path, recall_home: Path
) -> None:
    _configure(recall_home, "[search.weights]\nmemroy = 2.0\n")
    code, _, err = call(capsys, "search", "walrus")
    assert code == 2 and "memroy" in err


def test_a_date_range_applies_to_every_source(
    capsys: pytest.CaptureFixture[str], every_source: Path, recall_home: Path
) -> None:
    old = time.time() - 900 * 86400
    with open_writer() as store:
        remember(store, "the walrus mascot was retired", "fact", 5, now=old)
    os.utime(every_source / "CLAUDE.md", (old, old))
    (recall_home / "MEMORY.md").touch()
    assert call(capsys, "sync", "-q", "--no-embed")[0] == 0  # mtime alone: same hash, same date
    after = time.strftime("%Y-%m-%d", time.localtime(old + 2 * 86400))
    recent = _search(capsys, "walrus", "--since", after, "--limit", "20")
    assert "the walrus mascot was retired" not in [r["snippet"] for r in recent]
    only_old = _search(capsys, "walrus", "--until", after, "--limit", "20")
    assert [r["source"] for r in only_old] == ["memory"]
    day = _search(
        capsys, "walrus", "--since", "2026-01-04", "--until", "2026-01-04", "--scope", "daily"
    )
    assert [r["source"] for r in day] == ["daily_log"]
    assert _search(capsys, "walrus", "--since", "2026-01-05", "--scope", "daily") == []


def test_the_same_text_in_two_sources_is_one_result(
    capsys: pytest.CaptureFixture[str], recall_home: Path
) -> None:
    call(capsys, "remember", "ship the narwhal release on Friday after the freeze", "-i", "6")
    (recall_home / "daily").mkdir(parents=True)
    (recall_home / "daily" / "2026-02-01.md").write_text(
        "# Plan\n\nship the narwhal release on Friday after the freeze\n"
    )
    assert call(capsys, "sync", "-q", "--no-embed")[0] == 0
    got = _search(capsys, "narwhal")
    assert [r["source"] for r in got] == ["memory"]


def test_a_session_only_search_keeps_its_json_as_before(
    capsys: pytest.CaptureFixture[str], every_source: Path
) -> None:
    for r in _search(capsys, "walrus", "--scope", "sessions"):
        assert set(r) == SESSION_FIELDS


def test_text_output_says_what_each_source_is_and_where(
    capsys: pytest.CaptureFixture[str], every_source: Path, recall_home: Path
) -> None:
    code, out, _ = call(capsys, "search", "walrus")
    assert code == 0
    assert "memory 1 [relationship, importance 7]" in out
    assert f"[{recall_home / 'MEMORY.md'}]" in out
    assert "2026-01-04.md › Summary" in out and "CLAUDE.md › Conventions" in out
