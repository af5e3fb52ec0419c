"""Codex's config.toml: what the user added to recall's MCP table is theirs (issue 21, item 7).

Running setup again after recall moved (what `recall doctor` advises)
updates `command` and `args` in place and keeps the user's `env`,
`startup_timeout_sec` and comments; uninstall takes the whole table out,
sub-tables included, so Codex is never left with a server that has no command.
"""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from clihelp import call
from recall.setup.commands import executable

USERS = """# my Codex settings
model = "gpt-5-codex"

[mcp_servers.github]
command = "npx"
args = ["-y", "@modelcontextprotocol/server-github"]

[mcp_servers.recall]
command = "/old/venv/bin/recall"
args = ["mcp"]  # stdio
startup_timeout_sec = 45  # the index lives on a slow disk
{env}
[tui]
notifications = true
"""
TABLE_ENV = """
[mcp_servers.recall.env]
RECALL_HOME = "/data/recall"
"""
INLINE_ENV = 'env = { RECALL_HOME = "/data/recall" }\n'


def _config() -> Path:
    return Path.home() / ".codex" / "config.toml"


def _place(text: str) -> None:
    _config().parent.mkdir(parents=True)
    _config().write_text(text)


@pytest.mark.parametrize("env", [TABLE_ENV, INLINE_ENV], ids=["env-table", "inline-env"])
def test_setup_again_after_a_move_keeps_env_and_timeout(
    env: str, capsys: pytest.CaptureFixture[str]
) -> None:
    _place(USERS.format(env=env))
    code, _, err = call(capsys, "hooks", "install", "--agent", "codex")
    assert code == 0, err
    text = _config().read_text()
    server = tomllib.loads(text)["mcp_servers"]["recall"]
    assert server == {
        "command": executable()[0],
        "args": [*executable()[1:], "mcp"],
        "startup_timeout_sec": 45,
        "env": {"RECALL_HOME": "/data/recall"},
    }
    assert "# the index lives on a slow disk" in text and text.startswith("# my Codex settings")
    if len(executable()) == 1:  # args unchanged: the value keeps its comment
        assert 'args = ["mcp"]  # stdio' in text
    assert tomllib.loads(text)["tui"] == {"notifications": True}


@pytest.mark.parametrize("env", [TABLE_ENV, INLINE_ENV], ids=["env-table", "inline-env"])
def test_uninstall_leaves_no_orphan_env_table(env: str, capsys: pytest.CaptureFixture[str]) -> None:
    _place(USERS.format(env=env))
    code, _, err = call(capsys, "hooks", "uninstall", "--agent", "codex")
    assert code == 0, err
    text = _config().read_text()
    data = tomllib.loads(text)
    assert "recall" not in data["mcp_servers"], text
    assert set(data["mcp_servers"]) == {"github"} and data["tui"] == {"notifications": True}
    assert "[mcp_servers.recall" not in text and "RECALL_HOME" not in text


def test_an_orphan_env_table_an_older_uninstall_left_is_completed(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The file an older uninstall left (a server with no command) gets one back."""
    _place('model = "o3"\n\n[mcp_servers.recall.env]\nRECALL_HOME = "/data/recall"\n')
    code, _, err = call(capsys, "hooks", "install", "--agent", "codex")
    assert code == 0, err
    server = tomllib.loads(_config().read_text())["mcp_servers"]["recall"]
    assert server["command"] == executable()[0] and server["env"] == {"RECALL_HOME": "/data/recall"}


def test_a_table_added_under_an_inline_servers_table_is_valid_toml(
    capsys: pytest.CaptureFixture[str],
) -> None:
    _place('mcp_servers = { github = { command = "npx" } }\n')
    code, _, err = call(capsys, "hooks", "install", "--agent", "codex")
    assert code == 0, err
    servers = tomllib.loads(_config().read_text())["mcp_servers"]
    assert set(servers) == {"github", "recall"}
    assert call(capsys, "hooks", "uninstall", "--agent", "codex")[0] == 0
    assert _config().read_text() == 'mcp_servers = { github = { command = "npx" } }\n'


def test_an_orphan_env_table_is_cleared_by_uninstall(capsys: pytest.CaptureFixture[str]) -> None:
    """What an older uninstall left (a server with no command) goes on the next one."""
    _place('model = "o3"\n\n[mcp_servers.recall.env]\nRECALL_HOME = "/data/recall"\n')
    code, _, err = call(capsys, "hooks", "uninstall", "--agent", "codex")
    assert code == 0, err
    assert _config().read_text() == 'model = "o3"\n'


def test_a_crlf_file_stays_crlf_when_the_table_is_edited_in_place(
    capsys: pytest.CaptureFixture[str],
) -> None:
    _config().parent.mkdir(parents=True)
    _config().write_bytes(b'a = 1\r\n\r\n[mcp_servers.recall.env]\r\nX = "1"\r\n')
    assert call(capsys, "hooks", "install", "--agent", "codex")[0] == 0
    raw = _config().read_bytes()
    assert b"\n" not in raw.replace(b"\r\n", b"") and b"command = " in raw
    assert call(capsys, "hooks", "uninstall", "--agent", "codex")[0] == 0
    assert _config().read_bytes() == b"a = 1\r\n"
