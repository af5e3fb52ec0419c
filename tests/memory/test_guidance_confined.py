"""Issue 21 item 4: a guidance file is read only where it really lives inside its project
(or, for Markdown, inside the user's agent folders).

A repository decides what its AGENTS.md is: `AGENTS.md -> ~/.bash_history` used to
put the user's shell history in the index, searchable, served to peers and injected
into other projects' context.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from clihelp import call, run
from recall.memory import files
from recall.memory.files import Source, index_file
from recall.store import open_reader, open_writer
from secretcorpus import db_bytes

pytestmark = pytest.mark.skipif(not hasattr(os, "symlink"), reason="needs symlinks")
HISTORY = "cd /srv/zebra\nmysql -u root -pRootPw99 zebradb\ngit push\n"


def _session_in(capsys: pytest.CaptureFixture[str], tmp_path: Path, project: Path) -> None:
    src = tmp_path / "chat.jsonl"
    line = {"session": "s1", "role": "user", "text": "hello there", "project": str(project)}
    src.write_text(json.dumps(line) + "\n")
    assert call(capsys, "ingest", "--format", "jsonl", str(src))[0] == 0


def _found(capsys: pytest.CaptureFixture[str], word: str) -> list[str]:
    got = json.loads(call(capsys, "search", word, "--scope", "files", "--json")[1])
    return sorted(Path(r["path"]).name for r in got["results"])


def _indexed_paths() -> list[str]:
    with open_reader() as store:
        return sorted(r[0] for r in store.conn.execute("SELECT path FROM files"))


@pytest.fixture
def home() -> Path:
    path = Path(os.environ["HOME"])
    (path / ".bash_history").write_text(HISTORY)
    return path


def test_a_guidance_symlink_out_of_the_project_is_not_read(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, home: Path
) -> None:
    project = tmp_path / "cloned-repo"
    project.mkdir()
    (project / "AGENTS.md").symlink_to(home / ".bash_history")
    (project / "CLAUDE.md").write_text("# Rules\n\nzebra crossings are tested nightly\n")
    _session_in(capsys, tmp_path, project)
    assert call(capsys, "sync", "-q", "--no-embed")[0] == 0
    assert _found(capsys, "zebra") == ["CLAUDE.md"]  # the project's own file still is
    assert _found(capsys, "zebradb") == []
    assert not any(p.endswith("AGENTS.md") for p in _indexed_paths())
    log = (Path(os.environ["RECALL_HOME"]) / "recall.log").read_text()
    assert "AGENTS.md" in log and "outside the project" in log
    other = {"cwd": "/somewhere/else", "prompt": "how do I log in to zebradb with mysql?"}
    done = run("context", "--event", "prompt-submit", stdin=json.dumps(other).encode())
    assert b"RootPw99" not in done.stdout and b"zebradb" not in done.stdout


def test_symlinked_folders_and_agent_folders(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, home: Path
) -> None:
    """Inside the project a link may go anywhere; out of it, only to a guidance file in
    the user's agent folders (a shared ~/.gemini/GEMINI.md, not ~/.claude's credentials
    nor its plans)."""
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "CLAUDE.md").write_text("# Out\n\nzebra notes from outside\n")
    (home / ".gemini").mkdir()
    (home / ".gemini" / "GEMINI.md").write_text("# Shared\n\nzebra shared guidance\n")
    (home / ".claude").mkdir()
    (home / ".claude" / ".credentials.json").write_text('{"zebra": "oauth"}\n')
    (home / ".claude" / "plans").mkdir()
    (home / ".claude" / "plans" / "quiet-zebra.md").write_text("# Plan\n\nzebra plan\n")
    project = tmp_path / "repo"
    (project / "docs").mkdir(parents=True)
    (project / "docs" / "agents.md").write_text("# Docs\n\nzebra docs inside\n")
    (project / "AGENTS.md").symlink_to("docs/agents.md")
    (project / "GEMINI.md").symlink_to(home / ".gemini" / "GEMINI.md")
    (project / "CLAUDE.local.md").symlink_to(home / ".claude" / ".credentials.json")
    (project / "CLAUDE.md").symlink_to(home / ".claude" / "plans" / "quiet-zebra.md")
    (project / ".claude").symlink_to(outside)  # so .claude/CLAUDE.md is outside too
    _session_in(capsys, tmp_path, project)
    assert call(capsys, "sync", "-q", "--no-embed")[0] == 0
    assert _found(capsys, "zebra") == ["AGENTS.md", "GEMINI.md"]


def test_a_link_indexed_before_is_dropped_on_the_next_sync(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project = tmp_path / "cloned-repo"
    project.mkdir()
    link = project / "AGENTS.md"
    link.symlink_to(home / ".bash_history")
    _session_in(capsys, tmp_path, project)
    with monkeypatch.context() as older:  # as an older recall did: the link followed
        older.setattr(files, "_confined", lambda source: source.path, raising=False)
        with open_writer() as store:
            index_file(store, Source(link, "guidance", "codex", str(project)))
    assert _found(capsys, "zebradb") == ["AGENTS.md"]
    home_dir = Path(os.environ["RECALL_HOME"])
    assert b"zebradb" in db_bytes(home_dir)
    assert call(capsys, "sync", "-q", "--no-embed")[0] == 0
    assert _found(capsys, "zebradb") == []
    assert _indexed_paths() == []
    assert b"zebradb" not in db_bytes(home_dir)  # compacted: not left in free pages or FTS


def test_claudes_project_memory_may_not_lead_out_either(
    capsys: pytest.CaptureFixture[str], home: Path
) -> None:
    folder = home / ".claude" / "projects" / "-work-demo"
    (folder / "memory").mkdir(parents=True)
    line = {
        "type": "user",
        "uuid": "u1",
        "sessionId": "0d6f1a3e-1111-4222-8333-444455556666",
        "cwd": "/work/demo",
        "timestamp": "2026-01-05T10:00:00Z",
        "message": {"role": "user", "content": "what is our release process?"},
    }
    (folder / "0d6f1a3e-1111-4222-8333-444455556666.jsonl").write_text(json.dumps(line) + "\n")
    (folder / "memory" / "MEMORY.md").symlink_to(home / ".bash_history")
    assert call(capsys, "sync", "-q", "--no-embed")[0] == 0
    assert _found(capsys, "zebradb") == []


def test_what_a_guidance_file_says_is_redacted(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    token = "ghp_R8vK2mQ9xTfL4wZp7NcY3hBd6JsGa1Ue5Hoi"
    project = tmp_path / "repo"
    project.mkdir()
    (project / "CLAUDE.md").write_text(f"# CI zebra\n\nuse GITHUB_TOKEN={token} for zebra\n")
    _session_in(capsys, tmp_path, project)
    assert call(capsys, "sync", "-q", "--no-embed")[0] == 0
    out = call(capsys, "search", "zebra", "--scope", "files", "--json")[1]
    assert "[REDACTED:" in out and token not in out
    with open_reader() as store:
        stored = " ".join(r[0] for r in store.conn.execute("SELECT text FROM file_chunks"))
    assert token not in stored
