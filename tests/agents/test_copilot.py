"""The Copilot CLI adapter: its fixtures, titles from beside the events, homes, chunks.

Expected values were read off the fixture files by hand, never produced by the adapter.
"""

from __future__ import annotations

import json
import sqlite3
import time
from pathlib import Path

import pytest

from agenthelp import pairs, parse_whole
from paths import REPO
from recall.agents import ADAPTERS, adapter_for
from recall.agents.copilot import CopilotAdapter, store_summary, workspace_yaml
from recall.types import TITLE_AGENT

COPILOT = CopilotAdapter()
HOME = REPO / "tests" / "fixtures" / "home"
STATE = HOME / ".copilot" / "session-state"
S1 = "5b0c7c2e-1f7a-4d7e-9a51-2f6d0f1c9e11"
S2 = "7d1e0b4a-5c3f-4e21-8a9b-0c1d2e3f4a5b"


def test_conversation_only_with_chunks_joined_and_injected_prompts_dropped() -> None:
    parsed = parse_whole(COPILOT, STATE / S1 / "events.jsonl")
    main, sub = parsed.parts
    assert [(m.role, m.text) for m in main.messages] == [
        ("user", "why does `npm test` fail on CI only?"),
        (
            "assistant",
            "Let me run the tests with the CI environment.\n\nRunning CI=1 npm test now.",
        ),
        ("assistant", "CI runs in UTC; the test assumes Europe/Paris. Set TZ in jest.config.js."),
        ("user", "thanks, now make the lint job pass too"),
        ("assistant", "Lint passes now: I removed the unused import in src/tz.ts."),
    ]
    info = main.info
    assert (info.session_id, info.project, info.started_at) == (
        S1,
        "/home/dev/shop",
        "2026-09-01T10:00:00.000Z",
    )
    assert (info.title, info.title_rank) == ("Fix CI-only timezone test failure", TITLE_AGENT)
    assert info.metadata == {
        "agent_version": "1.0.80",
        "model": "claude-sonnet-4.6",
        "repository": "acme/shop",
        "git_branch": "fix/ci",
    }
    assert sub.info.session_id == f"{S1}:agent-explore-7f3c"
    assert sub.info.parent_session_id == S1
    assert [m.text for m in sub.messages] == [
        "Three tests read the local timezone: tz.test.ts, report.test.ts and cron.test.ts."
    ]


def test_a_chunk_arriving_in_a_later_read_rewrites_the_message_in_place() -> None:
    data = (STATE / S1 / "events.jsonl").read_bytes()
    cut = data.index(b'"id": "e4b"')
    cut = data.rindex(b"\n", 0, cut) + 1
    first = COPILOT.parse(STATE / S1 / "events.jsonl", data[:cut], 0, {})
    state = json.loads(json.dumps(first.state))
    second = COPILOT.parse(STATE / S1 / "events.jsonl", data[cut:], cut, state)
    before = {m.key: m.text for m in first.parts[0].messages}
    after = {m.key: m.text for m in second.parts[0].messages}
    joined = [k for k in after if k in before]
    assert len(joined) == 1
    assert before[joined[0]] == "Let me run the tests with the CI environment."
    assert after[joined[0]].endswith("\n\nRunning CI=1 npm test now.")


def test_older_layouts_and_the_shared_samples(transcripts: Path) -> None:
    flat = STATE / "3f9a2b1c-0d4e-4f5a-9b6c-7d8e9f0a1b2c.jsonl"
    assert pairs(parse_whole(COPILOT, flat)) == [
        ("user", "write a bash one-liner that counts TODOs per file"),
        ("assistant", "grep -rc TODO . | grep -v ':0$' | sort -t: -k2 -nr"),
    ]
    v1 = "copilot/agent-sessions/subdir_v1/aaaabbbb-1111-2222-3333-ccccddddeeee/events.jsonl"
    parsed = parse_whole(COPILOT, transcripts / v1)
    assert parsed.parts[0].info.project == "/tmp/project"
    assert pairs(parsed) == [
        ("user", "List the files"),
        ("assistant", "The directory contains file1 and file2."),
    ]
    drift = parse_whole(COPILOT, transcripts / "copilot/agent-sessions/schema_drift.jsonl")
    assert pairs(drift) == [("assistant", "Finished.")]
    assert drift.skipped == {}  # new event types are not errors


def test_drift_and_hostile_files_keep_what_is_readable() -> None:
    drift = STATE / "9c8b7a6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d" / "events.jsonl"
    parsed = parse_whole(COPILOT, drift)
    assert pairs(parsed) == [
        ("user", "rename the config loader to settings loader"),
        ("assistant", "Renamed ConfigLoader to SettingsLoader in 4 files."),
    ]
    assert parsed.skipped == {"unexpected shape": 1, "unknown record type": 1}
    assert parsed.offset < len(drift.read_bytes())  # the half-written last line waits
    hostile = parse_whole(COPILOT, STATE / "0e0e0e0e-hostile-copilot" / "events.jsonl")
    texts = [m.text for p in hostile.parts for m in p.messages]
    assert texts[0] == "surrogate \ufffd here"
    assert len(texts[2]) > 300_000
    assert hostile.parts[0].info.session_id == "0e0e0e0e-hostile-copilot"  # the folder's name


def test_workspace_yaml_scalars_and_blocks(tmp_path: Path) -> None:
    path = tmp_path / "workspace.yaml"
    path.write_text(
        "id: x\nsummary: |\n  Fix the flaky\n  upload test\ncwd: '/home/o''neil/app'\n"
        'branch: "feat/\\u00e9t\\u00e9"\nrepository: acme/app # a comment\n  nested: no\n'
        "weird line\n",
        encoding="utf-8",
    )
    assert workspace_yaml(path) == {
        "id": "x",
        "summary": "Fix the flaky\nupload test",
        "cwd": "/home/o'neil/app",
        "branch": "feat/été",
        "repository": "acme/app",
    }
    assert workspace_yaml(tmp_path / "missing.yaml") == {}


def _store(path: Path) -> None:
    sql = (HOME / ".copilot" / "session-store.sql").read_text("utf-8")
    with sqlite3.connect(path) as db:
        db.execute("PRAGMA journal_mode = WAL")
        db.executescript(sql)


def test_title_from_session_store_read_while_copilot_holds_a_write_lock(tmp_path: Path) -> None:
    state = tmp_path / ".copilot" / "session-state" / S2
    state.mkdir(parents=True)
    (state / "events.jsonl").write_bytes((STATE / S2 / "events.jsonl").read_bytes())
    database = tmp_path / ".copilot" / "session-store.db"
    _store(database)
    writer = sqlite3.connect(database, isolation_level=None)
    writer.execute("BEGIN IMMEDIATE")
    writer.execute("UPDATE sessions SET summary = 'not yet committed' WHERE id = ?", (S2,))
    try:
        started = time.monotonic()
        parsed = parse_whole(COPILOT, state / "events.jsonl")
        assert time.monotonic() - started < 2
        assert parsed.parts[0].info.title == "Retry large uploads with backoff"
        writer.execute("COMMIT")  # and the writer was never kept waiting: no lock is left
    finally:
        writer.close()
    assert store_summary(database, S2) == "not yet committed"
    assert store_summary(tmp_path / "nope.db", S2) is None
    (tmp_path / "broken.db").write_bytes(b"not a database at all" * 100)
    assert store_summary(tmp_path / "broken.db", S2) is None


def test_homes_and_recognition(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert COPILOT.default_roots() == [Path.home() / ".copilot" / "session-state"]
    monkeypatch.setenv("COPILOT_HOME", str(tmp_path / "cp"))
    assert ADAPTERS["copilot"].default_roots() == [tmp_path / "cp" / "session-state"]
    assert sorted(COPILOT.discover(HOME / ".copilot")) == sorted(
        [*STATE.glob("*/events.jsonl"), *STATE.glob("*.jsonl")]
    )
    outside = tmp_path / "exported.jsonl"
    outside.write_bytes((STATE / S2 / "events.jsonl").read_bytes())
    found = adapter_for(outside)
    assert found is not None and found.name == "copilot"
    assert COPILOT.origin(STATE / S2 / "events.jsonl")[0] == S2


def test_an_exclusively_locked_store_costs_a_short_wait_and_no_title(tmp_path: Path) -> None:
    database = tmp_path / "session-store.db"
    sql = (HOME / ".copilot" / "session-store.sql").read_text("utf-8")
    with sqlite3.connect(database) as db:  # rollback journal: a writer can shut readers out
        db.executescript(sql)
    writer = sqlite3.connect(database, isolation_level=None)
    writer.execute("BEGIN EXCLUSIVE")
    try:
        started = time.monotonic()
        assert store_summary(database, S2) is None
        assert time.monotonic() - started < 2
    finally:
        writer.execute("ROLLBACK")
        writer.close()
    assert store_summary(database, S2) == "Retry large uploads with backoff"
