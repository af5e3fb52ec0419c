"""Setup's backups and temporaries never widen who can read a settings file (issue 21, item 2).

A 0600 `~/.claude.json` can hold an MCP server's token: its backup and the
temporary written before the rename keep its mode or a stricter one, and the
backups live in folders only their owner can enter.
"""

from __future__ import annotations

import os
import stat
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from clihelp import call

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX file modes")

SECRET = '{\n  "mcpServers": {\n    "github": {\n      "command": "npx",\n      "env": {"GITHUB_TOKEN": "ghp_0123456789abcdefghijklmnopqrstuvwxyzAB"}\n    }\n  }\n}\n'


@pytest.fixture(autouse=True)
def usual_umask() -> Iterator[None]:
    """The usual umask, under which a plain open() makes 0644 files and mkdir 0755 folders."""
    old = os.umask(0o022)
    yield
    os.umask(old)


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def _private_claude_json() -> Path:
    path = Path.home() / ".claude.json"
    (Path.home() / ".claude").mkdir()
    path.write_text(SECRET)
    path.chmod(0o600)
    return path


def test_a_private_file_is_backed_up_private_in_private_folders(
    recall_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _private_claude_json()
    code, _, err = call(capsys, "hooks", "install", "--agent", "claude")
    assert code == 0, err
    backups = sorted((recall_home / "setup" / "backups").glob("claude-.claude.json-*"))
    assert len(backups) == 1 and "ghp_0123" in backups[0].read_text()
    assert _mode(backups[0]) & 0o077 == 0, oct(_mode(backups[0]))
    assert _mode(recall_home / "setup" / "backups") == 0o700
    assert _mode(recall_home / "setup") == 0o700
    assert _mode(path) == 0o600  # the file itself keeps its mode
    assert _mode(recall_home / "setup" / "state.json") & 0o077 == 0


def test_a_backup_is_never_looser_than_its_original(
    recall_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _private_claude_json()
    path.chmod(0o640)
    assert call(capsys, "hooks", "install", "--agent", "claude")[0] == 0
    (backup,) = (recall_home / "setup" / "backups").glob("claude-.claude.json-*")
    assert _mode(backup) & ~0o640 == 0 and _mode(backup) & 0o007 == 0


def test_folders_left_open_by_an_older_recall_are_closed(
    recall_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    backups = recall_home / "setup" / "backups"
    backups.mkdir(parents=True)
    old = backups / "claude-.claude.json-20250101T000000-deadbeef"
    old.write_text(SECRET)
    for p in (recall_home / "setup", backups):
        p.chmod(0o755)
    old.chmod(0o644)
    _private_claude_json()
    assert call(capsys, "hooks", "install", "--agent", "claude")[0] == 0
    assert _mode(backups) == 0o700 and _mode(recall_home / "setup") == 0o700
    assert _mode(old) & 0o077 == 0


def test_the_temporary_is_private_before_the_rename(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Every file setup writes, while its bytes go in, is readable by its owner alone."""
    path = _private_claude_json()
    seen: dict[int, int] = {}  # inode (a rename keeps it) -> mode while the bytes went in
    real_fsync = os.fsync

    def fsync(fd: int) -> None:
        info = os.fstat(fd)
        seen[info.st_ino] = stat.S_IMODE(info.st_mode)
        real_fsync(fd)

    monkeypatch.setattr(os, "fsync", fsync)
    assert call(capsys, "hooks", "install", "--agent", "claude")[0] == 0
    assert path.stat().st_ino in seen and (path.parent / ".claude" / "settings.json").is_file()
    assert (path.parent / ".claude" / "settings.json").stat().st_ino in seen
    assert [oct(mode) for mode in seen.values() if mode & 0o077] == []
    assert _mode(path) == 0o600


def test_the_diff_shown_does_not_print_a_token_the_file_keeps(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The diff's context lines reach the terminal (and CI logs): they are redacted."""
    path = _private_claude_json()
    code, out, _ = call(capsys, "hooks", "install", "--agent", "claude")
    assert code == 0 and '+    "recall": {' in out
    assert "ghp_0123" not in out and "REDACTED" in out
    assert "ghp_0123456789abcdefghijklmnopqrstuvwxyzAB" in path.read_text()
