"""A disk that fills up during `recall sync`: one clear line, and a consistent index."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from clihelp import call


def _session(folder: Path, sid: str, text: str) -> None:
    record = {
        "type": "user",
        "uuid": f"{sid}-u1",
        "sessionId": sid,
        "message": {"role": "user", "content": text},
    }
    (folder / f"{sid}.jsonl").write_text(json.dumps(record) + "\n")


def test_sync_on_a_full_disk_says_so_and_keeps_what_it_committed(
    recall_home: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    import recall.ingest
    import recall.sync

    folder = Path(tmp_path / "user-home" / ".claude" / "projects" / "-work-app")
    folder.mkdir(parents=True)
    for n in range(6):
        _session(folder, f"s{n}", f"topic number {n}")
    monkeypatch.setattr(recall.sync, "_BATCH_FILES", 2)  # commit every two files
    real = recall.ingest.apply_part
    calls = {"n": 0}

    def filling_up(*args: Any, **kwargs: Any) -> Any:
        calls["n"] += 1
        if calls["n"] > 3:
            raise sqlite3.OperationalError("database or disk is full")
        return real(*args, **kwargs)

    monkeypatch.setattr(recall.ingest, "apply_part", filling_up)
    code, out, err = call(capsys, "sync", "--no-embed")
    assert code == 1
    assert err.strip() == (
        "recall: disk full: 2 sessions indexed, run `recall sync` again after freeing space"
    )
    db = sqlite3.connect(recall_home / "recall.db")
    assert db.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    assert db.execute("SELECT count(*) FROM sessions").fetchone() == (2,)  # the first batch
    db.close()
    monkeypatch.setattr(recall.ingest, "apply_part", real)
    code, out, err = call(capsys, "sync", "--no-embed")
    assert code == 0, err
    assert "Index: 6 sessions" in out
