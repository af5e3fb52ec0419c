"""The SQLite question (docs/reliability.md): which SQLite recall accepts, and why the WAL-reset bug cannot bite it."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from clihelp import call, call_json, run
from recall.errors import StoreError
from recall.store import open_reader, open_writer, sqlite_check
from recall.store.locking import lock_is_free, wal_reset_bug
from recall.store.sqlite_check import probe, require


@pytest.mark.parametrize(
    ("version", "affected"),
    [
        ("3.7.0", True),
        ("3.40.1", True),  # Debian 12's, and this interpreter's at the time of writing
        ("3.44.5", True),
        ("3.44.6", False),  # backport
        ("3.45.0", True),
        ("3.50.6", True),
        ("3.50.7", False),  # backport
        ("3.51.2", True),
        ("3.51.3", False),  # the fix
        ("3.52.0", False),
        ("3.53.1", False),
        ("4.0.0", False),
    ],
)
@pytest.mark.core_free
def test_wal_reset_bug_is_known_for_every_release_line(version: str, affected: bool) -> None:
    assert wal_reset_bug(version) is affected


@pytest.mark.core_free
def test_this_interpreters_sqlite_is_usable() -> None:
    support = probe()
    assert support.version == sqlite3.sqlite_version
    assert support.fts5 and support.usable
    assert support.wal_reset_bug is wal_reset_bug()


@pytest.mark.core_free
def test_sqlite_without_upsert_or_fts5_is_refused_with_the_fix() -> None:
    old = probe(version="3.23.1", fts5=True)
    assert not old.usable and "3.24.0" in old.problems[0]
    no_fts = probe(version="3.45.0", fts5=False)
    assert not no_fts.usable and "FTS5" in no_fts.problems[0]
    with pytest.raises(StoreError, match=r"FTS5.*newer SQLite"):
        require(no_fts)


@pytest.mark.core_free
def test_a_new_index_on_sqlite_without_fts5_is_a_one_line_error(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(sqlite_check, "_has_fts5", lambda: False)
    code, out, err = call(capsys, "sync")
    assert code == 1 and out == ""
    assert err.count("\n") == 1 and "without FTS5" in err


def test_every_write_transaction_holds_the_cross_process_lock(tmp_path: Path) -> None:
    with open_writer(tmp_path / "recall.db") as store:
        assert lock_is_free(store.lock_path)
        with store.transaction():
            assert not lock_is_free(store.lock_path)
            # and another process sees it taken too
            probe_other = subprocess.run(
                [
                    sys.executable,
                    "-c",
                    "import sys; from pathlib import Path; "
                    "from recall.store.locking import lock_is_free; "
                    "sys.exit(0 if lock_is_free(Path(sys.argv[1])) else 3)",
                    str(store.lock_path),
                ],
                check=False,
            )
            assert probe_other.returncode == 3
        assert lock_is_free(store.lock_path)


@pytest.mark.core_free
def test_readers_cannot_checkpoint_so_only_the_lock_holder_resets_the_wal(
    tmp_path: Path,
) -> None:
    db = tmp_path / "recall.db"
    with open_writer(db) as store:
        store.conn.execute("PRAGMA wal_autocheckpoint=0")
        with store.transaction() as conn:
            conn.execute(
                "INSERT INTO sessions(session_id, agent, computer, updated_at)"
                " VALUES ('s', 'claude', 'c', 0)"
            )
        wal = Path(f"{db}-wal")
        before = wal.stat().st_size
        assert before > 0
        with open_reader(db) as reader:
            with pytest.raises(sqlite3.Error):
                reader.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchall()
            with pytest.raises(sqlite3.OperationalError, match="readonly"):
                reader.conn.execute("DELETE FROM sessions")
        assert wal.stat().st_size == before


@pytest.mark.core_free
def test_status_and_doctor_say_what_recall_does_about_the_bug(
    capsys: pytest.CaptureFixture[str],
) -> None:
    status = call_json(capsys, "status")
    assert status["sqlite"] == sqlite3.sqlite_version
    doctor = {c["name"]: c for c in call_json(capsys, "doctor")["checks"]}
    assert doctor["sqlite"]["status"] == "ok"
    if wal_reset_bug():
        assert "serialises every writer" in doctor["sqlite"]["summary"]
    else:
        assert "WAL-reset fix" in doctor["sqlite"]["summary"]


def test_recall_runs_on_the_interpreters_sqlite_end_to_end() -> None:
    """The sqlite3 module the CLI loads is the one probed (no other SQLite is bundled)."""
    proc = run("doctor", "--json")
    assert b'"name":"sqlite","status":"ok"' in proc.stdout
