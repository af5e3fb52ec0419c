"""Setup on hostile settings files (issue 21, item 8): one line and an exit code, nothing lost.

Each case was a traceback, a silent replacement or a leftover copy of the
whole settings file before its fix. The tests run as root, which ignores
mode bits: the read-only folder and the immutable file are made with
`chattr +i`, which stops root too (skipped where the file system has no
such flag).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from clihelp import call, run

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX modes, FIFOs, chattr")
BASE = b'{\n  "model": "opus"\n}\n'


def _settings(raw: bytes = BASE) -> Path:
    path = Path.home() / ".claude" / "settings.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(raw)
    return path


def _one_line(err: str) -> str:
    lines = [x for x in err.splitlines() if x.strip()]
    assert "Traceback" not in err, err
    return "\n".join(lines)


def _leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if ".recall-" in p.name)


@contextmanager
def _immutable(path: Path) -> Iterator[None]:
    if shutil.which("chattr") is None:
        pytest.skip("no chattr here (Linux only)")
    done = subprocess.run(["chattr", "+i", str(path)], capture_output=True, check=False)
    if done.returncode != 0:
        pytest.skip(f"chattr +i not supported here: {done.stderr.decode().strip()}")
    try:
        yield
    finally:
        subprocess.run(["chattr", "-i", str(path)], check=True)


@pytest.mark.parametrize("agent", ["claude", "codex"])
def test_deeply_nested_settings_are_refused_in_one_line(
    agent: str, capsys: pytest.CaptureFixture[str]
) -> None:
    if agent == "claude":
        path = _settings(b'{"a": ' + b"[" * 100_000 + b"]" * 100_000 + b"}\n")
    else:
        path = Path.home() / ".codex" / "config.toml"
        path.parent.mkdir(parents=True)
        path.write_bytes(b"a = " + b"[" * 100_000 + b"]" * 100_000 + b"\n")
    raw = path.read_bytes()
    code, _, err = call(capsys, "hooks", "install", "--agent", agent)
    assert code == 1
    assert f"{path} is nested too deeply" in _one_line(err)
    assert path.read_bytes() == raw
    code, out, err = call(capsys, "hooks", "status", "--agent", agent)
    assert code == 0 and "nested too deeply" in out and "Traceback" not in err


def test_a_dangling_symlink_is_named_and_left_alone(capsys: pytest.CaptureFixture[str]) -> None:
    link = Path.home() / ".claude" / "settings.json"
    link.parent.mkdir(parents=True)
    target = Path.home() / "dotfiles" / "claude" / "settings.json"  # not checked out yet
    link.symlink_to(target)
    code, _, err = call(capsys, "hooks", "install", "--agent", "claude")
    assert code == 1
    assert f"{link} is a symlink to {target}, which does not exist" in _one_line(err)
    assert link.is_symlink() and not target.exists()


def test_a_read_only_folder_is_one_line_and_leaves_nothing(
    capsys: pytest.CaptureFixture[str],
) -> None:
    path = _settings()
    with _immutable(path.parent):
        code, _, err = call(capsys, "hooks", "install", "--agent", "claude")
    assert code == 1
    assert f"cannot write {path}" in _one_line(err) and "left untouched" in err
    assert path.read_bytes() == BASE and _leftovers(path.parent) == []


def test_an_immutable_file_leaves_no_temporary_copy(capsys: pytest.CaptureFixture[str]) -> None:
    path = _settings()
    with _immutable(path):
        code, _, err = call(capsys, "hooks", "install", "--agent", "claude")
    assert code == 1 and f"{path}" in _one_line(err) and "left untouched" in err
    assert path.read_bytes() == BASE and _leftovers(path.parent) == []


def test_a_rename_that_fails_leaves_no_temporary_copy(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The file became immutable between the check and the rename."""
    path = _settings()
    real_replace = os.replace

    def refuse(src: str, dst: str) -> None:
        if str(dst).startswith(str(Path.home())):  # the agents' files, not recall's backups
            raise PermissionError(1, "Operation not permitted", dst)
        real_replace(src, dst)

    monkeypatch.setattr(os, "replace", refuse)
    code, _, err = call(capsys, "hooks", "install", "--agent", "claude")
    assert code == 1 and f"cannot write {path}: Operation not permitted" in _one_line(err)
    assert path.read_bytes() == BASE and _leftovers(path.parent) == []
    assert _leftovers(Path.home()) == []  # ~/.claude.json's temporary is gone too


@pytest.mark.parametrize("action", ["install", "uninstall"])
def test_a_read_only_settings_file_is_not_replaced(
    action: str, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _settings()
    if action == "uninstall":
        assert call(capsys, "hooks", "install", "--agent", "claude")[0] == 0
    before = path.read_bytes()
    path.chmod(0o444)
    code, _, err = call(capsys, "hooks", action, "--agent", "claude")
    assert code == 1
    assert f"{path} is read-only" in _one_line(err) and f"chmod u+w {path}" in err
    assert path.read_bytes() == before and oct(path.stat().st_mode & 0o777) == "0o444"


def test_a_home_that_is_not_utf8_is_shown_not_blamed_on_arguments(tmp_path: Path) -> None:
    """A home folder whose name is not UTF-8, printed to a strict UTF-8 terminal."""
    if sys.platform == "darwin":
        pytest.skip("APFS refuses file names that are not UTF-8")
    home = os.fsencode(tmp_path) + b"/caf\xe9"
    os.mkdir(home)
    env = {"HOME": os.fsdecode(home), "PYTHONIOENCODING": "utf-8"}
    done = run("hooks", "install", env=env)
    assert done.returncode == 0, done.stderr
    assert b"Gemini CLI, Cursor, OpenCode, Cline or Roo Code configuration found in" in done.stdout
    assert b"caf\\xe9" in done.stdout
    done = run("hooks", "install", "--agent", "claude", env=env)  # no agent set up yet
    assert done.returncode == 0 and b"pass arguments as UTF-8" not in done.stderr, done.stderr
    assert b"claude: wrote" in done.stdout and b"caf\\xe9/.claude.json" in done.stdout
    assert os.path.isfile(home + b"/.claude/settings.json")
    assert b"Traceback" not in done.stderr
    done = run("hooks", "status", "--json", env=env)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)[0]["mcp_file"].endswith("caf\\xe9/.claude.json")


def test_parallel_installs_and_an_uninstall_never_leave_an_empty_file(tmp_path: Path) -> None:
    """Eight `hooks install` and one `hooks uninstall` at once, three times: each file recall
    created is afterwards either fully installed or gone, and a last uninstall removes it."""
    for agent in ("claude", "codex", "gemini"):
        (Path.home() / f".{agent}").mkdir()
    files = [
        Path.home() / ".claude" / "settings.json",
        Path.home() / ".claude.json",
        Path.home() / ".codex" / "hooks.json",
        Path.home() / ".codex" / "config.toml",
        Path.home() / ".gemini" / "settings.json",
    ]
    cmd = [sys.executable, "-m", "recall", "hooks"]
    for _ in range(3):
        procs = [
            subprocess.Popen([*cmd, a], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
            for a in ["install"] * 4 + ["uninstall"] + ["install"] * 4
        ]
        errors = [p.communicate(timeout=120)[1] for p in procs]
        assert all(p.returncode == 0 for p in procs), errors
        for path in files:
            if path.exists():
                assert "recall" in path.read_text(), (path, path.read_text())
        done = run("hooks", "uninstall")
        assert done.returncode == 0, done.stderr
        assert [p for p in files if p.exists()] == []


def test_doctor_reports_hostile_settings_without_hanging(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """A FIFO (an open that never returns) and deep nesting: doctor names each file."""
    _settings(b'{"a": ' + b"[" * 100_000 + b"]" * 100_000 + b"}\n")
    (Path.home() / ".codex").mkdir()
    os.mkfifo(Path.home() / ".codex" / "config.toml")
    _, out, err = call(capsys, "doctor", "--json")
    assert "Traceback" not in err
    hooks = {c["name"]: c for c in json.loads(out)["checks"]}["hooks"]
    assert "settings.json" in hooks["fix"] and "nested too deeply" in hooks["fix"]
    assert "config.toml" in hooks["fix"] and "FIFO" in hooks["fix"]


def test_a_lone_surrogate_escape_is_written_back_as_it_was(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """JSON allows `\\ud800`; UTF-8 cannot hold it: it stays an escape, and the rest is kept."""
    raw = '{\n  "x": "\\ud800",\n  "y": "café"\n}\n'.encode()
    path = _settings(raw)
    code, _, err = call(capsys, "hooks", "install", "--agent", "claude")
    assert code == 0, err
    text = path.read_text(encoding="utf-8")
    assert text.startswith('{\n  "x": "\\ud800",\n  "y": "café",\n')
    assert call(capsys, "hooks", "uninstall", "--agent", "claude")[0] == 0
    assert path.read_bytes() == raw


def test_a_temporary_a_killed_setup_left_is_swept(capsys: pytest.CaptureFixture[str]) -> None:
    path = _settings()
    stale = path.parent / ".settings.json.recall-4242"
    stale.write_bytes(BASE)
    os.utime(stale, (1, 1))
    fresh = path.parent / ".settings.json.recall-4343"  # a setup writing right now
    fresh.write_bytes(BASE)
    assert call(capsys, "hooks", "install", "--agent", "claude")[0] == 0
    assert _leftovers(path.parent) == [fresh.name]
