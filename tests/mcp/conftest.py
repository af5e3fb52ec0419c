"""An index for the MCP tests: a few short sessions and one long one (many pages)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from clihelp import call

LONG_MESSAGES = 240
"""Each ~600 characters: ~150k characters in all, several show_session pages."""


@pytest.fixture
def indexed(recall_home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    lines = [
        {
            "session": "pay-1",
            "role": "user",
            "text": "how should the payments service retry kafka",
            "project": "/work/payments",
            "agent": "claude",
            "timestamp": "2026-03-01T10:00:00Z",
        },
        {
            "session": "pay-1",
            "role": "assistant",
            "text": "exponential backoff with a retry budget",
            "project": "/work/payments",
            "agent": "claude",
            "timestamp": "2026-03-01T10:01:00Z",
        },
        {
            "session": "web-2",
            "role": "user",
            "text": "add a health endpoint to the web app",
            "project": "/work/web",
            "agent": "gemini",
            "timestamp": "2026-04-20T09:00:00Z",
        },
        {
            "session": "web-2",
            "role": "assistant",
            "text": "Added GET /healthz with a retry check.",
            "project": "/work/web",
            "agent": "gemini",
            "timestamp": "2026-04-20T09:01:00Z",
        },
    ]
    for i in range(LONG_MESSAGES):
        lines.append(
            {
                "session": "long-3",
                "role": "user" if i % 2 == 0 else "assistant",
                "text": f"step {i}: " + ("the migration of the ledger tables continues " * 13),
                "project": "/work/ledger",
                "agent": "codex",
                "timestamp": f"2026-05-0{1 + i % 9}T08:00:00Z",
            }
        )
    src = tmp_path / "import.jsonl"
    src.write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")
    code, _, err = call(capsys, "ingest", "--format", "jsonl", str(src))
    assert code == 0, err
    return recall_home
