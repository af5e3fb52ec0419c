"""`recall setup` / `recall hooks` for Copilot CLI, Qwen Code, Crush, Continue and Goose.

Copilot CLI gets its MCP server (`~/.copilot/mcp-config.json`) and a Stop hook
in a file of recall's own (`~/.copilot/hooks/recall.json`); Qwen Code hooks
and the MCP server in `~/.qwen/settings.json`; Crush its server under `mcp`
in `crush.json`; Continue a file of recall's own in `~/.continue/mcpServers/`;
Goose an extension in `config.yaml`, edited as lines. The guarantees are the
first agents': a diff, idempotent, byte for byte back, the user's entries kept.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import yaml

from clihelp import call, call_json, run
from recall.setup.commands import executable

SAMPLES = Path(__file__).parent / "samples"
PROGRAM = executable()
SERVER = {"command": PROGRAM[0], "args": [*PROGRAM[1:], "mcp"]}
PLACES = {
    "copilot": [("copilot-mcp-config.json", ".copilot/mcp-config.json")],
    "qwen": [("qwen-settings.json", ".qwen/settings.json")],
    "crush": [("crush.json", ".config/crush/crush.json")],
    "goose": [("goose-config.yaml", ".config/goose/config.yaml")],
}


def _place(agent: str) -> dict[Path, bytes]:
    placed = {}
    for sample, rel in PLACES.get(agent, []):
        target = Path.home() / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(SAMPLES / sample, target)
        placed[target] = target.read_bytes()
    if agent == "continue":
        (Path.home() / ".continue").mkdir()
    return placed


def _goose(text: str) -> Path:
    path = Path.home() / ".config/goose/config.yaml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(text.encode("utf-8"))
    return path


@pytest.mark.parametrize("agent", ["copilot", "qwen", "crush", "continue", "goose"])
def test_install_twice_then_uninstall_gives_the_files_back(
    agent: str, capsys: pytest.CaptureFixture[str]
) -> None:
    original = _place(agent)
    code, out, err = call(capsys, "hooks", "install", "--agent", agent)
    assert code == 0, err
    assert f"{agent}: wrote" in out and "+" in out
    assert all(p.read_bytes() != raw for p, raw in original.items())
    status = call_json(capsys, "hooks", "status", "--agent", agent, "--json")[0]
    assert status["installed"] and status["mcp"] and not status["broken"], status
    assert not status["missing"], status
    written = {p: p.read_bytes() for p in Path.home().rglob("*") if p.is_file()}
    code, out, _ = call(capsys, "hooks", "install", "--agent", agent)
    assert code == 0 and f"{agent}: nothing to change" in out
    assert {p: p.read_bytes() for p in Path.home().rglob("*") if p.is_file()} == written
    code, out, _ = call(capsys, "hooks", "uninstall", "--agent", agent)
    assert code == 0
    for path, raw in original.items():
        assert path.read_bytes() == raw, path
    left = {p for p in Path.home().rglob("*") if p.is_file()}
    assert left == set(original), left  # files recall created are gone


def test_what_each_agent_is_given(capsys: pytest.CaptureFixture[str]) -> None:
    for agent in ("copilot", "qwen", "crush", "continue", "goose"):
        _place(agent)
    code, out, err = call(capsys, "hooks", "install", "--context")
    assert code == 0, err
    home = Path.home()
    copilot = json.loads((home / ".copilot/mcp-config.json").read_text())["mcpServers"]
    assert copilot["recall"] == {"type": "local", **SERVER, "tools": ["*"]}
    assert "playwright" in copilot
    hooks = json.loads((home / ".copilot/hooks/recall.json").read_text())
    assert hooks == {
        "version": 1,
        "hooks": {
            "Stop": [
                {
                    "type": "command",
                    "command": " ".join([*PROGRAM, "ingest", "--event", "agent-stop"]),
                    "timeoutSec": 30,
                }
            ]
        },
    }
    qwen = json.loads((home / ".qwen/settings.json").read_text())
    assert qwen["mcpServers"]["recall"] == SERVER and "context7" in qwen["mcpServers"]
    assert qwen["model"] == {"name": "qwen3-coder-plus"}
    assert qwen["hooks"]["PreToolUse"][0]["matcher"] == "^run_shell_command$"
    commands = {e: g[-1]["hooks"][0] for e, g in qwen["hooks"].items()}
    assert commands["Stop"]["timeout"] == 30_000  # Qwen Code counts milliseconds
    assert commands["SessionEnd"]["command"].endswith("ingest --event session-closed")
    assert commands["SessionStart"]["command"].endswith(
        "context --event session-start --format qwen"
    )
    assert commands["UserPromptSubmit"]["timeout"] == 5_000
    crush = json.loads((home / ".config/crush/crush.json").read_text())
    assert crush["mcp"]["recall"] == {"type": "stdio", **SERVER}
    assert set(crush["mcp"]) == {"filesystem", "recall"}
    assert "mcpServers" not in crush
    cont = json.loads((home / ".continue/mcpServers/recall.json").read_text())
    assert cont == {"mcpServers": {"recall": SERVER}}  # the Claude Desktop shape it reads
    goose = yaml.safe_load((home / ".config/goose/config.yaml").read_text())
    entry = goose["extensions"]["recall"]
    assert entry["type"] == "stdio" and entry["enabled"] is True and entry["name"] == "recall"
    assert entry["cmd"] == PROGRAM[0] and entry["args"] == [*PROGRAM[1:], "mcp"]
    assert set(goose["extensions"]) == {"recall", "developer", "github"}
    assert goose["GOOSE_MODE"] == "smart_approve"
    # agents without hooks recall can use say so
    assert "Goose has no hooks" in out and "Continue has no hooks" in out
    assert "Crush: restart it to load the MCP server. Its hooks name no transcript" in out


def test_qwen_context_hook_answers_in_the_shape_qwen_reads(
    capsys: pytest.CaptureFixture[str],
) -> None:
    call(capsys, "remember", "the staging database is called orchid")
    payload = json.dumps({"hook_event_name": "SessionStart", "cwd": str(Path.home())})
    proc = run("context", "--event", "session-start", "--format", "qwen", stdin=payload.encode())
    assert proc.returncode == 0, proc.stderr
    if proc.stdout.strip():
        out = json.loads(proc.stdout)
        assert out["hookSpecificOutput"]["hookEventName"] == "SessionStart"
        assert isinstance(out["hookSpecificOutput"]["additionalContext"], str)


def test_copilot_stop_payload_indexes_its_session(
    transcripts: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The payload Copilot CLI sends a PascalCase `Stop` hook (docs: hooks reference)."""
    events = Path.home() / ".copilot/session-state/5b0c7c2e/events.jsonl"
    events.parent.mkdir(parents=True)
    shutil.copyfile(transcripts / "copilot/agent-sessions/small.jsonl", events)
    payload = {
        "hook_event_name": "Stop",
        "session_id": "5b0c7c2e",
        "timestamp": "2026-09-01T10:00:09.000Z",
        "cwd": "/tmp/repo",
        "transcript_path": str(events),
        "stop_reason": "end_turn",
        "stop_hook_active": False,
    }
    proc = run("ingest", "--event", "agent-stop", stdin=json.dumps(payload).encode())
    assert proc.returncode == 0 and proc.stdout == b"", proc.stderr
    agents = call_json(capsys, "status")["index"]["agents"]
    copilot = next(a for a in agents if a["agent"] == "copilot")
    assert copilot["sessions"] >= 1 and copilot["messages"] >= 1


def test_goose_entry_goose_rewrote_is_updated_in_place_when_recall_moved(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Goose writes its config back with serde_yaml (keys sorted, `- item` lists): recall's
    entry in that shape is still recall's, updated where it is, removed whole."""
    text = (
        "extensions:\n"
        "  recall:\n"
        "    args:\n"
        "    - mcp\n"
        "    bundled: null\n"
        "    cmd: /old/venv/bin/recall\n"
        "    description: search your past agent sessions (recall)\n"
        "    enabled: true\n"
        "    env_keys: []\n"
        "    envs:\n"
        "      RECALL_HOME: /data/recall\n"
        "    name: recall\n"
        "    timeout: 300\n"
        "    type: stdio\n"
        "  memory:\n"
        "    bundled: true\n"
        "    enabled: true\n"
        "    name: memory\n"
        "    type: builtin\n"
    )
    path = _goose(text)
    status = call_json(capsys, "hooks", "status", "--agent", "goose", "--json")[0]
    assert status["mcp"] and status["broken"] == ["/old/venv/bin/recall mcp"]
    code, _, err = call(capsys, "hooks", "install", "--agent", "goose")
    assert code == 0, err
    data = yaml.safe_load(path.read_text())["extensions"]
    assert data["recall"]["cmd"] == PROGRAM[0] and data["memory"]["type"] == "builtin"
    assert "/old/venv" not in path.read_text()
    code, _, err = call(capsys, "hooks", "uninstall", "--agent", "goose")
    assert code == 0, err
    assert yaml.safe_load(path.read_text()) == {
        "extensions": {
            "memory": {"bundled": True, "enabled": True, "name": "memory", "type": "builtin"}
        }
    }


def test_goose_without_extensions_gets_them_and_loses_them_byte_for_byte(
    capsys: pytest.CaptureFixture[str],
) -> None:
    text = "GOOSE_PROVIDER: openai  # work account\nGOOSE_MODEL: gpt-5"  # no final newline
    path = _goose(text)
    code, _, err = call(capsys, "hooks", "install", "--agent", "goose")
    assert code == 0, err
    data = yaml.safe_load(path.read_text())
    assert data["GOOSE_MODEL"] == "gpt-5" and data["extensions"]["recall"]["cmd"] == PROGRAM[0]
    code, out, _ = call(capsys, "hooks", "uninstall", "--agent", "goose")
    assert code == 0 and "restored byte for byte" in out
    assert path.read_bytes() == text.encode()


def test_goose_empty_extensions_mapping_takes_recall(
    capsys: pytest.CaptureFixture[str],
) -> None:
    path = _goose("extensions: {}\nGOOSE_MODE: auto\n")
    code, _, err = call(capsys, "hooks", "install", "--agent", "goose")
    assert code == 0, err
    data = yaml.safe_load(path.read_text())
    assert list(data["extensions"]) == ["recall"] and data["GOOSE_MODE"] == "auto"


def test_goose_dry_run_writes_nothing(capsys: pytest.CaptureFixture[str]) -> None:
    original = _place("goose")
    code, out, _ = call(capsys, "hooks", "install", "--agent", "goose", "--dry-run")
    assert code == 0 and "+  recall:" in out and "dry run, nothing written" in out
    assert {p: p.read_bytes() for p in original} == original


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("extensions:\n  recall:\n    cmd: npx\n    args: [my-recall]\n", "did not write"),
        ("extensions: {developer: {enabled: true}}\n", "not written as a block"),
        ("extensions:\n\trecall: {}\n", "tabs"),
    ],
)
def test_goose_files_recall_must_not_edit_are_left_alone(
    text: str, says: str, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _goose(text)
    code, _, err = call(capsys, "hooks", "install", "--agent", "goose")
    assert code == 1 and says in err and "Traceback" not in err
    assert path.read_bytes() == text.encode()


def test_goose_edited_meanwhile_keeps_the_users_change(
    capsys: pytest.CaptureFixture[str],
) -> None:
    _place("goose")
    path = Path.home() / ".config/goose/config.yaml"
    call(capsys, "hooks", "install", "--agent", "goose")
    path.write_bytes(path.read_bytes().replace(b"GOOSE_MODE: smart_approve", b"GOOSE_MODE: auto"))
    code, out, _ = call(capsys, "hooks", "uninstall", "--agent", "goose")
    assert code == 0 and "byte for byte" not in out
    expected = (SAMPLES / "goose-config.yaml").read_bytes()
    assert path.read_bytes() == expected.replace(b"smart_approve", b"auto")


def test_crush_config_folder_from_its_variable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "crush-config"
    folder.mkdir()
    monkeypatch.setenv("CRUSH_GLOBAL_CONFIG", str(folder))
    code, _, err = call(capsys, "hooks", "install", "--agent", "crush")
    assert code == 0, err
    data = json.loads((folder / "crush.json").read_text())
    assert data == {"mcp": {"recall": {"type": "stdio", **SERVER}}}


@pytest.mark.parametrize("action", ["install", "uninstall"])
def test_goose_config_saved_meanwhile_is_kept(
    action: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Goose rewrites config.yaml when its settings change: an edit made after setup read
    the file is never clobbered, as for the JSON files."""
    from recall.setup import apply

    _place("goose")
    path = Path.home() / ".config/goose/config.yaml"
    if action == "uninstall":
        assert call(capsys, "hooks", "install", "--agent", "goose")[0] == 0
    edited = path.read_bytes().replace(b"smart_approve", b"auto")
    real = apply.plan

    def then_edit(*args: object, **kwargs: object) -> object:
        done = real(*args, **kwargs)  # type: ignore[arg-type]
        path.write_bytes(edited)  # Goose saves the file now
        return done

    monkeypatch.setattr(apply, "plan", then_edit)
    code, _, err = call(capsys, "hooks", action, "--agent", "goose")
    assert code == 1 and "changed while recall was changing it" in err
    assert path.read_bytes() == edited


def test_goose_a_recall_setting_inside_another_extension_is_not_recalls(
    capsys: pytest.CaptureFixture[str],
) -> None:
    text = "extensions:\n  memo:\n    envs:\n      recall:\n        cmd: npx\n    type: stdio\n"
    path = _goose(text)
    code, _, err = call(capsys, "hooks", "install", "--agent", "goose")
    assert code == 0, err
    data = yaml.safe_load(path.read_text())["extensions"]
    assert data["recall"]["cmd"] == PROGRAM[0]
    assert data["memo"]["envs"] == {"recall": {"cmd": "npx"}}
    call(capsys, "hooks", "uninstall", "--agent", "goose")
    assert path.read_text() == text


@pytest.mark.parametrize(
    "text",
    [
        "[1, 2, 3]\n",
        '"just a string"\n',
        '{"mcpServers": {\n',
        "- developer\n- github\n",
        "GOOSE_MODE: auto\n---\nother: document\n",
    ],
)
def test_goose_file_that_is_no_block_mapping_is_left_alone(
    text: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """Appending `extensions:` to a list, a scalar, broken flow YAML or after a second
    document would leave a file Goose cannot read (or reads without recall)."""
    path = _goose(text)
    code, _, err = call(capsys, "hooks", "install", "--agent", "goose")
    assert code == 1 and "not hold a YAML mapping" in err and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1
    assert path.read_bytes() == text.encode()


def test_goose_recall_key_with_a_value_on_its_line_is_not_doubled(
    capsys: pytest.CaptureFixture[str],
) -> None:
    text = "extensions:\n  recall: 5\n"
    path = _goose(text)
    code, _, err = call(capsys, "hooks", "install", "--agent", "goose")
    assert code == 1 and "did not write" in err
    assert path.read_bytes() == text.encode()


@pytest.mark.parametrize("text", ["extensions: {}\nGOOSE_MODE: auto\n", "extensions: {}\n"])
def test_goose_empty_extensions_mapping_is_filled_not_repeated(
    text: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """A second top-level `extensions:` is a duplicate key (serde_yaml refuses the file)."""
    path = _goose(text)
    code, _, err = call(capsys, "hooks", "install", "--agent", "goose")
    assert code == 0, err
    written = path.read_text()
    assert sum(line.startswith("extensions") for line in written.splitlines()) == 1
    assert list(yaml.safe_load(written)["extensions"]) == ["recall"]
    code, _, err = call(capsys, "hooks", "uninstall", "--agent", "goose")
    assert code == 0, err
    assert path.read_bytes() == text.encode()
