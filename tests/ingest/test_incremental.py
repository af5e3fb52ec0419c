"""Incremental ingest: a grown transcript costs its new bytes, and pieces add up to the whole."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from recall.agents import ADAPTERS
from recall.ingest import ingest_path
from recall.store import open_reader, open_writer
from recall.store.queries import load_mirror

JSONL_FIXTURES = [
    (
        "claude",
        "claude/claude-code-viewer/sample-project/5c0375b4-57a5-4f26-b12d-d022ee4e51b7.jsonl",
    ),
    ("claude", "claude/agent-sessions/small.jsonl"),
    ("claude", "claude/claude-code-log/edge_cases.jsonl"),
    ("codex", "codex/agent-sessions/small.jsonl"),
    ("codex", "codex/agent-sessions/large.jsonl"),
    ("gemini", "gemini/agent-sessions/jsonl_v040.jsonl"),
]


def _mirrors(db_path: Path) -> dict[str, list[tuple[str, str]]]:
    with open_reader(db_path) as store:
        rows = store.conn.execute("SELECT id, session_id FROM sessions").fetchall()
        return {
            sid: [(m.role, m.text) for m in load_mirror(store.conn, rowid).messages]
            for rowid, sid in rows
        }


@pytest.mark.parametrize(("agent", "rel"), JSONL_FIXTURES)
def test_pieces_add_up_to_the_whole(
    agent: str, rel: str, transcripts: Path, tmp_path: Path
) -> None:
    adapter = ADAPTERS[agent]
    data = (transcripts / rel).read_bytes()
    whole_db, grown_db = tmp_path / "whole.db", tmp_path / "grown.db"
    whole = tmp_path / "whole" / Path(rel).name
    whole.parent.mkdir()
    shutil.copy(transcripts / rel, whole)
    with open_writer(whole_db) as store:
        ingest_path(store, adapter, whole, "box")

    grown = tmp_path / "grown" / Path(rel).name
    grown.parent.mkdir()
    cuts = [i + 1 for i, b in enumerate(data) if b == 0x0A]
    # Grow the file a few lines at a time, sometimes stopping mid-line.
    points = sorted({*cuts[::3], *(c - 7 for c in cuts[1::5] if c > 7), len(data)})
    with open_writer(grown_db) as store:
        written = 0
        for point in points:
            with open(grown, "ab") as fh:
                fh.write(data[written:point])
            written = point
            job = ingest_path(store, adapter, grown, "box")
            assert job is not None
            # Only bytes not yet consumed were read: never the whole file again.
            assert job.nbytes <= point - job.base
    assert _mirrors(grown_db) == _mirrors(whole_db)
    assert any(_mirrors(whole_db).values())


def test_growth_reads_only_the_new_turn(transcripts: Path, tmp_path: Path) -> None:
    rel = "claude/claude-code-viewer/sample-project/5c0375b4-57a5-4f26-b12d-d022ee4e51b7.jsonl"
    path = tmp_path / "s.jsonl"
    shutil.copy(transcripts / rel, path)
    size = path.stat().st_size
    line = (
        b'{"type":"user","uuid":"new-turn-1","sessionId":"5c0375b4-57a5-4f26-b12d-d022ee4e51b7",'
        b'"timestamp":"2025-09-07T10:00:00Z","message":{"role":"user",'
        b'"content":"one more question about zebras"}}\n'
    )
    with open_writer() as store:
        first = ingest_path(store, ADAPTERS["claude"], path, "box")
        assert first is not None and first.nbytes == size
        assert ingest_path(store, ADAPTERS["claude"], path, "box") is None  # unchanged: a stat
        with open(path, "ab") as fh:
            fh.write(line)
        job = ingest_path(store, ADAPTERS["claude"], path, "box")
        assert job is not None and job.base == size and job.nbytes == len(line)
        texts = [r[0] for r in store.conn.execute("SELECT text FROM messages")]
        assert texts.count("one more question about zebras") == 1


def test_rewritten_file_is_read_again_from_the_start(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"

    def line(uuid: str, text: str) -> bytes:
        return (
            f'{{"type":"user","uuid":"{uuid}","sessionId":"s-rw","timestamp":"2026-01-01T00:00:00Z",'
            f'"message":{{"role":"user","content":"{text}"}}}}\n'
        ).encode()

    path.write_bytes(line("u1", "first version of the file") + line("u2", "second line"))
    with open_writer() as store:
        ingest_path(store, ADAPTERS["claude"], path, "box")
        path.write_bytes(line("u9", "a different file now"))  # shorter, different head
        job = ingest_path(store, ADAPTERS["claude"], path, "box")
        assert job is not None and job.base == 0
        texts = {r[0] for r in store.conn.execute("SELECT text FROM messages")}
    # The earlier turns stay in the mirror; the new content is added.
    assert {"first version of the file", "second line", "a different file now"} <= texts


def test_resumed_session_copy_is_stored_once(tmp_path: Path) -> None:
    """A resumed Claude session copies earlier lines (same uuids) into a new file."""

    def line(sid: str, uuid: str, text: str) -> str:
        return (
            f'{{"type":"user","uuid":"{uuid}","sessionId":"{sid}","timestamp":"2026-01-01T00:00:0{uuid[-1]}Z",'
            f'"message":{{"role":"user","content":"{text}"}}}}\n'
        )

    old, new = tmp_path / "old.jsonl", tmp_path / "new.jsonl"
    old.write_text(line("s-old", "u1", "original question"))
    new.write_text(line("s-new", "u1", "original question") + line("s-new", "u2", "follow-up"))
    with open_writer() as store:
        ingest_path(store, ADAPTERS["claude"], old, "box")
        ingest_path(store, ADAPTERS["claude"], new, "box")
        rows = store.conn.execute(
            "SELECT s.session_id, m.text FROM messages m JOIN sessions s ON s.id = m.session"
            " ORDER BY s.session_id, m.position"
        ).fetchall()
    assert rows == [("s-new", "follow-up"), ("s-old", "original question")]
