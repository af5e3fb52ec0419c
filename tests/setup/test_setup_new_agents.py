"""`recall setup` / `recall hooks` for Cursor, OpenCode, Cline and Roo Code (issue 24).

Cursor gets its MCP server (`~/.cursor/mcp.json`) and a `stop` hook
(`~/.cursor/hooks.json`, whose event lists hold the entries themselves);
OpenCode its MCP server in a config that may be JSONC, edited as text; Cline
and Roo Code their MCP server in each editor's extension settings. The same
guarantees as the first three: a diff, idempotent, byte for byte back.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from clihelp import call, call_json
from recall.setup import jsonc
from recall.setup.commands import executable

SAMPLES = Path(__file__).parent / "samples"
PROGRAM = executable()
STORAGE = Path(".config/Code/User/globalStorage")
CLINE = STORAGE / "saoudrizwan.claude-dev/settings/cline_mcp_settings.json"
ROO = STORAGE / "rooveterinaryinc.roo-cline/settings/mcp_settings.json"
PLACES = {
    "cursor": [
        ("cursor-mcp.json", ".cursor/mcp.json"),
        ("cursor-hooks.json", ".cursor/hooks.json"),
    ],
    "opencode": [("opencode.jsonc", ".config/opencode/opencode.jsonc")],
    "cline": [("cline_mcp_settings.json", str(CLINE))],
    "roo": [("roo-mcp_settings.json", str(ROO))],
}


def _place(agent: str) -> dict[Path, bytes]:
    placed = {}
    for sample, rel in PLACES[agent]:
        target = Path.home() / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(SAMPLES / sample, target)
        placed[target] = target.read_bytes()
    return placed


def _opencode(text: str | None = None) -> Path:
    path = Path.home() / ".config" / "opencode" / "opencode.jsonc"
    path.parent.mkdir(parents=True, exist_ok=True)
    if text is not None:
        path.write_text(text, encoding="utf-8", newline="")
    return path


@pytest.mark.parametrize("agent", ["cursor", "opencode", "cline", "roo"])
def test_install_twice_then_uninstall_gives_the_files_back(
    agent: str, capsys: pytest.CaptureFixture[str]
) -> None:
    original = _place(agent)
    code, out, err = call(capsys, "hooks", "install", "--agent", agent)
    assert code == 0, err
    assert f"{agent}: wrote" in out and "+" in out
    written = {p: p.read_bytes() for p in original}
    assert all(written[p] != original[p] for p in original)
    status = call_json(capsys, "hooks", "status", "--agent", agent, "--json")[0]
    assert status["installed"] and status["mcp"] and not status["broken"], status
    code, out, _ = call(capsys, "hooks", "install", "--agent", agent)
    assert code == 0 and f"{agent}: nothing to change" in out
    assert {p: p.read_bytes() for p in original} == written
    code, out, _ = call(capsys, "hooks", "uninstall", "--agent", agent)
    assert code == 0 and "restored byte for byte" in out
    for path, raw in original.items():
        assert path.read_bytes() == raw, path


def test_what_each_agent_is_given(capsys: pytest.CaptureFixture[str]) -> None:
    for agent in PLACES:
        _place(agent)
    code, _, err = call(capsys, "hooks", "install")  # every agent found installed
    assert code == 0, err
    home = Path.home()
    mcp = json.loads((home / ".cursor/mcp.json").read_text())["mcpServers"]
    assert mcp["recall"] == {"command": PROGRAM[0], "args": [*PROGRAM[1:], "mcp"]}
    assert set(mcp) == {"github", "linear", "recall"}
    hooks = json.loads((home / ".cursor/hooks.json").read_text())
    assert hooks["version"] == 1
    assert hooks["hooks"]["stop"][-1] == {
        "command": " ".join([*PROGRAM, "ingest", "--event", "agent-stop"])
    }
    assert hooks["hooks"]["stop"][0] == {"command": "./hooks/audit.sh", "loop_limit": 3}
    config = jsonc.parse(home, _opencode().read_text(encoding="utf-8"))
    assert config["mcp"]["recall"] == {
        "type": "local",
        "command": [*PROGRAM, "mcp"],
        "enabled": True,
    }
    assert "context7" in config["mcp"]
    for rel in (CLINE, ROO):
        servers = json.loads((home / rel).read_text())["mcpServers"]
        assert servers["recall"] == {
            "type": "stdio",
            "command": PROGRAM[0],
            "args": [*PROGRAM[1:], "mcp"],
        }


def test_opencode_comments_and_other_changes_outlive_an_uninstall(
    capsys: pytest.CaptureFixture[str],
) -> None:
    _place("opencode")
    path = _opencode()
    call(capsys, "hooks", "install", "--agent", "opencode")
    text = path.read_bytes().decode("utf-8")
    assert "// the model I use most" in text and "/* dark */" in text and "\r\n" in text
    # the user edits the file afterwards: uninstall cannot give the old bytes back, so it
    # cuts recall's member out and leaves theirs
    path.write_text(text.replace('"tokyonight"', '"gruvbox"'), encoding="utf-8", newline="")
    code, out, _ = call(capsys, "hooks", "uninstall", "--agent", "opencode")
    assert code == 0 and "opencode: wrote" in out and "byte for byte" not in out
    expected = (SAMPLES / "opencode.jsonc").read_bytes().replace(b"tokyonight", b"gruvbox")
    assert path.read_bytes() == expected


def test_opencode_without_mcp_gets_one_and_loses_it_again(
    capsys: pytest.CaptureFixture[str],
) -> None:
    path = _opencode('{\n  // mine\n  "theme": "opencode",\n}\n')
    call(capsys, "hooks", "install", "--agent", "opencode")
    text = path.read_text(encoding="utf-8")
    assert text.startswith('{\n  "mcp": {\n    "recall": {"type": "local"')
    assert jsonc.parse(path, text)["theme"] == "opencode"
    path.write_text(text.replace("// mine", "// still mine"), encoding="utf-8")
    call(capsys, "hooks", "uninstall", "--agent", "opencode")
    assert path.read_text(encoding="utf-8") == '{\n  // still mine\n  "theme": "opencode",\n}\n'


def test_opencode_file_recall_creates_is_plain_json_and_goes_again(
    capsys: pytest.CaptureFixture[str],
) -> None:
    (Path.home() / ".local/share/opencode").mkdir(parents=True)  # installed: its data folder
    code, out, _ = call(capsys, "hooks", "install")
    path = Path.home() / ".config/opencode/opencode.json"
    assert code == 0 and "opencode: wrote" in out
    assert json.loads(path.read_text())["mcp"]["recall"]["command"][-1] == "mcp"
    code, out, _ = call(capsys, "hooks", "uninstall", "--agent", "opencode")
    assert "removed: recall had created it" in out and not path.exists()


def test_opencode_recall_moved_updates_only_the_command(
    capsys: pytest.CaptureFixture[str],
) -> None:
    path = _opencode(
        '{\n  "mcp": {\n    "recall": {"type": "local", "command": ["/old/bin/recall", "mcp"],'
        ' "enabled": false, "environment": {"RECALL_HOME": "/data"}}, // off for now\n  },\n}\n'
    )
    code, _, err = call(capsys, "hooks", "install", "--agent", "opencode")
    assert code == 0, err
    text = path.read_text(encoding="utf-8")
    assert "/old/bin/recall" not in text and "// off for now" in text
    entry = jsonc.parse(path, text)["mcp"]["recall"]
    assert entry["command"] == [*PROGRAM, "mcp"] and entry["enabled"] is False
    assert entry["environment"] == {"RECALL_HOME": "/data"}


@pytest.mark.parametrize(
    ("text", "says"),
    [
        (
            '{"mcp": {"recall": {"type": "local", "command": ["npx", "my-recall"]}}}',
            "did not write",
        ),
        ('{"mcp": ["recall"]}', '"mcp" in'),
        ('{"mcp": {/* unterminated', "not valid JSON"),
        ("[1, 2]", "not an object"),
    ],
)
def test_opencode_files_recall_must_not_edit_are_left_alone(
    text: str, says: str, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _opencode(text)
    code, _, err = call(capsys, "hooks", "install", "--agent", "opencode")
    assert code == 1 and says in err and "Traceback" not in err
    assert path.read_text(encoding="utf-8") == text


def test_an_edit_that_would_not_read_back_is_refused_with_the_entry_to_add(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    path = _opencode('{\n  "theme": "opencode"\n}\n')
    monkeypatch.setattr(jsonc, "insert_first", lambda text, *a: text.replace("}", "},", 1))
    code, _, err = call(capsys, "hooks", "install", "--agent", "opencode")
    assert code == 1 and "could not be edited without disturbing it" in err
    assert '"recall": {"type": "local", "command": [' in err
    assert path.read_text(encoding="utf-8") == '{\n  "theme": "opencode"\n}\n'


def test_cline_in_every_editor_that_has_it(capsys: pytest.CaptureFixture[str]) -> None:
    home = Path.home()
    for editor in ("Code", "Cursor"):
        (home / ".config" / editor / "User/globalStorage/saoudrizwan.claude-dev").mkdir(
            parents=True
        )
    code, _, _ = call(capsys, "hooks", "install", "--agent", "cline")
    assert code == 0
    for editor in ("Code", "Cursor"):
        settings = home / ".config" / editor / "User/globalStorage/saoudrizwan.claude-dev"
        found = json.loads((settings / "settings/cline_mcp_settings.json").read_text())
        assert found["mcpServers"]["recall"]["args"][-1] == "mcp"
    status = call_json(capsys, "hooks", "status", "--agent", "cline", "--json")[0]
    assert len(status["mcp_files"]) == 2 and status["mcp"]


def test_a_users_own_cursor_stop_hook_that_runs_recall_is_not_doubled(
    capsys: pytest.CaptureFixture[str],
) -> None:
    path = Path.home() / ".cursor" / "hooks.json"
    path.parent.mkdir()
    mine = {
        "version": 1,
        "hooks": {"stop": [{"command": "recall ingest --event agent-stop >> ~/r.log"}]},
    }
    raw = json.dumps(mine, indent=2) + "\n"
    path.write_text(raw)
    code, out, _ = call(capsys, "hooks", "install", "--agent", "cursor")
    assert code == 0 and "stop runs your own" in out
    assert path.read_text() == raw
    code, _, _ = call(capsys, "hooks", "uninstall", "--agent", "cursor")
    assert path.read_text() == raw  # the user's line is never removed


def test_a_cursor_mcp_server_named_recall_that_is_not_ours_is_refused(
    capsys: pytest.CaptureFixture[str],
) -> None:
    path = Path.home() / ".cursor" / "mcp.json"
    path.parent.mkdir()
    raw = '{"mcpServers": {"recall": {"url": "https://example.com/recall"}}}\n'
    path.write_text(raw)
    code, _, err = call(capsys, "hooks", "install", "--agent", "cursor")
    assert code == 1 and "recall did not write" in err
    assert path.read_text() == raw
    assert (Path.home() / ".cursor" / "hooks.json").exists()  # the other file is still done


def test_context_adds_nothing_the_new_agents_cannot_take(
    capsys: pytest.CaptureFixture[str],
) -> None:
    _place("roo")
    code, _, _ = call(capsys, "hooks", "install", "--agent", "roo", "--context")
    assert code == 0
    data = json.loads((Path.home() / ROO).read_text())
    assert set(data) == {"mcpServers"}


@pytest.mark.parametrize(
    ("before", "key", "after"),
    [
        ('{"a": 1, "b": 2}', "a", '{ "b": 2}'),
        ('{"a": 1, "b": 2}', "b", '{"a": 1}'),
        ('{"a": 1, // one\n "b": 2, // two\n}', "b", '{"a": 1, // one // two\n}'),
        ('{"a": 1,}', "a", "{}"),
        (
            '{"s": "// not a comment, /* nor this */", "k": "\\"}"}',
            "k",
            '{"s": "// not a comment, /* nor this */"}',
        ),
    ],
)
def test_jsonc_cuts_one_member_and_nothing_else(before: str, key: str, after: str) -> None:
    s = jsonc.blank(before)
    assert len(s) == len(before)
    got = jsonc.remove(before, s, s.index("{"), key)
    assert got == after
    assert key not in jsonc.parse(Path("x"), got)
