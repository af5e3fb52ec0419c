"""The full-text index follows the messages table through every kind of write.

New messages are indexed in bulk by the writer (migration m004_bulk_fts), not
by a trigger; these tests hold the index to its content table through inserts,
in-place updates, rewinds, replacement and an upgrade from the trigger schema.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from recall.ingest import redacted_part, store_part
from recall.privacy.redaction import current
from recall.store import migrations as migrations_module
from recall.store import open_writer
from recall.store.health import index_problems
from recall.types import ASSISTANT, USER, Message, SessionInfo, SessionPart


def _part(
    sid: str, *texts: str, replace: bool = False, rewinds: list[str] | None = None
) -> SessionPart:
    messages = [
        Message(f"{sid}-{n}", USER if n % 2 == 0 else ASSISTANT, text, "2026-01-02T03:04:05Z")
        for n, text in enumerate(texts)
    ]
    return SessionPart(SessionInfo(sid, "claude", "/p"), messages, replace, rewinds or [])


def _write(db_path: Path, *parts: SessionPart) -> None:
    with open_writer(db_path) as store, store.transaction() as db:
        for part in parts:
            store_part(db, redacted_part(part, current()), "box", None)


def _hits(db_path: Path, word: str) -> set[str]:
    conn = sqlite3.connect(db_path)
    try:
        rows = conn.execute(
            "SELECT m.key FROM messages_fts JOIN messages m ON m.id = messages_fts.rowid"
            " WHERE messages_fts MATCH ?",
            (word,),
        ).fetchall()
    finally:
        conn.close()
    return {r[0] for r in rows}


def _indexed_rows(db_path: Path) -> int:
    conn = sqlite3.connect(db_path)
    try:
        return int(conn.execute("SELECT count(*) FROM messages_fts_docsize").fetchone()[0])
    finally:
        conn.close()


def test_new_messages_are_searchable_once(tmp_path: Path) -> None:
    db = tmp_path / "recall.db"
    _write(db, _part("a", "pick zebra colours", "zebra it is"), _part("b", "no stripes here"))
    _write(db, _part("a", "pick zebra colours", "zebra it is", "and a zebra crossing"))
    assert _hits(db, "zebra") == {"a-0", "a-1", "a-2"}
    assert _indexed_rows(db) == 4
    assert index_problems(db) == []


def test_a_message_updated_in_place_is_found_by_its_new_text_only(tmp_path: Path) -> None:
    db = tmp_path / "recall.db"
    _write(db, _part("a", "draft mentions walrus"))
    _write(db, _part("a", "final mentions narwhal"))
    assert _hits(db, "walrus") == set()
    assert _hits(db, "narwhal") == {"a-0"}
    assert index_problems(db) == []


def test_rewind_and_replace_leave_no_stale_entries(tmp_path: Path) -> None:
    db = tmp_path / "recall.db"
    _write(db, _part("a", "one otter", "two otters", "three otters"))
    _write(db, _part("a", "one otter", rewinds=["a-1"]))
    assert _hits(db, "otter") == {"a-0"}
    _write(db, _part("a", "only a heron now", replace=True))
    assert _hits(db, "otter") == set()
    assert _hits(db, "heron") == {"a-0"}
    assert _indexed_rows(db) == 1
    assert index_problems(db) == []


def test_an_index_made_with_the_insert_trigger_upgrades_cleanly(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    db = tmp_path / "recall.db"
    # a database made before m004: none of the migrations from m004 on
    everything = migrations_module.MIGRATIONS
    before = everything[: everything.index(migrations_module.m004_bulk_fts)]
    monkeypatch.setattr(migrations_module, "MIGRATIONS", before)
    monkeypatch.setattr(migrations_module, "latest", lambda: before[-1].__name__)
    # what the writer of that schema left: rows its trigger indexed
    with open_writer(db) as store, store.transaction() as conn:
        session = conn.execute(
            "INSERT INTO sessions(session_id, agent, computer, updated_at)"
            " VALUES ('a', 'claude', 'box', 0)"
        ).lastrowid
        conn.execute(
            "INSERT INTO messages(session, position, key, role, text)"
            " VALUES (?, 0, 'a-0', 'user', 'kept from the old schema: llama')",
            (session,),
        )
        assert conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'messages_ai'").fetchone()
    assert index_problems(db) == []

    monkeypatch.undo()
    _write(db, _part("a", "kept from the old schema: llama", "written after: alpaca llama"))
    assert _hits(db, "llama") == {"a-0", "a-1"}
    assert _indexed_rows(db) == 2  # indexed once: the trigger skips the writer's rows
    assert index_problems(db) == []


def test_an_older_writer_inserting_after_the_upgrade_is_still_indexed(tmp_path: Path) -> None:
    """An older recall still running during an upgrade (a long sync) inserts rows the
    way its own writer did, without `bulk`: the insert trigger must index them."""
    db = tmp_path / "recall.db"
    _write(db, _part("a", "new writer: heron"))
    with open_writer(db) as store, store.transaction() as conn:
        (session,) = conn.execute("SELECT id FROM sessions").fetchone()
        conn.execute(
            "INSERT INTO messages(session, position, key, role, text)"
            " VALUES (?, 5, 'old-1', 'user', 'old writer: giraffe')",
            (session,),
        )
    _write(db, _part("a", "new writer: heron", "new again: giraffe"))
    assert _hits(db, "giraffe") == {"old-1", "a-1"}
    assert _indexed_rows(db) == 3
    assert index_problems(db) == []


def test_a_key_repeated_within_one_part_is_stored_and_indexed_once(tmp_path: Path) -> None:
    db = tmp_path / "recall.db"
    info = SessionInfo("g", "gemini", "/p")
    first = Message("m1", ASSISTANT, "draft about a walrus", "2026-01-02T03:04:05Z")
    again = Message("m1", ASSISTANT, "final answer about a narwhal", None)
    other = Message("m2", USER, "thanks", None)
    _write(db, SessionPart(info, [first, other, again]))
    assert _hits(db, "walrus") == set()
    assert _hits(db, "narwhal") == {"m1"}
    conn = sqlite3.connect(db)
    rows = conn.execute("SELECT key, position, ts FROM messages ORDER BY position").fetchall()
    conn.close()
    assert [(k, p) for k, p, _ in rows] == [("m1", 0), ("m2", 1)]
    assert rows[0][2] is not None  # the repeat had no timestamp: the first one stays
    _write(db, SessionPart(info, [again, first]))  # and again over a stored row
    assert _hits(db, "walrus") == {"m1"}
    assert _indexed_rows(db) == 2
    assert index_problems(db) == []


def test_a_repeated_key_updates_the_stored_row_as_the_conflict_clause_says(
    tmp_path: Path,
) -> None:
    """Stored "final"; a part brings "draft" then "final" again with a newer time:
    each repeat is applied in turn, so the newer timestamp is kept."""
    db = tmp_path / "recall.db"
    info = SessionInfo("g", "gemini", "/p")
    _write(db, SessionPart(info, [Message("m1", ASSISTANT, "final", "2025-01-01T00:00:00Z")]))
    draft = Message("m1", ASSISTANT, "draft", "2025-02-01T00:00:00Z")
    final = Message("m1", ASSISTANT, "final", "2025-03-02T00:00:00Z")
    _write(db, SessionPart(info, [draft, final]))
    conn = sqlite3.connect(db)
    rows = conn.execute("SELECT text, ts FROM messages").fetchall()
    conn.close()
    assert rows == [("final", 1740873600.0)]
    assert _hits(db, "final") == {"m1"} and _hits(db, "draft") == set()
    assert index_problems(db) == []
