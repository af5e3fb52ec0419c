"""Files as sources: MEMORY.md, daily logs and guidance files, indexed by content hash."""

from __future__ import annotations

import json
import os
import sqlite3
import sys
import threading
from pathlib import Path

import pytest

from clihelp import call
from recall.memory import files
from recall.memory.files import Source, index_file, memory_file
from recall.store import open_writer


def _memory_md(n: int, changed: int | None = None) -> str:
    parts = ["# Memory\n"]
    for i in range(n):
        body = f"note number {i} about topic{i}"
        if i == changed:
            body = "this section now talks about zeppelins"
        parts.append(f"## Topic {i}\n\n{body}\n")
    return "\n".join(parts)


def _count_chunk_writes(conn: sqlite3.Connection) -> None:
    """From now on, every row of `file_chunks` inserted, updated or deleted is logged in
    `temp.chunk_writes` (temporary triggers: the database file is untouched)."""
    conn.execute("CREATE TEMP TABLE chunk_writes(op TEXT, id INTEGER)")
    for op in ("INSERT", "UPDATE", "DELETE"):
        row = "old" if op == "DELETE" else "new"
        conn.execute(
            f"CREATE TEMP TRIGGER count_{op.lower()} AFTER {op} ON main.file_chunks BEGIN "
            f"INSERT INTO chunk_writes VALUES ('{op}', {row}.id); END"
        )


def _chunk_writes(conn: sqlite3.Connection) -> list[tuple[str, int]]:
    return conn.execute("SELECT op, id FROM chunk_writes").fetchall()


def test_editing_one_heading_of_200_rewrites_one_chunk(capsys: pytest.CaptureFixture[str]) -> None:
    path = memory_file()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(_memory_md(200), encoding="utf-8")
    with open_writer() as store:
        first = index_file(store, Source(path, "memory_md"))
        assert first.inserted == 200
        path.write_text(_memory_md(200, changed=117), encoding="utf-8")
        _count_chunk_writes(store.conn)
        again = index_file(store, Source(path, "memory_md"))
        writes = _chunk_writes(store.conn)
    assert (again.inserted, again.updated, again.deleted) == (0, 1, 0)
    assert [op for op, _ in writes] == ["UPDATE"]
    got = json.loads(call(capsys, "search", "zeppelins", "--json")[1])
    assert [(r["source"], r["heading"]) for r in got["results"]] == [("file", "Memory › Topic 117")]
    assert json.loads(call(capsys, "search", "topic117", "--json")[1])["found"] == 0


def test_an_unchanged_file_costs_a_hash_only(monkeypatch: pytest.MonkeyPatch) -> None:
    path = memory_file()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(_memory_md(20), encoding="utf-8")
    with open_writer() as store:
        index_file(store, Source(path, "memory_md"))
        cut: list[str] = []
        monkeypatch.setattr(files, "chunk_markdown", lambda text: cut.append(text) or [])
        _count_chunk_writes(store.conn)
        changes = store.conn.total_changes
        again = index_file(store, Source(path, "memory_md"))
        assert store.conn.total_changes == changes  # not one row written anywhere
        assert _chunk_writes(store.conn) == []
    assert not again.changed and cut == []


def test_sync_indexes_daily_logs_and_removes_deleted_files(
    capsys: pytest.CaptureFixture[str], recall_home: Path
) -> None:
    daily = recall_home / "daily"
    daily.mkdir(parents=True)
    (daily / "2026-01-05.md").write_text("# Standup\n\nWe picked Postgres for the ledger.\n")
    (daily / "notes.md").write_text("# Not a day\n\nPostgres elsewhere.\n")  # not a daily log name
    assert call(capsys, "sync", "-q", "--no-embed")[0] == 0
    got = json.loads(call(capsys, "search", "postgres", "--json")[1])
    assert [(r["source"], r["heading"], r["date"][:10]) for r in got["results"]] == [
        ("daily_log", "Standup", "2026-01-05")
    ]
    (daily / "2026-01-05.md").unlink()
    assert call(capsys, "sync", "-q", "--no-embed")[0] == 0
    assert json.loads(call(capsys, "search", "postgres", "--json")[1])["found"] == 0
    db = sqlite3.connect(recall_home / "recall.db")
    assert db.execute("SELECT count(*) FROM file_chunks").fetchone() == (0,)


def _session_in(capsys: pytest.CaptureFixture[str], tmp_path: Path, project: Path) -> None:
    src = tmp_path / "chat.jsonl"
    line = {"session": "s1", "role": "user", "text": "hello there", "project": str(project)}
    src.write_text(json.dumps(line) + "\n")
    assert call(capsys, "ingest", "--format", "jsonl", str(src))[0] == 0


def test_guidance_files_of_indexed_projects_are_sources(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    project = tmp_path / "proj"
    project.mkdir()
    (project / "CLAUDE.md").write_text("# Rules\n\n## Testing\n\nAlways run the flamingo suite.\n")
    (project / "AGENTS.md").write_text("# Agents\n\nThe flamingo suite is slow.\n")
    (project / ".claude").mkdir()
    (project / ".claude" / "CLAUDE.md").write_text("# Local\n\nflamingo fixtures live in tests/\n")
    elsewhere = tmp_path / "unindexed"
    elsewhere.mkdir()
    (elsewhere / "CLAUDE.md").write_text("flamingo here too, but no session lives here\n")
    _session_in(capsys, tmp_path, project)
    assert call(capsys, "sync", "-q", "--no-embed")[0] == 0
    got = json.loads(call(capsys, "search", "flamingo", "--scope", "files", "--json")[1])
    found = {(Path(r["path"]).name, r["heading"], r["agent"], r["project"]) for r in got["results"]}
    assert found == {
        ("CLAUDE.md", "Rules › Testing", "claude", str(project)),
        ("AGENTS.md", "Agents", "codex", str(project)),
        ("CLAUDE.md", "Local", "claude", str(project)),
    }
    assert (
        json.loads(call(capsys, "search", "flamingo", "--agent", "codex", "--json")[1])["found"]
        == 1
    )


def test_claude_codes_own_project_memory_is_a_source(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    folder = Path(os.environ["HOME"]) / ".claude" / "projects" / "-work-demo"
    folder.mkdir(parents=True)
    line = {
        "type": "user",
        "uuid": "u1",
        "sessionId": "0d6f1a3e-1111-4222-8333-444455556666",
        "cwd": "/work/demo",
        "timestamp": "2026-01-05T10:00:00Z",
        "message": {"role": "user", "content": "what is our release process?"},
    }
    (folder / "0d6f1a3e-1111-4222-8333-444455556666.jsonl").write_text(json.dumps(line) + "\n")
    (folder / "memory").mkdir()
    (folder / "memory" / "MEMORY.md").write_text(
        "# Release\n\nReleases go out via the pelican pipeline.\n"
    )
    assert call(capsys, "sync", "-q", "--no-embed")[0] == 0
    got = json.loads(call(capsys, "search", "pelican", "--json")[1])
    assert [(r["source"], r["agent"], r["kind"]) for r in got["results"]] == [
        ("file", "claude", "guidance")
    ]
    assert got["results"][0]["path"].endswith("-work-demo/memory/MEMORY.md")


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this platform")
def test_a_fifo_named_like_a_source_is_passed_over_without_blocking(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    project = tmp_path / "proj"
    project.mkdir()
    os.mkfifo(project / "CLAUDE.md")
    (project / "GEMINI.md").write_text("# Notes\n\nthe heron rule\n")
    _session_in(capsys, tmp_path, project)
    done = threading.Event()
    result: list[int] = []

    def go() -> None:
        result.append(call(capsys, "sync", "-q", "--no-embed")[0])
        done.set()

    threading.Thread(target=go, daemon=True).start()
    assert done.wait(60), "sync blocked on a FIFO"
    assert result == [0]
    assert json.loads(call(capsys, "search", "heron", "--json")[1])["found"] == 1


def test_memory_edit_opens_the_editor_and_indexes_the_file_at_once(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    code, out, _ = call(capsys, "memory", "path")
    assert code == 0 and out.strip() == str(memory_file())
    editor = tmp_path / "ed.sh"
    editor.write_text(
        '#!/bin/sh\nfor f; do :; done\nprintf "\\n## Travel\\n\\nAlways book the aisle seat.\\n" >> "$f"\n'
    )
    editor.chmod(0o755)
    monkeypatch.setenv("EDITOR", f"{editor} --wait")  # $EDITOR may carry arguments
    monkeypatch.setattr("recall.cli.editor.has_terminal", lambda: True)
    monkeypatch.delenv("VISUAL", raising=False)
    code, out, _ = call(capsys, "memory", "edit")
    assert code == 0 and "re-indexed" in out
    text = memory_file().read_text()
    assert text.startswith("# Memory") and "aisle seat" in text  # a new file starts from a template
    got = json.loads(call(capsys, "search", "aisle", "--mode", "keyword", "--json")[1])["results"]
    assert [(r["source"], r["heading"]) for r in got] == [("file", "Memory › Travel")]
    monkeypatch.setenv("EDITOR", "false")
    code, _, err = call(capsys, "memory", "edit")
    assert code == 1 and "editor exited with status 1" in err


@pytest.mark.skipif(sys.platform == "win32", reason="FIFOs and /dev/zero are POSIX")
@pytest.mark.parametrize("kind", ["a FIFO", "a character device", "a directory"])
def test_memory_edit_on_a_memory_file_that_is_no_file_is_one_line(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, kind: str
) -> None:
    from recall.memory.files import memory_file

    path = memory_file()
    path.parent.mkdir(parents=True, exist_ok=True)
    {
        "a FIFO": lambda: os.mkfifo(path),
        "a character device": lambda: os.symlink("/dev/zero", path),
        "a directory": path.mkdir,
    }[kind]()
    monkeypatch.setenv("EDITOR", "true")
    monkeypatch.setattr("recall.cli.editor.has_terminal", lambda: True)
    code, _, err = call(capsys, "memory", "edit")
    assert code == 1 and err.strip() == f"recall: {path} is {kind}, not a file recall can edit"


def test_an_editor_is_never_started_without_a_terminal(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("EDITOR", "touch")  # would leave a mark if it ran
    code, _, err = call(capsys, "remember", "the office wifi is upstairs")
    assert code == 0
    code, _, err = call(capsys, "memories", "edit", "1")
    assert code == 2 and "no terminal" in err
    code, _, err = call(capsys, "memory", "edit")
    assert code == 2 and "no terminal" in err
