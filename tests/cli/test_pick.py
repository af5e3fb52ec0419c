"""`recall pick` in a real terminal: tmux runs it, send-keys types, capture-pane reads the
screen. Results follow the typing, the preview shows the conversation, Enter shows the
session, Ctrl-R resumes it in its agent, Esc leaves."""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from clihelp import call
from paths import REPO

pytestmark = pytest.mark.skipif(
    os.name == "nt" or shutil.which("tmux") is None, reason="needs tmux (a real terminal)"
)
DEMO = REPO / "python" / "recall" / "demo"
SID = "0c117353-aaaa-4000-8000-000000000001"

Screen = Callable[..., str]


@pytest.fixture
def indexed(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    """The three demo sessions, and one Claude session whose folder exists."""
    pytest.importorskip("prompt_toolkit")
    for agent, pattern in (("claude", "claude-*"), ("codex", "rollout-*"), ("gemini", "session-*")):
        (path,) = DEMO.glob(pattern)
        assert call(capsys, "ingest", "--agent", agent, str(path))[0] == 0
    project = tmp_path / "webhooks"
    project.mkdir()
    transcript = tmp_path / "user-home" / ".claude" / "projects" / "-w" / f"{SID}.jsonl"
    transcript.parent.mkdir(parents=True)
    line = {
        "type": "user",
        "uuid": "u1",
        "sessionId": SID,
        "cwd": str(project),
        "timestamp": "2026-03-04T09:00:00.000Z",
        "message": {"role": "user", "content": "make the zebrafish webhook idempotent"},
    }
    transcript.write_text(json.dumps(line) + "\n")
    assert call(capsys, "ingest", "--agent", "claude", str(transcript))[0] == 0
    return project


@pytest.fixture
def terminal(tmp_path: Path) -> Iterator[Callable[[str], Screen]]:
    """Start `recall ARGS` in a 120×32 tmux window; returns a function that waits for the
    screen to hold some text and returns it."""
    socket = f"recall-test-{uuid.uuid4().hex[:8]}"
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    fake = bin_dir / "claude"  # stands in for Claude Code: says where and how it was run
    fake.write_text(f'#!/bin/sh\nprintf "%s|%s" "$PWD" "$*" > "{tmp_path / "ran.txt"}"\n')
    fake.chmod(0o755)
    env = {
        "RECALL_HOME": os.environ["RECALL_HOME"],
        "RECALL_COMPUTER": os.environ["RECALL_COMPUTER"],
        "HOME": os.environ["HOME"],
        "PYTHONPATH": os.pathsep.join(sys.path),
        "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}",
        "RECALL_IMPL": os.environ.get("RECALL_IMPL", "auto"),
        "TERM": "xterm-256color",
    }

    def start(args: str) -> Screen:
        setenv = " ".join(f"{k}={shlex.quote(v)}" for k, v in env.items())
        command = (
            f"env {setenv} {shlex.quote(sys.executable)} -m recall {args}; echo EXIT=$?; sleep 60"
        )
        subprocess.run(
            ["tmux", "-L", socket, "new-session", "-d", "-x", "120", "-y", "32", command],
            check=True,
        )

        def screen(*want: str, gone: str | None = None, keys: list[str] | None = None) -> str:
            if keys:
                subprocess.run(["tmux", "-L", socket, "send-keys", *keys], check=True)
            ends, text = time.monotonic() + 15, ""
            while time.monotonic() < ends:
                text = subprocess.run(
                    ["tmux", "-L", socket, "capture-pane", "-p"],
                    capture_output=True,
                    text=True,
                    check=True,
                ).stdout
                if all(w in text for w in want) and (gone is None or gone not in text):
                    return text
                time.sleep(0.1)
            raise AssertionError(f"the screen never showed {want} (without {gone!r}):\n{text}")

        return screen

    yield start
    subprocess.run(["tmux", "-L", socket, "kill-server"], check=False, capture_output=True)


def test_results_follow_the_typing_and_enter_shows_the_session(
    indexed: Path, terminal: Callable[[str], Screen]
) -> None:
    screen = terminal("pick")
    first = screen("search:", "Payments retry policy", "Add a health endpoint", "Esc quit")
    assert "nightly report" in first  # nothing typed: the latest sessions
    typed = screen("search: retr", gone="Add a health endpoint", keys=["retr"])
    assert "Payments retry policy" in typed
    assert "claude · /home/demo/payments" in typed  # the preview of the one left
    assert "── ▶ #3 assistant" in typed  # the matched message, marked
    shown = screen("EXIT=0", keys=["Enter"])
    assert "(#0–#2 above: recall show d3m0c1a0-0000-4000-8000-000000000001)" in shown
    assert "── #3 assistant" in shown and "search:" not in shown


def test_ctrl_r_resumes_the_session_in_its_agent_and_folder(
    indexed: Path, terminal: Callable[[str], Screen], tmp_path: Path
) -> None:
    screen = terminal("search -i zebraf")
    screen("make the zebrafish webhook idempotent", "0c117353")
    screen("EXIT=0", keys=["C-r"])
    assert (tmp_path / "ran.txt").read_text() == f"{indexed}|--resume {SID}"


def test_arrows_move_the_preview_and_escape_leaves_without_output(
    indexed: Path, terminal: Callable[[str], Screen]
) -> None:
    screen = terminal("pick")
    before = screen("Esc quit", "session 3f2ad3m0")  # the newest first
    assert "session 0199d3m0" not in before
    screen("session 0199d3m0", "Our nightly report takes 40 minutes", keys=["Down"])
    done = screen("EXIT=0", keys=["Escape"])
    assert done.strip().splitlines() == ["EXIT=0"]


def test_without_prompt_toolkit_or_a_terminal_pick_says_so(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "prompt_toolkit", None)
    code, out, err = call(capsys, "pick", "retry")
    assert code == 2 and out == ""
    assert "needs prompt_toolkit: pipx install 'recall-sessions[pick]'" in err
    monkeypatch.undo()
    pytest.importorskip("prompt_toolkit")
    code, _, err = call(capsys, "search", "-i", "retry")
    assert code == 2 and "needs a terminal; in a pipe use `recall search`" in err
