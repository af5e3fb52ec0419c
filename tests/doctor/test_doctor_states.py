"""doctor on broken states: a bad config, an unusable data folder, permissions, damage.

Each test drives the state for real where it can; where running as root
would hide it (root reads and writes whatever the mode bits say), the test
says so and makes the OS answer the same way a normal user's would.
"""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
from pathlib import Path

import pytest

from clihelp import call, call_json
from dbhelp import unindex_first_message


def _checks(capsys: pytest.CaptureFixture[str]) -> tuple[int, dict[str, dict[str, object]]]:
    code, out, _ = call(capsys, "doctor", "--json")
    return code, {c["name"]: c for c in json.loads(out)["checks"]}


def _as_a_user_the_mode_refuses(monkeypatch: pytest.MonkeyPatch, path: Path, refused: int) -> None:
    """Root reads and writes whatever the mode says: when the OS grants `refused` on `path`
    (or a file beside it named after it), answer as it would for the user the mode refuses."""
    if not os.access(path, refused):
        return  # not root: the mode bits already refuse
    real = os.access

    def access(p: object, mode: int, *args: object, **kw: object) -> bool:
        if str(p).startswith(str(path)) and mode & refused:
            return False
        return real(p, mode, *args, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(os, "access", access)


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


@pytest.mark.parametrize("exists", [True, False], ids=["folder", "its-parent"])
def test_an_unwritable_data_directory_is_a_failure_naming_it_and_the_fix(
    exists: bool,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    locked = tmp_path / "locked"
    locked.mkdir()
    home = locked if exists else locked / "recall"
    monkeypatch.setenv("RECALL_HOME", str(home))
    locked.chmod(0o555)
    try:
        _as_a_user_the_mode_refuses(monkeypatch, locked, os.W_OK)
        code, checks = _checks(capsys)
        if not exists:  # root could create it (the model's checksum cache); a user cannot
            shutil.rmtree(home, ignore_errors=True)
        text_code, out, _ = call(capsys, "doctor")
    finally:
        locked.chmod(0o755)
    assert code == 1 and text_code == 1
    check = checks["data directory"]
    assert check["status"] == "fail"
    summary = str(check["summary"])
    assert f"{locked} is not writable by this user" in summary
    assert exists or f"{home} cannot be created" in summary
    assert f"`chmod u+rwx {locked}`" in str(check["fix"])
    assert f"FAIL  data directory  {summary}" in out and f"fix: `chmod u+rwx {locked}`" in out
    assert "check(s) failed" in out


def test_a_read_only_database_is_permissions_for_doctor_and_doctor_fix(
    recall_home: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """0444 on recall.db, with a full-text index out of step that `--fix` would otherwise
    rebuild: both say "not writable by this user" and the chmod, never a lossy step."""
    _index(recall_home, tmp_path, capsys)
    db = recall_home / "recall.db"
    unindex_first_message(db)
    db.chmod(0o444)
    try:
        with monkeypatch.context() as patched:
            _as_a_user_the_mode_refuses(patched, db, os.W_OK)
            _writes_refused_as_for_0444(patched)
            code, checks = _checks(capsys)
            runs = [call(capsys, "doctor"), call(capsys, "doctor", "--fix")]
    finally:
        db.chmod(0o644)
    assert code == 1
    check = checks["database"]
    assert check["status"] == "fail"
    assert "not writable by this user (the index is not damaged)" in str(check["summary"])
    assert "chmod u+rw" in str(check["fix"]) and "nothing needs rebuilding" in str(check["fix"])
    for run_code, out, err in runs:
        assert run_code == 1, out
        assert "not writable by this user" in out and f"fix: `chmod u+rw {db}*`" in out
        assert not any(line.startswith("fixed ") for line in out.splitlines())
        assert "Traceback" not in err
        for lossy in ("mv ", "aside", "--salvage", "sync --force", "re-sync"):
            assert lossy not in out, lossy
    # the permissions fixed, the repair it held back is done
    code, out, _ = call(capsys, "doctor", "--fix")
    assert code == 0 and "fixed rebuilt the full-text indexes" in out


def _writes_refused_as_for_0444(monkeypatch: pytest.MonkeyPatch) -> None:
    """What a 0444 file gives a non-root user: SQLite opens it, then refuses writes."""
    import recall.store.db as store_db

    real = store_db._connect
    monkeypatch.setattr(
        store_db,
        "_connect",
        lambda target, uri: real(
            target if uri else f"{Path(target).resolve().as_uri()}?mode=ro", True
        ),
    )


def test_an_unreadable_database_is_named_as_permissions_never_as_damage(
    recall_home: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    _index(recall_home, tmp_path, capsys)
    (recall_home / "recall.db").chmod(0)
    _as_a_user_the_mode_refuses(monkeypatch, recall_home / "recall.db", os.R_OK)
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
    _writes_refused_as_for_0444(monkeypatch)
    for argv in (["sync", "--no-embed"], ["forget", "s001"]):
        code, _, err = call(capsys, *argv)
        assert code == 1, (argv, err)
        assert "not writable by this user" in err and "chmod" in err
        assert len(err.strip().splitlines()) == 1 and "Traceback" not in err


def _damage(db: Path) -> None:
    """Overwrite four leaf pages of the messages table, as a bad disk block would: the
    conversation is what fills the file and what salvage is for. The pages are found by
    what they hold (`dbstat`), not by a place in the file, which moves whenever a
    migration adds a table."""
    conn = sqlite3.connect(db)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    page = conn.execute("PRAGMA page_size").fetchone()[0]
    leaves = [
        n
        for (n,) in conn.execute(
            "SELECT pageno FROM dbstat WHERE name = 'messages' AND pagetype = 'leaf'"
            " ORDER BY pageno"
        )
    ]
    conn.close()
    assert len(leaves) >= 8, leaves
    middle = len(leaves) // 2
    with open(db, "r+b") as fh:
        for number in leaves[middle : middle + 4]:
            fh.seek((number - 1) * page)
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
