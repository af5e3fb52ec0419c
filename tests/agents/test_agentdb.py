"""Reading an agent's database never harms it: no file written beside it, no lock the agent
waits on, and a database a writer holds open is read without error."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from agentdbs import lay_out_opencode, opencode_data
from recall.agents.agentdb import open_readonly, uri_for
from synchelp import stored, sync_now


def _listing(folder: Path) -> dict[str, tuple[int, int]]:
    return {
        str(p.relative_to(folder)): (p.stat().st_size, p.stat().st_mtime_ns)
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


def test_sync_writes_nothing_beside_the_agents_files() -> None:
    data = lay_out_opencode(Path.home())
    before = _listing(data)
    sync_now(["opencode"])
    assert _listing(data) == before  # no -wal, no -shm, nothing touched


def test_a_wal_database_nobody_writes_is_opened_immutable(tmp_path: Path) -> None:
    folder = tmp_path / "agent"
    folder.mkdir()
    db = folder / "a.db"
    with sqlite3.connect(db) as conn:
        conn.execute("PRAGMA journal_mode = WAL")
        conn.execute("CREATE TABLE t(x)")
    conn.close()
    assert uri_for(db).endswith("?immutable=1")
    with open_readonly(db) as ro:
        assert ro.execute("SELECT count(*) FROM t").fetchone() == (0,)
        with pytest.raises(sqlite3.OperationalError):
            ro.execute("INSERT INTO t VALUES (1)")
    assert sorted(p.name for p in folder.iterdir()) == ["a.db"]


@pytest.mark.parametrize("wal", [True, False], ids=["wal", "rollback"])
def test_a_database_held_by_a_writer_is_read_without_blocking_it(wal: bool) -> None:
    data = lay_out_opencode(Path.home())
    db = opencode_data(Path.home()) / "opencode.db"
    if not wal:
        with sqlite3.connect(db) as conn:
            conn.execute("PRAGMA journal_mode = DELETE")
        conn.close()
    writer = sqlite3.connect(db, isolation_level=None, timeout=0)
    try:
        writer.execute("BEGIN IMMEDIATE")  # the agent in the middle of a write
        writer.execute(
            "UPDATE session SET title = 'Renamed mid-write', time_updated = 1767262000000"
            " WHERE id = 'ses_main'"
        )
        if wal:
            assert uri_for(db).endswith("?mode=ro")  # its -wal is there: read through it
        report = sync_now(["opencode"])
        assert report.files_failed == 0
        assert stored("opencode")["ses_main"]["title"] == "Fix the flaky timezone test"
        writer.execute("COMMIT")  # timeout 0: it would fail if recall still held a lock
    finally:
        writer.close()
    assert data.is_dir()
    assert sync_now(["opencode"]).sessions_touched == 1  # the committed rename, read next time
    assert stored("opencode")["ses_main"]["title"] == "Renamed mid-write"
