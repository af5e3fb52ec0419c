"""Setup touches only the entries recall wrote (issue 21, item 6).

A hook a user wrote that happens to run recall (`RECALL_HOME=… recall ingest
…`, a wrapper, a redirect) is theirs: install leaves it as it is and does
not add a second one beside it, uninstall leaves it in place.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from clihelp import call
from recall.setup.commands import executable

PROGRAM = " ".join(executable())
MINE = [
    "RECALL_HOME=/data/work-index recall ingest --event agent-stop",
    "recall ingest --event agent-stop >> ~/recall-hook.log 2>&1",
    "~/bin/notify.sh && recall context --event session-start --format claude",
]


def _settings() -> Path:
    return Path.home() / ".claude" / "settings.json"


def _commands(event: str) -> list[str]:
    data = json.loads(_settings().read_text())
    return [h["command"] for g in data.get("hooks", {}).get(event, []) for h in g["hooks"]]


def _write(hooks: dict[str, list[str]]) -> bytes:
    data = {
        "model": "opus",
        "hooks": {
            event: [{"hooks": [{"type": "command", "command": c}]} for c in commands]
            for event, commands in hooks.items()
        },
    }
    _settings().parent.mkdir(parents=True, exist_ok=True)
    raw = (json.dumps(data, indent=2) + "\n").encode()
    _settings().write_bytes(raw)
    return raw


@pytest.mark.parametrize("command", MINE[:2])
def test_install_keeps_a_users_own_recall_hook_as_it_is(
    command: str, capsys: pytest.CaptureFixture[str]
) -> None:
    _write({"Stop": [command]})
    code, out, err = call(capsys, "hooks", "install", "--agent", "claude")
    assert code == 0, err
    assert _commands("Stop") == [command]  # kept word for word, and not doubled
    assert "left as is" in out and command in out
    assert _commands("SessionEnd") == [f"{PROGRAM} ingest --event session-closed"]


def test_uninstall_removes_only_what_recall_wrote(capsys: pytest.CaptureFixture[str]) -> None:
    _write({"Stop": [MINE[0]], "SessionStart": [MINE[2]], "PostToolUse": [MINE[1]]})
    assert call(capsys, "hooks", "install", "--agent", "claude", "--context")[0] == 0
    assert _commands("SessionStart") == [MINE[2]]  # it does the job already
    assert _commands("UserPromptSubmit") == [
        f"{PROGRAM} context --event prompt-submit --format claude"
    ]
    data = json.loads(_settings().read_text())
    data["theme"] = "dark"  # an edit after install: uninstall cannot restore the bytes
    _settings().write_text(json.dumps(data, indent=2) + "\n")
    code, _, err = call(capsys, "hooks", "uninstall", "--agent", "claude")
    assert code == 0, err
    after = json.loads(_settings().read_text())
    assert after["hooks"] == {
        "Stop": [{"hooks": [{"type": "command", "command": MINE[0]}]}],
        "SessionStart": [{"hooks": [{"type": "command", "command": MINE[2]}]}],
        "PostToolUse": [{"hooks": [{"type": "command", "command": MINE[1]}]}],
    }


def test_uninstall_never_empties_a_file_of_user_hooks(capsys: pytest.CaptureFixture[str]) -> None:
    """The reported case: every hook mentions recall, none was written by it."""
    raw = _write({"Stop": [MINE[0]], "PostToolUse": [MINE[1]], "SessionStart": [MINE[2]]})
    code, out, _ = call(capsys, "hooks", "uninstall", "--agent", "claude")
    assert code == 0
    assert _settings().read_bytes() == raw
    assert "nothing to change" in out


def test_what_recall_wrote_is_still_updated_and_removed(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """An older recall's exact command (another path) is recall's: updated, then removed."""
    _write({"Stop": ["/old/venv/bin/recall ingest --event agent-stop"]})
    assert call(capsys, "hooks", "install", "--agent", "claude")[0] == 0
    assert _commands("Stop") == [f"{PROGRAM} ingest --event agent-stop"]
    assert call(capsys, "hooks", "uninstall", "--agent", "claude")[0] == 0
    assert "Stop" not in json.loads(_settings().read_text()).get("hooks", {})


def test_an_mcp_server_named_recall_that_only_mentions_it_is_not_taken(
    capsys: pytest.CaptureFixture[str],
) -> None:
    path = Path.home() / ".gemini" / "settings.json"
    path.parent.mkdir(parents=True)
    server = {"command": "sh", "args": ["-c", "RECALL_HOME=/x exec recall mcp"]}
    raw = json.dumps({"mcpServers": {"recall": server}}, indent=2) + "\n"
    path.write_text(raw)
    code, _, err = call(capsys, "hooks", "install", "--agent", "gemini")
    assert code == 1 and 'MCP server named "recall"' in err
    assert path.read_text() == raw
    code, _, _ = call(capsys, "hooks", "uninstall", "--agent", "gemini")
    assert path.read_text() == raw


def test_status_counts_a_users_own_hook_and_finds_nothing_broken(
    capsys: pytest.CaptureFixture[str],
) -> None:
    _write({"Stop": [MINE[0]], "SessionEnd": [f"{PROGRAM} ingest --event session-closed"]})
    code, out, _ = call(capsys, "hooks", "status", "--agent", "claude", "--json")
    assert code == 0
    (status,) = json.loads(out)
    assert status["missing"] == [] and status["broken"] == []
    assert "Stop: ingest --event agent-stop" in status["hooks"]
