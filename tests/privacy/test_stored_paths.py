"""A token in a project's folder name never reaches the index, yet the file is still found."""

from __future__ import annotations

import json
import os
import sqlite3
from pathlib import Path

import pytest

from clihelp import call, call_json

TOKEN = "ghp_" + "Rt5Yu8Io1Pa4Sd7Fg0Hj3Kl6Zx9Cv2BnM4Qw7"


def _transcript(tmp_path: Path) -> Path:
    folder = tmp_path / "user-home" / ".claude" / "projects" / f"-home-me-{TOKEN}-app"
    folder.mkdir(parents=True)
    path = folder / "s1.jsonl"
    turn = {
        "type": "user",
        "uuid": "u1",
        "sessionId": "s1",
        "cwd": f"/home/me/{TOKEN}/app",
        "message": {"role": "user", "content": "rotate the signing key"},
    }
    path.write_text(json.dumps(turn) + "\n")
    return path


def _db_text(home: Path) -> str:
    data = b"".join(
        p.read_bytes() for p in (home / "recall.db", home / "recall.db-wal") if p.exists()
    )
    return data.decode("latin-1")


def test_stored_paths_are_redacted_and_show_raw_still_finds_the_file(
    recall_home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _transcript(tmp_path)
    code, out, err = call(capsys, "sync", "--no-embed")
    assert code == 0, err
    mirror = call_json(capsys, "show", "s1", "--json")
    assert TOKEN not in json.dumps(mirror)
    assert "[REDACTED:github-token]" in mirror["transcript_path"]
    assert TOKEN not in _db_text(recall_home)
    code, raw, err = call(capsys, "show", "s1", "--raw")
    assert code == 0, err
    assert "rotate the signing key" in raw and TOKEN not in raw
    # the redacted path is still the file's key: nothing is read twice, nothing is missing
    code, out, _ = call(capsys, "sync", "--no-embed")
    assert "0 sessions updated from 0 changed" in out and "gone" not in out


def test_the_token_is_in_no_result_page_log_or_forgotten_index(
    recall_home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _transcript(tmp_path)
    os.mkfifo(path.with_name("s2.jsonl"))  # sync passes it over: the log names the folder
    code, out, err = call(capsys, "sync", "--no-embed")
    assert code == 0, err
    assert "passed over" in out and TOKEN not in out
    hits = call_json(capsys, "search", "signing key", "--json")
    assert hits["found"] == 1 and TOKEN not in json.dumps(hits)
    code, shown, err = call(capsys, "show", "s1")
    assert code == 0 and "rotate the signing key" in shown and TOKEN not in shown
    log = (recall_home / "recall.log").read_text(encoding="utf-8")
    assert "s2.jsonl" in log and "[REDACTED:github-token]" in log and TOKEN not in log
    code, out, err = call(capsys, "forget", "s1")
    assert code == 0, err
    assert TOKEN not in out and TOKEN not in _db_text(recall_home)
    assert call(capsys, "show", "s1")[0] != 0  # forgotten: the check above saw a compacted file


def test_rescan_redacts_paths_stored_before_paths_were_redacted(
    recall_home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _transcript(tmp_path)
    assert call(capsys, "sync", "--no-embed")[0] == 0
    db = sqlite3.connect(recall_home / "recall.db")  # as an older recall left it
    with db:
        db.execute("UPDATE sessions SET transcript_path = ?", (str(path),))
        db.execute("UPDATE transcripts SET path = ?", (str(path),))
    db.close()
    assert call(capsys, "redact", "--rescan")[0] == 0
    assert TOKEN not in _db_text(recall_home)
    code, raw, _ = call(capsys, "show", "s1", "--raw")
    assert code == 0 and "rotate the signing key" in raw
