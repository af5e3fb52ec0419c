"""doctor on broken states: a bad config, an unusable data folder, permissions, damage.

Each test drives the state for real where it can; where running as root
would hide it (root reads and writes whatever the mode bits say), the test
says so and makes the OS answer the same way a normal user's would.
"""

from __future__ import annotations

import json
import os
import sqlite3
from pathlib import Path

import pytest

from clihelp import call, call_json


def _checks(capsys: pytest.CaptureFixture[str]) -> tuple[int, dict[str, dict[str, object]]]:
    code, out, _ = call(capsys, "doctor", "--json")
    return code, {c["name"]: c for c in json.loads(out)["checks"]}


def _index(
    recall_home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], n: int = 40
) -> None:
    src = tmp_path / "chats.jsonl"
    lines = [
        json.dumps(
            {
                "session": f"s{i:03d}",
                "role": "user",
                "text": f"session {i} discusses topic{i} and the shared word lighthouse " * 4,
            }
        )
        for i in range(n)
    ]
    src.write_text("\n".join(lines) + "\n")
    assert call(capsys, "ingest", "--format", "jsonl", str(src))[0] == 0


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("embedding = \n[redact\n", "config.toml"),  # not TOML
        ('[[redact.extra]]\nname = "x"\npattern = "(a+)+$"\n', "refused"),  # a bad pattern
    ],
)
def test_a_config_every_command_would_fail_on_is_a_failure_with_the_fix(
    text: str, said: str, recall_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    recall_home.mkdir(parents=True)
    (recall_home / "config.toml").write_text(text)
    code, checks = _checks(capsys)
    assert code == 1
    assert checks["config"]["status"] == "fail"
    assert said in str(checks["config"]["summary"])
    assert "edit" in str(checks["config"]["fix"])


def test_a_data_directory_that_is_a_file_is_a_failure(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    home = tmp_path / "not-a-folder"
    home.write_text("oops")
    monkeypatch.setenv("RECALL_HOME", str(home))
    code, checks = _checks(capsys)
    assert code == 1
    assert checks["data directory"]["status"] == "fail"
    assert "is not a directory" in str(checks["data directory"]["summary"])


def test_an_unreadable_database_is_named_as_permissions_never_as_damage(
    recall_home: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    _index(recall_home, tmp_path, capsys)
    (recall_home / "recall.db").chmod(0)
    if os.access(recall_home / "recall.db", os.R_OK):  # root: the OS ignores the mode bits
        import recall.doctor.store_checks as store_checks

        real = os.access
        monkeypatch.setattr(
            store_checks.os,
            "access",
            lambda p, mode: False if str(p).endswith("recall.db") else real(p, mode),
        )
    code, checks = _checks(capsys)
    (recall_home / "recall.db").chmod(0o600)
    assert code == 1
    db = checks["database"]
    assert db["status"] == "fail" and "not readable by this user" in str(db["summary"])
    assert "not damaged" in str(db["summary"])
    assert "chmod" in str(db["fix"]) and "mv " not in str(db["fix"])
    assert checks["indexes"]["status"] == "skip"


def test_writes_to_a_read_only_index_are_one_line_not_a_traceback(
    recall_home: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    _index(recall_home, tmp_path, capsys)
    folder = tmp_path / "user-home" / ".claude" / "projects" / "-work-app"
    folder.mkdir(parents=True)
    turn = {"type": "user", "uuid": "u1", "sessionId": "new", "message": {"content": "hello"}}
    (folder / "new.jsonl").write_text(json.dumps(turn) + "\n")  # something sync must write
    import recall.store.db as store_db

    # What a 0444 file gives a non-root user: SQLite opens it, then refuses writes.
    real = store_db._connect
    monkeypatch.setattr(
        store_db,
        "_connect",
        lambda target, uri: real(
            target if uri else f"{Path(target).resolve().as_uri()}?mode=ro", True
        ),
    )
    for argv in (["sync", "--no-embed"], ["forget", "s001"]):
        code, _, err = call(capsys, *argv)
        assert code == 1, (argv, err)
        assert "not writable by this user" in err and "chmod" in err
        assert len(err.strip().splitlines()) == 1 and "Traceback" not in err


def _damage(db: Path) -> None:
    """Overwrite pages in the middle of the file, as a bad disk block would."""
    conn = sqlite3.connect(db)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    page = conn.execute("PRAGMA page_size").fetchone()[0]
    conn.close()
    size = db.stat().st_size
    with open(db, "r+b") as fh:
        for at in range(size // 3, size // 3 + 4 * page, page):
            fh.seek(at)
            fh.write(b"\xde\xad\xbe\xef" * (page // 4))


def test_a_damaged_index_is_salvaged_without_losing_what_can_be_read(
    recall_home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _index(recall_home, tmp_path, capsys, n=400)
    db = recall_home / "recall.db"
    _damage(db)
    code, checks = _checks(capsys)
    assert code == 1 and checks["database"]["status"] == "fail"
    fix = str(checks["database"]["fix"])
    assert "recall doctor --salvage" in fix and "Do not delete" in fix
    code, out, err = call(capsys, "doctor", "--salvage")
    assert code == 0, err
    assert "salvaged" in out and "kept as" in out
    kept = list(recall_home.glob("recall.db.broken-*"))
    assert kept, "the damaged file must be kept"
    conn = sqlite3.connect(db)
    assert conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    sessions = conn.execute("SELECT count(*) FROM sessions").fetchone()[0]
    conn.close()
    assert sessions >= 200  # most of the 400 survive four bad pages
    code, checks = _checks(capsys)
    assert checks["database"]["status"] == "ok" and checks["indexes"]["status"] == "ok"
    hits = call_json(capsys, "search", "lighthouse", "--mode", "keyword", "--limit", "5")
    assert hits["found"] == 5
