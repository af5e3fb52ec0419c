"""`recall show` takes every way text output names a session: an id, a unique prefix,
and a sub-agent's short form `prefix:child` (what `search` prints in brackets)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from clihelp import call, call_json


@pytest.fixture
def sessions(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src = tmp_path / "chats.jsonl"
    rows = [
        {"session": sid, "agent": "claude", "role": "user", "text": f"{word} talk"}
        for sid, word in (
            ("5c0375b4-aaaa-bbbb", "parent"),
            ("5c0375b4-aaaa-bbbb:sidechain", "walrus"),
            ("77777777-cccc:sidechain", "narwhal"),
        )
    ]
    src.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    assert call(capsys, "ingest", "--format", "jsonl", str(src))[0] == 0


def test_the_short_sub_agent_id_search_prints_resolves(
    sessions: None, capsys: pytest.CaptureFixture[str]
) -> None:
    shown = call_json(capsys, "show", "5c0375b4:sidechain")
    assert shown["session_id"] == "5c0375b4-aaaa-bbbb:sidechain"
    assert call_json(capsys, "show", "7777:sidechain")["session_id"] == "77777777-cccc:sidechain"
    code, _, err = call(capsys, "show", "5c0375b4:other")
    assert code == 1 and "no session matches" in err
    code, _, err = call(capsys, "show", "5c0375b4:side")  # the child part is whole, not a prefix
    assert code == 1 and "no session matches" in err


def test_agent_matches_in_any_case_and_an_unknown_one_is_a_usage_error(
    sessions: None, capsys: pytest.CaptureFixture[str]
) -> None:
    assert call_json(capsys, "show", "--agent", "Claude", "5c0375b4-aaaa-bbbb")["agent"] == "claude"
    code, out, _ = call(capsys, "forget", "--dry-run", "--agent", "CLAUDE", "77777777")
    assert code == 0 and "77777777-cccc:sidechain" in out
    for argv in (
        ("show", "--agent", "bogus", "5c0375b4"),
        ("forget", "--dry-run", "--agent", "bogus", "5c0375b4"),
        ("sync", "--agent", "bogus"),
    ):
        code, _, err = call(capsys, *argv)
        assert code == 2 and "unknown agent 'bogus'" in err
        assert all(
            f"{a}," in err or f"{a})" in err
            for a in ("claude", "codex", "cursor", "opencode", "gemini", "pi")
        )
    code, _, err = call(capsys, "sync", "--agent", "CLAUDE", "--no-embed")
    assert "unknown agent" not in err
