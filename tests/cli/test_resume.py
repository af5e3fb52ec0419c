"""`recall resume` reopens a session in its own agent, in its project folder, or prints
the command; `show` and `search` say how."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

from clihelp import call, run
from paths import REPO

DEMO = REPO / "python" / "recall" / "demo"
CLAUDE = "d3m0c1a0-0000-4000-8000-000000000001"
GEMINI = "3f2ad3m0-0b7d-4e21-9a55-000000000003"


@pytest.fixture
def demo(capsys: pytest.CaptureFixture[str]) -> None:
    for agent, pattern in (("claude", "claude-*"), ("codex", "rollout-*"), ("gemini", "session-*")):
        (path,) = DEMO.glob(pattern)
        assert call(capsys, "ingest", "--agent", agent, str(path))[0] == 0, agent


def resume_print(capsys: pytest.CaptureFixture[str], ref: str) -> str:
    code, out, err = call(capsys, "resume", ref, "--print")
    assert code == 0, err
    return out.strip()


@pytest.mark.skipif(os.name == "nt", reason="the printed command is a POSIX shell's")
def test_print_gives_each_agents_own_resume_command_in_the_session_folder(
    demo: None, capsys: pytest.CaptureFixture[str]
) -> None:
    assert resume_print(capsys, "d3m0c1a0") == f"cd /home/demo/payments && claude --resume {CLAUDE}"
    codex = resume_print(capsys, "0199d3m0")
    assert codex.startswith("cd /home/demo/") and " && codex resume 0199d3m0-" in codex
    assert resume_print(capsys, "3f2ad3m0#1") == f"cd /home/demo/api && gemini --resume {GEMINI}"


def test_show_and_search_say_how_to_resume(demo: None, capsys: pytest.CaptureFixture[str]) -> None:
    out = call(capsys, "show", "d3m0c1a0")[1]
    assert "resume in claude: recall resume d3m0c1a0-0000-4000-8000-000000000001" in out
    code, out, _ = call(capsys, "search", "health", "endpoint", "--mode", "keyword")
    assert code == 0
    assert out.rstrip().splitlines()[-1] == (
        "open: recall show 3f2ad3m0 · resume: recall resume 3f2ad3m0"
    )


def test_an_imported_session_cannot_be_resumed_and_says_what_to_do(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    src = tmp_path / "chats.jsonl"
    src.write_text(json.dumps({"session": "chatgpt-1", "role": "user", "text": "hello"}) + "\n")
    assert call(capsys, "ingest", "--format", "jsonl", str(src))[0] == 0
    code, out, err = call(capsys, "resume", "chatgpt-1")
    assert code == 2 and out == ""
    assert err.strip() == (
        "recall: session chatgpt-1 was imported (import): no agent can reopen it;"
        " read it with `recall show chatgpt-1`"
    )
    assert "resume" not in call(capsys, "show", "chatgpt-1")[1]
    code, _, err = call(capsys, "resume", "nothing-like-it")
    assert code == 1 and "no session matches 'nothing-like-it'" in err


@pytest.mark.skipif(sys.platform == "win32", reason="a POSIX shell script stands in for the agent")
def test_resume_runs_the_agent_in_the_project_folder(tmp_path: Path) -> None:
    project = tmp_path / "my project"
    project.mkdir()
    sid = "0c117353-aaaa-4000-8000-000000000001"
    transcript = tmp_path / "user-home" / ".claude" / "projects" / "-p" / f"{sid}.jsonl"
    transcript.parent.mkdir(parents=True)
    line = {
        "type": "user",
        "uuid": "u1",
        "sessionId": sid,
        "cwd": str(project),
        "timestamp": "2026-03-02T09:00:00.000Z",
        "message": {"role": "user", "content": "wire the webhook retries"},
    }
    transcript.write_text(json.dumps(line) + "\n")
    assert run("sync", "--no-embed").returncode == 0
    bin_dir, record = tmp_path / "bin", tmp_path / "ran.txt"
    bin_dir.mkdir()
    fake = bin_dir / "claude"
    fake.write_text(f'#!/bin/sh\nprintf "%s|%s" "$PWD" "$*" > "{record}"\n')
    fake.chmod(0o755)
    path = f"{bin_dir}{os.pathsep}{os.environ['PATH']}"
    proc = run("resume", "0c117353", env={"PATH": path})
    assert proc.returncode == 0, proc.stderr
    assert record.read_text() == f"{project}|--resume {sid}"
    project.rmdir()
    proc = run("resume", "0c117353", env={"PATH": path})
    assert proc.returncode == 1
    assert f"the project folder {project} is gone" in proc.stderr.decode()
    proc = run("resume", "0c117353", env={"PATH": str(tmp_path / "empty")})
    assert proc.returncode == 1 and "claude is not on PATH" in proc.stderr.decode()


EXPECTED = {
    "claude": ["claude", "--resume"],
    "codex": ["codex", "resume"],
    "gemini": ["gemini", "--resume"],
    "copilot": ["copilot", "--resume"],
    "cursor": ["cursor-agent", "--resume"],
    "opencode": ["opencode", "--session"],
    "qwen": ["qwen", "--resume"],
    "pi": ["pi", "--session"],
    "goose": ["goose", "session", "--resume", "--session-id"],
    "crush": ["crush", "--session"],
    "antigravity": ["agy", "--conversation"],
}
"""Each agent's resume command as its documentation gives it (docs/agents.md, "Resuming")."""


def test_every_agent_with_a_resume_command_gets_it_and_the_others_say_why_not() -> None:
    from recall.agents import ADAPTERS
    from recall.cli.resume import plan_for
    from recall.errors import UsageError

    for name in ADAPTERS:
        if name in EXPECTED:
            plan = plan_for(f"{name}-7:agent-x", name, "/w", None)
            assert (plan.argv, plan.cwd) == ([*EXPECTED[name], f"{name}-7"], "/w"), name
            continue
        with pytest.raises(UsageError, match=f"^{name} has no command that reopens a session"):
            plan_for("s1", name, "/w", None)
    assert {"openclaw", "cline", "roo", "continue", "aider"} <= set(ADAPTERS) - set(EXPECTED)


@pytest.mark.skipif(os.name == "nt", reason="the printed command is a POSIX shell's")
def test_the_new_agents_sessions_resume_in_their_own_agent(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from agenthelp import make_home

    make_home(Path.home())
    assert call(capsys, "sync", "--no-embed")[0] == 0
    copilot = "5b0c7c2e-1f7a-4d7e-9a51-2f6d0f1c9e11"
    assert resume_print(capsys, copilot) == f"cd /home/dev/shop && copilot --resume {copilot}"
    # a sub-agent's session reopens its parent
    sub = f"{copilot}:agent-explore-7f3c"
    assert resume_print(capsys, sub).endswith(f"copilot --resume {copilot}")
    qwen = "6f5e4d3c-2b1a-4098-8765-43210fedcba9"
    assert resume_print(capsys, qwen) == f"cd /home/dev/api && qwen --resume {qwen}"
    out = call(capsys, "show", "8a7b6c5d-4e3f-4a2b-9c1d-0e9f8a7b6c5d")[1]
    assert "recall resume" not in out  # OpenClaw: nothing to resume with
    code, out, err = call(capsys, "resume", "8a7b6c5d-4e3f-4a2b-9c1d-0e9f8a7b6c5d")
    assert (code, out) == (2, "")
    assert err.startswith("recall: openclaw has no command that reopens a session by id")
