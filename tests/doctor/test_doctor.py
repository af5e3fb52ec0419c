"""`recall doctor`: each check on a healthy and on a broken set-up, and the fix it names."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from clihelp import call, call_json
from dbhelp import unindex_first_message
from recall import config
from recall.doctor import Context
from recall.doctor.store_checks import check_lock
from recall.log import log

SAMPLE = "claude/claude-code-viewer/sample-project/5c0375b4-57a5-4f26-b12d-d022ee4e51b7.jsonl"
HOOK = "recall ingest --event agent-stop"


def _doctor(capsys: pytest.CaptureFixture[str], *extra: str) -> tuple[int, dict[str, Any]]:
    code, out, err = call(capsys, "doctor", "--json", *extra)
    assert err == ""
    report = json.loads(out)
    assert report["ok"] is (code == 0)
    return code, {c["name"]: c for c in report["checks"]}


def _index(transcripts: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    code, _, err = call(capsys, "ingest", str(transcripts / SAMPLE))
    assert code == 0, err
    return config.db_path()


def _hook_everything(home: Path, path_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    hook = {"hooks": {"Stop": [{"hooks": [{"type": "command", "command": HOOK}]}]}}
    mcp = {"mcpServers": {"recall": {"command": "recall", "args": ["mcp"]}}}
    (home / ".claude").mkdir()
    (home / ".claude" / "settings.json").write_text(json.dumps({"model": "x", **hook}))
    (home / ".claude.json").write_text(json.dumps({"numStartups": 3, **mcp}))
    (home / ".codex").mkdir()
    (home / ".codex" / "config.toml").write_text(
        'model = "gpt-5"\nnotify = ["recall", "ingest", "--event", "agent-stop"]\n'
        '[mcp_servers.recall]\ncommand = "recall"\nargs = ["mcp"]\n'
    )
    gemini = {
        "hooks": {"AfterAgent": [{"hooks": [{"type": "command", "command": HOOK}]}]},
        **mcp,
    }
    (home / ".gemini").mkdir()
    (home / ".gemini" / "settings.json").write_text(json.dumps(gemini))
    path_dir.mkdir()
    exe = path_dir / "recall"
    exe.write_text("#!/bin/sh\n")
    exe.chmod(0o755)
    monkeypatch.setenv("PATH", str(path_dir))


@pytest.mark.needs_model  # a healthy install has a model: the real one, or the tiny test model
def test_a_healthy_install_passes_every_check(
    transcripts: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    _index(transcripts, capsys)
    _hook_everything(Path.home(), tmp_path / "bin", monkeypatch)
    code, checks = _doctor(capsys)
    assert code == 0
    assert {n: c["status"] for n, c in checks.items()} == {
        "config": "ok",
        "data directory": "ok",
        "sqlite": "ok",
        "database": "ok",
        "indexes": "ok",
        "write lock": "ok",
        "hooks": "ok",
        "mcp": "ok",
        "model": "ok",
        "memory files": "ok",
        "peers": "skip",
        "log": "ok",
    }
    assert "hooked: claude, codex, gemini" in checks["hooks"]["summary"]
    assert checks["model"]["summary"].startswith("all-MiniLM-L6-v2 from ")
    code, out, _ = call(capsys, "doctor")
    assert code == 0 and out.rstrip().endswith("all checks passed")


def test_no_index_yet_is_a_warning_that_says_to_sync(capsys: pytest.CaptureFixture[str]) -> None:
    code, checks = _doctor(capsys)
    assert code == 0
    assert checks["database"]["status"] == "warn"
    assert "recall sync" in checks["database"]["fix"]
    assert not config.db_path().exists(), "doctor must not create the index"


def test_a_corrupt_database_file_fails_and_says_how_to_rebuild(
    transcripts: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = _index(transcripts, capsys)
    with open(db, "r+b") as fh:  # the writer closed, so everything is in the main file
        fh.seek(4096 * 2)
        fh.write(os.urandom(4096 * 3))
    code, checks = _doctor(capsys)
    assert code == 1
    assert checks["database"]["status"] == "fail"
    # the lossless step first: salvage keeps the old file; never "move it aside and re-sync"
    fix = checks["database"]["fix"]
    assert "recall doctor --salvage" in fix and ".broken" in fix and "recall sync" in fix
    assert "mv " not in fix
    assert checks["indexes"]["status"] == "skip"
    code, out, _ = call(capsys, "doctor")
    assert code == 1 and "FAIL  database" in out and "fix: `recall doctor --salvage`" in out


def test_a_file_that_is_not_a_database_fails(capsys: pytest.CaptureFixture[str]) -> None:
    db = config.db_path()
    db.parent.mkdir(parents=True)
    db.write_bytes(b"this is not SQLite" * 500)
    code, checks = _doctor(capsys)
    assert code == 1 and checks["database"]["status"] == "fail"
    assert "not a database" in checks["database"]["summary"]


def test_missing_full_text_rows_fail_and_doctor_fix_rebuilds_them(
    transcripts: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = _index(transcripts, capsys)
    unindex_first_message(db)
    code, checks = _doctor(capsys)
    assert code == 1
    assert checks["indexes"]["status"] == "fail" and checks["indexes"]["repairable"]
    assert "recall doctor --fix" in checks["indexes"]["fix"]
    assert checks["database"]["status"] == "ok"  # the file itself is sound

    code, out, _ = call(capsys, "doctor", "--fix")
    assert code == 0 and "fixed rebuilt the full-text indexes" in out
    code, checks = _doctor(capsys)
    assert checks["indexes"]["status"] == "ok"


def test_a_database_from_a_newer_recall_fails(
    transcripts: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = _index(transcripts, capsys)
    conn = sqlite3.connect(db)
    conn.execute("INSERT INTO schema_migrations VALUES ('m999_from_the_future', 0)")
    conn.commit()
    conn.close()
    code, checks = _doctor(capsys)
    assert code == 1 and "newer recall" in checks["database"]["summary"]
    assert "upgrade" in checks["database"]["fix"]


_HOLDER = """
import fcntl, os, sys, time
fd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT, 0o600)
fcntl.flock(fd, fcntl.LOCK_EX)
os.write(fd, f"{os.getpid()} {time.time() - float(sys.argv[2]):.3f}\\n".encode())
print("locked", flush=True)
time.sleep(60)
"""


def _hold_lock(lock: Path, held_for: float) -> subprocess.Popen[str]:
    lock.parent.mkdir(parents=True, exist_ok=True)
    proc = subprocess.Popen(
        [sys.executable, "-c", _HOLDER, str(lock), str(held_for)],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None and proc.stdout.readline() == "locked\n"
    return proc


def _kill(proc: subprocess.Popen[str]) -> None:
    proc.kill()  # SIGKILL
    proc.communicate()


@pytest.mark.skipif(sys.platform == "win32", reason="the holder script uses fcntl")
def test_write_lock_held_by_a_stuck_process_fails_with_its_pid(tmp_path: Path) -> None:
    ctx = Context(db=tmp_path / "recall.db", home=tmp_path)
    busy = _hold_lock(ctx.lock, held_for=1)
    try:
        found = check_lock(ctx, wait=0.2)
        assert found.status == "warn" and f"pid {busy.pid}" in found.summary
    finally:
        _kill(busy)
    stuck = _hold_lock(ctx.lock, held_for=300)
    try:
        found = check_lock(ctx, wait=0.2)
        assert found.status == "fail"
        assert f"pid {stuck.pid}" in found.summary and f"kill {stuck.pid}" in (found.fix or "")
    finally:
        _kill(stuck)


def test_an_unusable_lock_file_fails_with_the_fix(tmp_path: Path) -> None:
    ctx = Context(db=tmp_path / "recall.db", home=tmp_path)
    ctx.lock.mkdir()  # something in the way that cannot be opened for writing
    found = check_lock(ctx, wait=0.1)
    assert found.status == "fail" and "cannot open the write lock" in found.summary
    assert str(ctx.lock) in (found.fix or "")


@pytest.mark.skipif(sys.platform == "win32", reason="the holder script uses fcntl")
def test_a_writer_killed_while_holding_the_lock_leaves_no_stale_lock(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ctx = Context(db=config.db_path(), home=tmp_path)
    holder = _hold_lock(ctx.lock, held_for=0)
    _kill(holder)
    code, checks = _doctor(capsys)
    assert code == 0
    assert checks["write lock"]["status"] == "ok"
    assert f"pid {holder.pid} died while writing" in checks["write lock"]["summary"]


def test_agents_without_recall_hooks_are_warned_with_the_snippet_to_add(
    capsys: pytest.CaptureFixture[str],
) -> None:
    home = Path.home()
    (home / ".claude").mkdir()
    (home / ".claude" / "settings.json").write_text('{"hooks": {"Stop": []}}')
    (home / ".gemini").mkdir()
    code, checks = _doctor(capsys)
    hooks = checks["hooks"]
    assert code == 0 and hooks["status"] == "warn"
    assert "not hooked: claude, gemini" in hooks["summary"]  # codex is not installed
    assert '"command": "recall ingest --event agent-stop"' in hooks["fix"]
    assert "AfterAgent" in hooks["fix"] and ".claude/settings.json" in hooks["fix"]


def test_no_agent_installed_skips_the_hook_check(capsys: pytest.CaptureFixture[str]) -> None:
    _, checks = _doctor(capsys)
    assert checks["hooks"]["status"] == "skip"


def test_hooks_that_cannot_find_recall_on_path_fail(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _hook_everything(Path.home(), tmp_path / "bin", monkeypatch)
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    code, checks = _doctor(capsys)
    assert code == 1 and checks["hooks"]["status"] == "fail"
    assert "not on PATH" in checks["hooks"]["fix"]


def test_hooks_and_mcp_entries_pointing_at_a_vanished_recall_fail(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    home = Path.home()
    gone = str(tmp_path / "old-venv" / "bin" / "recall")
    hook = {
        "hooks": {
            "AfterAgent": [
                {"hooks": [{"type": "command", "command": f"{gone} ingest --event agent-stop"}]}
            ]
        }
    }
    (home / ".gemini").mkdir()
    (home / ".gemini" / "settings.json").write_text(
        json.dumps({**hook, "mcpServers": {"recall": {"command": gone, "args": ["mcp"]}}})
    )
    code, checks = _doctor(capsys)
    assert code == 1
    assert checks["hooks"]["status"] == "fail" and gone in checks["hooks"]["fix"]
    assert "recall setup" in checks["hooks"]["fix"]
    assert checks["mcp"]["status"] == "fail" and gone in checks["mcp"]["fix"]


def test_after_setup_every_agent_check_passes(capsys: pytest.CaptureFixture[str]) -> None:
    home = Path.home()
    for folder in (".claude", ".codex", ".gemini"):
        (home / folder).mkdir()
    _, checks = _doctor(capsys)
    assert checks["hooks"]["status"] == "warn" and checks["mcp"]["status"] == "warn"
    assert "recall hooks install --agent codex" in checks["mcp"]["fix"]
    assert call(capsys, "setup", "--no-sync")[0] == 0
    _, checks = _doctor(capsys)
    assert checks["hooks"]["status"] == "ok", checks["hooks"]
    assert checks["mcp"]["status"] == "ok", checks["mcp"]
    assert "registered: claude, codex, gemini" in checks["mcp"]["summary"]


def test_codex_hooks_json_and_an_unreadable_settings_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    home = Path.home()
    (home / ".codex").mkdir()
    hook = {"hooks": {"Stop": [{"hooks": [{"type": "command", "command": HOOK}]}]}}
    (home / ".codex" / "hooks.json").write_text(json.dumps(hook))
    (home / ".claude").mkdir()
    (home / ".claude" / "settings.json").write_text("{not json")
    monkeypatch.setenv("PATH", str(tmp_path))
    (tmp_path / "recall").write_text("#!/bin/sh\n")
    (tmp_path / "recall").chmod(0o755)
    _, checks = _doctor(capsys)
    hooks = checks["hooks"]
    assert hooks["status"] == "warn" and "hooked: codex" in hooks["summary"]
    assert "cannot read" in hooks["fix"] and "settings.json" in hooks["fix"]


def test_recent_problems_in_the_log_are_shown(capsys: pytest.CaptureFixture[str]) -> None:
    _, checks = _doctor(capsys)
    assert checks["log"]["status"] == "ok"
    log("ingest --event agent-stop: cannot read /gone.jsonl: No such file")
    _, checks = _doctor(capsys)
    assert checks["log"]["status"] == "warn" and "/gone.jsonl" in checks["log"]["summary"]
    old = time.strftime("%Y-%m-%dT%H:%M:%S%z", time.localtime(time.time() - 30 * 86400))
    config.log_path().write_text(f"{old} [1] something long ago\n")
    _, checks = _doctor(capsys)
    assert checks["log"]["status"] == "ok"


def test_doctor_is_documented_and_json_is_stable(capsys: pytest.CaptureFixture[str]) -> None:
    report = call_json(capsys, "doctor")
    assert set(report) == {"ok", "repaired", "checks"}
    for check in report["checks"]:
        assert {"name", "status", "summary", "fix", "details", "repairable"} <= set(check)
        assert check["status"] in ("ok", "warn", "fail", "skip")


def test_a_missing_model_is_a_warning_that_says_how_to_get_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("RECALL_MODEL_DIR", str(tmp_path / "no-model-here"))
    code, checks = _doctor(capsys)
    assert code == 0
    assert checks["model"]["status"] == "warn"
    assert "semantic search is off" in checks["model"]["summary"]
    assert "recall model install" in checks["model"]["fix"]


def test_keywords_only_by_choice_is_not_a_problem(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("RECALL_EMBEDDING", "none")
    _, checks = _doctor(capsys)
    assert checks["model"]["status"] == "skip"
