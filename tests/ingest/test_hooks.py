"""Agent hooks: every real payload shape indexes its transcript; bad input never breaks the agent."""

from __future__ import annotations

import json
import os
import shutil
import time
from pathlib import Path

import pytest

from clihelp import call, call_json, run

VIEWER = "claude/claude-code-viewer/sample-project"
# Where each payload's transcript comes from among the shared fixtures.
TRANSCRIPT_FOR = {
    "5c0375b4-57a5-4f26-b12d-d022ee4e51b7.jsonl": f"{VIEWER}/5c0375b4-57a5-4f26-b12d-d022ee4e51b7.jsonl",
    "0a1b2c3d-4e5f-4061-8071-2a3b4c5d6e7f.jsonl": "claude/agent-sessions/subagent/0a1b2c3d-4e5f-4061-8071-2a3b4c5d6e7f.jsonl",
    "rollout-2026-01-02T03-04-05-0199a213-81c0-7800-8aa1-bbab2a035a53.jsonl": "codex/agent-sessions/large.jsonl",
    "session-2026-04-20T10-15-3f2a9c1e.jsonl": "gemini/agent-sessions/jsonl_v040.jsonl",
}
STDIN_PAYLOADS = [
    "claude-stop.json",
    "claude-session-end.json",
    "claude-session-start.json",
    "claude-user-prompt-submit.json",
    "codex-stop.json",
    "gemini-after-agent.json",
]


def _place(payload: dict[str, object], transcripts: Path) -> Path:
    """Copy the fixture transcript to where the payload says it lives (under the test HOME)."""
    target = Path(os.path.expanduser(str(payload["transcript_path"])))
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy(transcripts / TRANSCRIPT_FOR[target.name], target)
    return target


@pytest.mark.parametrize("name", STDIN_PAYLOADS)
def test_stdin_payload_indexes_the_transcript(
    name: str, hook_payloads: Path, transcripts: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    raw = (hook_payloads / name).read_bytes()
    _place(json.loads(raw), transcripts)
    proc = run("ingest", "--event", "agent-stop", stdin=raw)
    assert proc.returncode == 0 and proc.stdout == b"", proc.stderr
    status = call_json(capsys, "status")["index"]
    assert status["sessions"] >= 1 and status["messages"] >= 1


def test_codex_notify_payload_in_argv(
    hook_payloads: Path, transcripts: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    codex_stop = json.loads((hook_payloads / "codex-stop.json").read_bytes())
    _place(codex_stop, transcripts)  # the rollout file of the same thread
    notify = (hook_payloads / "codex-notify-argv.json").read_text()
    proc = run("ingest", "--event", "agent-stop", notify)
    assert proc.returncode == 0 and proc.stdout == b"", proc.stderr
    out = call_json(capsys, "search", "Acknowledged")
    assert [r["agent"] for r in out["results"]] == ["codex"]


def test_session_closed_event(
    hook_payloads: Path, transcripts: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    raw = (hook_payloads / "claude-session-end.json").read_bytes()
    _place(json.loads(raw), transcripts)
    proc = run("ingest", "--event", "session-closed", stdin=raw)
    assert proc.returncode == 0 and proc.stdout == b""
    # the hook returned at once; a detached process does the ingest
    deadline = time.monotonic() + 60
    while call(capsys, "show", "5c0375b4")[0] != 0 and time.monotonic() < deadline:
        time.sleep(0.2)
    shown = call_json(capsys, "show", "5c0375b4")
    assert shown["project"] == "/path/to/Demo" and shown["messages"]


GARBAGE = [
    b"",
    b"   ",
    b"not json",
    b"[]",
    b'"a string"',
    b"\xff\xfe\x00binary\x00",
    b'{"transcript_path": 5}',
    b'{"transcript_path": "/no/such/file.jsonl"}',
    b'{"session_id": "x"}',
    b'{"transcript_path": "/etc"}',
    b'{"transcript_path": "~/x.jsonl", "hook_event_name": "Stop"}',
    b"{" * 100_000,
]


@pytest.mark.parametrize("raw", GARBAGE, ids=range(len(GARBAGE)))
def test_garbage_payload_never_breaks_the_agent(
    raw: bytes,
    recall_home: Path,
    hook_payloads: Path,
    transcripts: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    good = (hook_payloads / "claude-stop.json").read_bytes()
    _place(json.loads(good), transcripts)
    assert run("ingest", "--event", "agent-stop", stdin=good).returncode == 0
    before = call_json(capsys, "show", "5c0375b4")
    proc = run("ingest", "--event", "agent-stop", stdin=raw)
    assert proc.returncode == 0 and proc.stdout == b"" and proc.stderr == b""
    assert (recall_home / "recall.log").read_text().strip()
    assert call_json(capsys, "show", "5c0375b4") == before


def test_garbage_transcript_never_breaks_the_agent(
    tmp_path: Path, recall_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = tmp_path / "projects" / "-x" / "bad.jsonl"
    bad.parent.mkdir(parents=True)
    bad.write_bytes(os.urandom(4096) + b'\n\x00\x01{"type": "user"')
    payload = json.dumps(
        {"session_id": "bad", "transcript_path": str(bad), "hook_event_name": "Stop"}
    ).encode()
    proc = run("ingest", "--event", "agent-stop", "--agent", "claude", stdin=payload)
    assert proc.returncode == 0 and proc.stdout == b"" and proc.stderr == b""
