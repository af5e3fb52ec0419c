"""Pi, OpenClaw and Qwen Code: transcripts written as trees, read as their active branch.

Expected values were read off the fixture files by hand, never produced by the adapters.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agenthelp import pairs, parse_whole
from paths import REPO, TRANSCRIPTS
from recall.agents import ADAPTERS, adapter_for
from recall.types import TITLE_USER_GIVEN

HOME = REPO / "tests" / "fixtures" / "home"
PI_DIR = HOME / ".pi" / "agent" / "sessions" / "--home-dev-shop--"
PI = PI_DIR / "2026-08-10T14-00-00-000Z_01919f5e-7a2b-7c3d-8e4f-5a6b7c8d9e0f.jsonl"
OPENCLAW = HOME / ".openclaw/agents/main/sessions/8a7b6c5d-4e3f-4a2b-9c1d-0e9f8a7b6c5d.jsonl"
QWEN = HOME / ".qwen/projects/-home-dev-api/chats/6f5e4d3c-2b1a-4098-8765-43210fedcba9.jsonl"


def test_pi_keeps_the_active_branch_and_its_name() -> None:
    parsed = parse_whole(ADAPTERS["pi"], PI)
    assert pairs(parsed) == [
        ("user", "The login form double-submits on slow networks."),
        (
            "assistant",
            "Better: disable the button while the request is in flight,"
            " via a pending flag set in onSubmit.",
        ),
        ("user", "Ship it with a test."),
        (
            "assistant",
            "Added LoginForm.test.tsx: it asserts the button is disabled"
            " until the request settles.",
        ),
    ]
    info = parsed.parts[0].info
    assert (info.session_id, info.agent, info.project) == (
        "01919f5e-7a2b-7c3d-8e4f-5a6b7c8d9e0f",
        "pi",
        "/home/dev/shop",
    )
    assert (info.title, info.title_rank) == ("Login double-submit fix", TITLE_USER_GIVEN)
    assert [m.key for m in parsed.parts[0].messages] == [
        "a1f00003",
        "a1f00009",
        "a1f0000c",
        "a1f0000d",
    ]
    assert parsed.skipped == {}


def test_pi_linear_v1_sessions_and_forks() -> None:
    v1 = PI_DIR / "2025-06-01T09-00-00-000Z_01919f00-0000-7000-8000-00000000v1v1.jsonl"
    parsed = parse_whole(ADAPTERS["pi"], v1)
    assert [t for _, t in pairs(parsed)] == [
        "what does the cart reducer do with duplicate SKUs?",
        "It merges them: quantities of the same SKU are summed.",
        "and when the quantity drops to zero?",
        "The line is removed from the cart.",
    ]
    stamps = [m.timestamp for m in parsed.parts[0].messages]
    assert stamps[2] == "2025-06-01T09:00:10Z"  # the message's own epoch milliseconds
    fork = PI_DIR / "2026-08-11T10-00-00-000Z_01919fa0-1111-7222-8333-444455556666.jsonl"
    info = parse_whole(ADAPTERS["pi"], fork).parts[0].info
    assert info.metadata == {"forked_from": "01919f5e-7a2b-7c3d-8e4f-5a6b7c8d9e0f"}


def test_openclaw_drops_delivery_copies() -> None:
    parsed = parse_whole(ADAPTERS["openclaw"], OPENCLAW)
    assert pairs(parsed) == [
        ("user", "[Telegram Dana +2m] what did we decide about the invoice template?"),
        (
            "assistant",
            "You chose the two-column invoice template with the VAT line under the total.",
        ),
    ]
    assert parsed.parts[0].info.agent == "openclaw"
    assert parsed.parts[0].info.title == "Invoice template decision"


def test_qwen_branch_titles_provenance_and_sidechains() -> None:
    parsed = parse_whole(ADAPTERS["qwen"], QWEN)
    main, sub = parsed.parts
    assert [(m.role, m.text) for m in main.messages] == [
        ("user", "The /orders endpoint returns 500 when the cart is empty."),
        (
            "assistant",
            "sum() of an empty list is fine, but `max()` on it raises: guard the empty cart"
            " and return 200 with an empty order.",
        ),
        ("user", "Apply the guard, and return 404 instead of 200 for an empty cart."),
        ("assistant", "Done: an empty cart now returns 404 with a problem+json body."),
    ]
    # the user's /rename outranks the agent's own title, and comes last here
    assert (main.info.title, main.info.title_rank) == (
        "Orders: empty cart returns 404",
        TITLE_USER_GIVEN,
    )
    assert main.info.metadata == {
        "agent_version": "0.12.1",
        "git_branch": "main",
        "model": "qwen3-coder-plus",
    }
    assert sub.info.session_id == "6f5e4d3c-2b1a-4098-8765-43210fedcba9:agent-explore-9a1b"
    assert sub.info.metadata == {"agent_name": "Explore"}
    assert [m.text for m in sub.messages] == [
        "List callers of orders() in the codebase.",
        "orders() is called from api/routes.py and jobs/nightly.py.",
    ]


def test_qwen_older_layout_and_hostile_file() -> None:
    old = next((HOME / ".qwen" / "tmp").rglob("*.jsonl"))
    assert [r for r, _ in pairs(parse_whole(ADAPTERS["qwen"], old))] == ["user", "assistant"]
    bad = HOME / ".qwen/projects/-home-dev-api/chats/0badf00d-0000-4000-8000-00000000qwen.jsonl"
    parsed = parse_whole(ADAPTERS["qwen"], bad)
    assert [t[:25] for _, t in pairs(parsed)] == [
        "a string, not parts",
        "no parentUuid field: hang",
        "content instead of parts ",
    ]
    assert parsed.skipped == {"unexpected shape": 2, "unknown record type": 1}
    assert parsed.offset < bad.stat().st_size  # the cut last line waits for the rest


def test_a_moved_branch_is_read_again_whole(tmp_path: Path) -> None:
    """Growing the Pi fixture line by line: when the branch summary hangs under an entry
    an earlier read consumed, the parse says so and the adapter reads the file again."""
    data = PI.read_bytes()
    path = tmp_path / PI.name
    path.write_bytes(data)
    offset, state, replaced = 0, {}, 0
    for end in [i + 1 for i, b in enumerate(data) if b == 0x0A]:
        parsed = ADAPTERS["pi"].parse(path, data[offset:end], offset, state)
        assert "reread" not in parsed.state
        replaced += sum(1 for p in parsed.parts if p.replace)
        offset += parsed.offset
        state = json.loads(json.dumps(parsed.state))
    assert replaced == 1


def test_recognition_outside_the_agents_folders(tmp_path: Path) -> None:
    for source, agent in ((PI, "pi"), (QWEN, "qwen")):
        copy = tmp_path / agent / source.name
        copy.parent.mkdir()
        copy.write_bytes(source.read_bytes())
        found = adapter_for(copy)
        assert found is not None and found.name == agent
    claw = tmp_path / "state" / "agents" / "ops" / "sessions" / OPENCLAW.name
    claw.parent.mkdir(parents=True)
    claw.write_bytes(OPENCLAW.read_bytes())
    found = adapter_for(claw)
    assert found is not None and found.name == "openclaw"
    # Claude's own lines are never taken for Qwen's, nor Qwen's for Claude's
    claude = TRANSCRIPTS / "claude" / "agent-sessions" / "small.jsonl"
    assert not ADAPTERS["qwen"].owns(claude)
    found = adapter_for(claude)
    assert found is not None and found.name == "claude"


@pytest.mark.parametrize(
    ("var", "agent", "expected"),
    [
        ("PI_CODING_AGENT_DIR", "pi", ["{v}/sessions", "{h}/.omp/agent/sessions"]),
        ("OPENCLAW_STATE_DIR", "openclaw", ["{v}/agents", "{h}/.clawdbot/agents"]),
        ("QWEN_HOME", "qwen", ["{v}/projects", "{v}/tmp"]),
    ],
)
def test_homes_follow_the_agents_variables(
    var: str, agent: str, expected: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(var, str(tmp_path / "moved"))
    want = [Path(e.format(v=tmp_path / "moved", h=Path.home())) for e in expected]
    assert ADAPTERS[agent].default_roots() == want


def test_qwen_runtime_dir_is_read_first(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("QWEN_RUNTIME_DIR", str(tmp_path / "rt"))
    roots = ADAPTERS["qwen"].default_roots()
    assert roots[:2] == [tmp_path / "rt" / "projects", tmp_path / "rt" / "tmp"]
    assert roots[2:] == [Path.home() / ".qwen" / "projects", Path.home() / ".qwen" / "tmp"]
