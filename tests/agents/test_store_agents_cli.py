"""Every database and JSON-document agent at once, through the CLI: one `recall sync` finds
them all in their default places, a second writes nothing, and search, show, `--agent`
and status treat them like Claude, Codex and Gemini."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agentdbs import (
    lay_out_cline_roo,
    lay_out_continue,
    lay_out_crush,
    lay_out_cursor,
    lay_out_goose,
    lay_out_opencode,
)
from clihelp import call, call_json
from synchelp import index_state

AGENTS = ("cline", "continue", "crush", "cursor", "goose", "opencode", "roo")


@pytest.fixture
def home(transcripts: Path) -> Path:
    home = Path.home()
    lay_out_opencode(home)
    lay_out_cursor(home, transcripts)
    lay_out_cline_roo(home)
    lay_out_goose(home)
    lay_out_crush(home)
    lay_out_continue(home)
    return home


def test_one_sync_indexes_every_agent_and_a_second_writes_nothing(
    home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = call(capsys, "sync", "--no-embed")
    assert code == 0
    status = call_json(capsys, "status")
    counts = {a["agent"]: a["sessions"] for a in status["index"]["agents"]}
    # cursor: 10 transcripts (5 shared samples, 5 ours) and 5 more chats in state.vscdb (its
    # sixth, c-transcript, is the session one transcript already holds)
    assert {a: n for a, n in counts.items() if n} == {
        "cline": 3,
        "continue": 3,
        "crush": 3,
        "cursor": 15,
        "goose": 5,
        "opencode": 7,
        "roo": 2,
    }
    before = index_state()
    code, out, _ = call(capsys, "sync", "--no-embed")
    assert code == 0 and out.startswith("0 sessions updated from 0 changed")
    assert index_state() == before


def test_search_show_and_agent_filters(home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    call(capsys, "sync", "--no-embed", "-q")
    for agent, query, session in (
        ("opencode", "Europe Paris", "ses_main"),
        ("cursor", "exponential backoff uploader", "c-main"),
        ("cline", "lockfile hash cache", "sess_a1"),
        ("roo", "pagination orders", "task-roo-1"),
        ("goose", "Dockerfile npm ci cache", "20260105_1"),
        ("crush", "TestMain Postgres container", "crush-main"),
        ("continue", "debounced callback delay", "4f1c2a9e-0b7d-4c55-9a3e-3d2b1f0e7a11"),
    ):
        hits = call_json(capsys, "search", query, "--agent", agent)
        assert hits["results"][0]["session_id"] == session, agent
        assert {h["agent"] for h in hits["results"]} == {agent}
        shown = call_json(capsys, "show", session, "--agent", agent)
        assert shown["agent"] == agent and shown["messages"]
    code, out, err = call(capsys, "show", "ses_main", "--agent", "opencode", "--raw")
    assert code != 0 and "opencode's database" in err and not out


def test_status_lists_agents_found_empty(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = call(capsys, "status")
    assert code == 0
    for agent in AGENTS:
        assert f"  {agent} " in out
    status = json.loads(call(capsys, "status", "--json")[1])
    assert {a["agent"] for a in status["index"]["agents"]} >= set(AGENTS)
