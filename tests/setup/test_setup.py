"""`recall setup` / `recall hooks`: each agent's real settings format, kept as found.

The samples (tests/setup/samples/) are copied into the test's home; recall
must add only its own entries, change nothing on a second run, and give the
files back byte for byte on uninstall.
"""

from __future__ import annotations

import json
import shutil
import tomllib
from pathlib import Path

import pytest

from clihelp import call
from recall.setup.commands import executable

SAMPLES = Path(__file__).parent / "samples"
PLACES = {
    "claude": [("claude-settings.json", ".claude/settings.json"), ("claude.json", ".claude.json")],
    "codex": [
        ("codex-config.toml", ".codex/config.toml"),
        ("codex-hooks.json", ".codex/hooks.json"),
    ],
    "gemini": [("gemini-settings.json", ".gemini/settings.json")],
}


def _home() -> Path:
    return Path.home()


def _place(agent: str, only: tuple[str, ...] = ()) -> dict[Path, bytes]:
    """Copy the agent's samples into the home; returns each file's original bytes."""
    placed = {}
    for sample, rel in PLACES[agent]:
        if only and sample not in only:
            continue
        target = _home() / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(SAMPLES / sample, target)
        placed[target] = target.read_bytes()
    return placed


def _json(rel: str) -> dict[str, object]:
    return json.loads((_home() / rel).read_text(encoding="utf-8"))


def _commands(data: dict[str, object]) -> dict[str, list[str]]:
    hooks = data.get("hooks", {})
    assert isinstance(hooks, dict)
    return {
        event: [h["command"] for g in groups for h in g["hooks"]] for event, groups in hooks.items()
    }


PROGRAM = " ".join(executable())


@pytest.mark.parametrize("agent", ["claude", "codex", "gemini"])
def test_install_twice_then_uninstall_gives_the_files_back(
    agent: str, capsys: pytest.CaptureFixture[str]
) -> None:
    original = _place(agent)
    code, out, err = call(capsys, "hooks", "install", "--agent", agent, "--context")
    assert code == 0, err
    assert "+" in out and f"{agent}: wrote" in out  # the diff, then what was written
    written = {p: p.read_bytes() for p in original}
    assert written != original
    code, out, _ = call(capsys, "hooks", "install", "--agent", agent, "--context")
    assert code == 0 and f"{agent}: nothing to change" in out
    assert {p: p.read_bytes() for p in original} == written  # idempotent
    code, out, _ = call(capsys, "hooks", "uninstall", "--agent", agent)
    assert code == 0 and "restored byte for byte" in out
    for path, raw in original.items():
        assert path.read_bytes() == raw, path


def test_claude_gets_its_hooks_and_a_user_scope_mcp_server(
    capsys: pytest.CaptureFixture[str],
) -> None:
    _place("claude")
    before = _json(".claude/settings.json")
    assert call(capsys, "hooks", "install", "--agent", "claude")[0] == 0
    after = _json(".claude/settings.json")
    hooks = _commands(after)
    assert hooks["Stop"] == [
        "afplay /System/Library/Sounds/Glass.aiff",
        f"{PROGRAM} ingest --event agent-stop",
    ]
    assert hooks["SessionEnd"] == [f"{PROGRAM} ingest --event session-closed"]
    assert "UserPromptSubmit" not in hooks and "SessionStart" not in hooks  # context is opt-in
    assert {k: v for k, v in after.items() if k != "hooks"} == {
        k: v for k, v in before.items() if k != "hooks"
    }
    state = _json(".claude.json")
    servers = state["mcpServers"]
    assert isinstance(servers, dict) and set(servers) == {"github", "recall"}
    assert servers["recall"] == {
        "type": "stdio",
        "command": executable()[0],
        "args": [*executable()[1:], "mcp"],
    }
    raw = (_home() / ".claude.json").read_text(encoding="utf-8")
    assert "café-menu" in raw and not raw.endswith("\n")  # kept as Claude Code writes it


def test_codex_gets_hooks_json_and_an_mcp_table(capsys: pytest.CaptureFixture[str]) -> None:
    original = _place("codex", ("codex-config.toml",))
    assert call(capsys, "hooks", "install", "--agent", "codex", "--context")[0] == 0
    hooks = _commands(_json(".codex/hooks.json"))
    assert hooks == {
        "Stop": [f"{PROGRAM} ingest --event agent-stop"],
        "SessionStart": [f"{PROGRAM} context --event session-start --format codex"],
        "UserPromptSubmit": [f"{PROGRAM} context --event prompt-submit --format codex"],
    }
    config = _home() / ".codex" / "config.toml"
    text = config.read_text()
    assert text.startswith(original[config].decode())  # every byte of the user's file kept
    data = tomllib.loads(text)
    assert data["mcp_servers"]["recall"] == {
        "command": executable()[0],
        "args": [*executable()[1:], "mcp"],
    }
    assert data["mcp_servers"]["github"]["startup_timeout_sec"] == 20
    code, out, _ = call(capsys, "hooks", "uninstall", "--agent", "codex")
    assert code == 0 and "removed: recall had created it" in out
    assert not (_home() / ".codex" / "hooks.json").exists()
    assert config.read_bytes() == original[config]


def test_gemini_hooks_have_names_and_millisecond_timeouts(
    capsys: pytest.CaptureFixture[str],
) -> None:
    _place("gemini")
    assert call(capsys, "hooks", "install", "--agent", "gemini", "--context")[0] == 0
    data = _json(".gemini/settings.json")
    hooks = data["hooks"]
    assert isinstance(hooks, dict)
    after = hooks["AfterAgent"][0]["hooks"][0]
    assert after == {
        "name": "recall-ingest-agent-stop",
        "type": "command",
        "command": f"{PROGRAM} ingest --event agent-stop",
        "timeout": 30000,
    }
    assert _commands(data)["BeforeAgent"] == [
        f"{PROGRAM} context --event prompt-submit --format gemini"
    ]
    assert _commands(data)["BeforeTool"] == ["~/.gemini/hooks/guard.sh"]
    servers = data["mcpServers"]
    assert isinstance(servers, dict) and "filesystem" in servers and "recall" in servers


def test_a_malformed_file_is_reported_and_left_untouched(
    capsys: pytest.CaptureFixture[str],
) -> None:
    settings = _home() / ".claude" / "settings.json"
    settings.parent.mkdir(parents=True)
    broken = b'{\n  "model": "opus",\n  // my note\n  "hooks": {},\n}\n'
    settings.write_bytes(broken)
    code, out, err = call(capsys, "hooks", "install", "--agent", "claude")
    assert code == 1
    assert f"{settings} is not valid JSON" in err and "left untouched" in err
    assert settings.read_bytes() == broken
    assert "claude: wrote" in out and ".claude.json" in out  # the other file is still done


def test_a_foreign_mcp_server_named_recall_is_not_overwritten(
    capsys: pytest.CaptureFixture[str],
) -> None:
    path = _home() / ".gemini" / "settings.json"
    path.parent.mkdir(parents=True)
    mine = (
        '{\n  "mcpServers": {\n    "recall": {\n      "command": "my-notes-server"\n    }\n  }\n}\n'
    )
    path.write_text(mine)
    code, _, err = call(capsys, "hooks", "install", "--agent", "gemini")
    assert code == 1 and 'MCP server named "recall"' in err
    assert path.read_text() == mine


def test_an_older_recall_hook_is_updated_not_doubled(capsys: pytest.CaptureFixture[str]) -> None:
    path = _home() / ".claude" / "settings.json"
    path.parent.mkdir(parents=True)
    old = {
        "hooks": {
            "Stop": [
                {"hooks": [{"type": "command", "command": "recall ingest --event agent-stop"}]}
            ]
        }
    }
    path.write_text(json.dumps(old, indent=2))
    assert call(capsys, "hooks", "install", "--agent", "claude")[0] == 0
    assert _commands(_json(".claude/settings.json"))["Stop"] == [
        f"{PROGRAM} ingest --event agent-stop"
    ]


def test_user_edits_after_install_survive_uninstall(capsys: pytest.CaptureFixture[str]) -> None:
    _place("gemini")
    assert call(capsys, "hooks", "install", "--agent", "gemini")[0] == 0
    data = _json(".gemini/settings.json")
    data["ui"] = {"theme": "Dracula"}
    (_home() / ".gemini" / "settings.json").write_text(json.dumps(data, indent=2) + "\n")
    code, out, _ = call(capsys, "hooks", "uninstall", "--agent", "gemini")
    assert code == 0 and "restored" not in out
    after = _json(".gemini/settings.json")
    assert after["ui"] == {"theme": "Dracula"}
    assert "recall" not in after["mcpServers"] and "AfterAgent" not in after["hooks"]
    assert _commands(after)["BeforeTool"] == ["~/.gemini/hooks/guard.sh"]


def test_dry_run_writes_nothing_and_status_reports(capsys: pytest.CaptureFixture[str]) -> None:
    original = _place("claude")
    code, out, _ = call(capsys, "hooks", "install", "--agent", "claude", "--dry-run")
    assert code == 0 and "+" in out and "dry run, nothing written" in out
    assert {p: p.read_bytes() for p in original} == original
    code, out, _ = call(capsys, "hooks", "status", "--agent", "claude", "--json")
    (status,) = json.loads(out)
    assert status["installed"] and not status["mcp"] and status["hooks"] == []
    assert status["missing"] == [
        "Stop: ingest --event agent-stop",
        "SessionEnd: ingest --event session-closed",
    ]
    call(capsys, "hooks", "install", "--agent", "claude")
    code, out, _ = call(capsys, "hooks", "status", "--agent", "claude", "--json")
    (status,) = json.loads(out)
    assert status["mcp"] and status["missing"] == [] and status["broken"] == []


def test_setup_hooks_every_installed_agent_then_syncs(
    capsys: pytest.CaptureFixture[str], transcripts: Path
) -> None:
    _place("claude")
    _place("gemini")
    code, out, _ = call(capsys, "setup")
    assert code == 0
    assert (
        "claude: wrote" in out
        and "gemini: wrote" in out
        and "codex" not in out.split("Still to do")[0]
    )
    assert "Indexing what is already there" in out and "sessions updated" in out
    assert "Claude Code: restart" in out
    code, out, _ = call(capsys, "setup")
    assert "claude: nothing to change" in out and "gemini: nothing to change" in out


def test_hooks_name_recall_by_an_absolute_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import sys

    from recall.setup import commands

    script = tmp_path / "venv" / "bin" / "recall"
    script.parent.mkdir(parents=True)
    script.write_text("#!/bin/sh\n")
    script.chmod(0o755)
    monkeypatch.setattr(sys, "argv", [str(script), "setup"])
    assert commands.executable() == [str(script)]  # the console script being run
    monkeypatch.setattr(sys, "argv", ["/somewhere/recall/__main__.py", "setup"])
    monkeypatch.setenv("PATH", str(script.parent))
    assert commands.executable() == [str(script)]  # else the one on PATH
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    assert commands.executable() == [sys.executable, "-m", "recall"]  # else this Python
    assert commands.command_line(["/a b/recall"], "mcp") == "'/a b/recall' mcp"
    assert commands.action_of("'/a b/recall' ingest --event agent-stop") == "ingest"
    assert commands.action_of(["/usr/bin/python3", "-m", "recall", "mcp"]) == "mcp"
    assert commands.action_of("recall-notes ingest") is None


@pytest.mark.parametrize(
    ("agent", "rel", "raw"),
    [
        ("claude", ".claude/settings.json", b'{\r\n  "model": "opus"\r\n}\r\n'),
        ("claude", ".claude/settings.json", b'\xef\xbb\xbf{"model":"opus"}\n'),
        ("codex", ".codex/config.toml", b'model = "o3"\r\n[tui]\r\nx = 1\r\n'),
        ("codex", ".codex/config.toml", b'\xef\xbb\xbfmodel = "o3"\n'),
    ],
)
def test_line_endings_and_a_bom_survive_install_and_uninstall(
    agent: str, rel: str, raw: bytes, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _home() / rel
    path.parent.mkdir(parents=True)
    path.write_bytes(raw)
    assert call(capsys, "hooks", "install", "--agent", agent)[0] == 0
    installed = path.read_bytes()
    assert installed.startswith(b"\xef\xbb\xbf") == raw.startswith(b"\xef\xbb\xbf")
    if b"\r\n" in raw:
        assert b"\n" not in installed.replace(b"\r\n", b"")  # every line ends CRLF
    code, out, _ = call(capsys, "hooks", "uninstall", "--agent", agent)
    assert code == 0 and "restored byte for byte" in out
    assert path.read_bytes() == raw


def test_a_symlinked_settings_file_stays_a_link(capsys: pytest.CaptureFixture[str]) -> None:
    dotfiles = _home() / "dotfiles" / "claude-settings.json"
    dotfiles.parent.mkdir(parents=True)
    dotfiles.write_bytes(b'{\n  "model": "opus"\n}\n')
    link = _home() / ".claude" / "settings.json"
    link.parent.mkdir(parents=True)
    link.symlink_to(dotfiles)
    assert call(capsys, "hooks", "install", "--agent", "claude")[0] == 0
    assert link.is_symlink() and "hooks" in json.loads(dotfiles.read_text())
    assert call(capsys, "hooks", "uninstall", "--agent", "claude")[0] == 0
    assert link.is_symlink() and dotfiles.read_bytes() == b'{\n  "model": "opus"\n}\n'


@pytest.mark.parametrize("number", [b"1e999", b"-1e999"])
def test_a_number_json_cannot_write_back_leaves_the_file_untouched(
    number: bytes, capsys: pytest.CaptureFixture[str]
) -> None:
    settings = _home() / ".claude" / "settings.json"
    settings.parent.mkdir(parents=True)
    raw = b'{"model": "opus", "x": ' + number + b"}\n"
    settings.write_bytes(raw)
    code, _, err = call(capsys, "hooks", "install", "--agent", "claude")
    assert code == 1 and "could not write back as JSON; left untouched" in err
    assert settings.read_bytes() == raw


@pytest.mark.parametrize("agent", ["claude", "codex", "gemini"])
def test_uninstall_context_removes_only_the_context_hooks(
    agent: str, capsys: pytest.CaptureFixture[str]
) -> None:
    original = _place(agent)
    assert call(capsys, "hooks", "install", "--agent", agent)[0] == 0
    without_context = {p: p.read_bytes() for p in original}
    assert call(capsys, "hooks", "uninstall", "--agent", agent)[0] == 0
    assert call(capsys, "hooks", "install", "--agent", agent, "--context")[0] == 0
    code, _, err = call(capsys, "hooks", "uninstall", "--agent", agent, "--context")
    assert code == 0, err
    assert {p: p.read_bytes() for p in original} == without_context  # indexing and MCP stay
    status = call(capsys, "hooks", "status", "--agent", agent)[1]
    assert "ingest --event agent-stop" in status and "context --event" not in status
    code, _out, _ = call(capsys, "hooks", "uninstall", "--agent", agent)
    assert code == 0
    for path, raw in original.items():
        assert path.read_bytes() == raw, path
