"""Search, show, `--agent`, status and MCP treat Copilot CLI, Pi, OpenClaw and Qwen Code
like the first three agents, after one `recall sync` of a home holding their fixtures."""

from __future__ import annotations

from pathlib import Path

import pytest

from agenthelp import make_home
from clihelp import call, call_json

# (agent, a query only its session answers, that session's id, a word of its title)
CASES = [
    ("copilot", "jest.config timezone Europe/Paris", "5b0c7c2e-1f7a-4d7e-9a51-2f6d0f1c9e11", "Fix"),
    ("pi", "pending flag onSubmit", "01919f5e-7a2b-7c3d-8e4f-5a6b7c8d9e0f", "Login"),
    ("openclaw", "two-column invoice template", "8a7b6c5d-4e3f-4a2b-9c1d-0e9f8a7b6c5d", "Invoice"),
    ("qwen", "problem+json empty cart 404", "6f5e4d3c-2b1a-4098-8765-43210fedcba9", "Orders"),
]


@pytest.fixture
def synced(capsys: pytest.CaptureFixture[str]) -> None:
    make_home(Path.home())
    code, _, err = call(capsys, "sync", "--quiet", "--no-embed")
    assert code == 0, err


@pytest.mark.parametrize(("agent", "query", "sid", "word"), CASES)
def test_search_show_and_agent_filter(
    synced: None, agent: str, query: str, sid: str, word: str, capsys: pytest.CaptureFixture[str]
) -> None:
    hits = call_json(capsys, "search", query, "--mode", "keyword")["results"]
    assert hits and hits[0]["session_id"] == sid and hits[0]["agent"] == agent
    assert word in hits[0]["title"]
    only = call_json(capsys, "search", query, "--mode", "keyword", "--agent", agent.upper())
    assert {r["agent"] for r in only["results"]} == {agent}
    other = "claude" if agent != "claude" else "codex"
    assert (
        call_json(capsys, "search", query, "--mode", "keyword", "--agent", other)["results"] == []
    )
    shown = call_json(capsys, "show", sid)
    assert shown["agent"] == agent and shown["messages"]
    assert all("NOISE" not in m["text"] for m in shown["messages"])


def test_status_counts_the_new_agents(synced: None, capsys: pytest.CaptureFixture[str]) -> None:
    status = call_json(capsys, "status")
    counts = {a["agent"]: a["sessions"] for a in status["index"]["agents"]}
    found = {agent: n for agent, n in counts.items() if n}
    # the fixture home also holds an Aider history (two runs) and an Antigravity conversation
    assert found == {
        "aider": 2,
        "antigravity": 1,
        "copilot": 10,
        "openclaw": 1,
        "pi": 4,
        "qwen": 4,
    }
    assert counts["claude"] == 0  # an agent found empty is listed with its zero


def test_mcp_search_history_filters_by_a_new_agent(synced: None) -> None:
    from recall.mcp.history import search_history

    found = search_history({"query": "idempotency key", "agent": "pi"})
    hits = {(r["agent"], r["session_id"]) for r in found["results"]}
    assert hits == {("pi", "01919fa0-1111-7222-8333-444455556666")}  # both turns of the fork
    assert search_history({"query": "idempotency key", "agent": "qwen"})["results"] == []
