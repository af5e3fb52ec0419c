"""Agent databases built from SQL (tests/fixtures/agents/*/*.sql), and a stand-in home that
holds every agent's fixtures at its default place, for sync to find in one run."""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

from paths import REPO

AGENT_FIXTURES = REPO / "tests" / "fixtures" / "agents"


def build_db(sql: Path, target: Path, wal: bool = True) -> Path:
    """The database `sql` describes, at `target`, in WAL mode like the agents' own; closed,
    so no `-wal` file is left (as after the agent quits)."""
    target.parent.mkdir(parents=True, exist_ok=True)
    target.unlink(missing_ok=True)
    conn = sqlite3.connect(target)
    try:
        if wal:
            conn.execute("PRAGMA journal_mode = WAL")
        conn.executescript(sql.read_text(encoding="utf-8"))
        conn.commit()
    finally:
        conn.close()
    return target


def opencode_data(home: Path) -> Path:
    return home / ".local" / "share" / "opencode"


def cursor_user(home: Path) -> Path:
    return home / ".config" / "Cursor" / "User"


def lay_out_opencode(home: Path, shared: Path | None = None) -> Path:
    """OpenCode's data folder: the database, the legacy tree (ours, and the shared samples'
    trees as further storage folders would be read by a configured root)."""
    data = opencode_data(home)
    build_db(AGENT_FIXTURES / "opencode" / "opencode.sql", data / "opencode.db")
    shutil.copytree(AGENT_FIXTURES / "opencode" / "storage", data / "storage")
    return data


def lay_out_cursor(home: Path, shared: Path | None = None) -> Path:
    """Cursor: the IDE database, our transcripts and the shared samples as agent transcripts."""
    build_db(
        AGENT_FIXTURES / "cursor" / "state.vscdb.sql",
        cursor_user(home) / "globalStorage" / "state.vscdb",
    )
    ours = home / ".cursor" / "projects" / "work-db" / "agent-transcripts"
    shutil.copytree(AGENT_FIXTURES / "cursor" / "transcripts", ours)
    if shared is not None:
        theirs = home / ".cursor" / "projects" / "samples" / "agent-transcripts"
        shutil.copytree(shared / "cursor" / "agent-sessions", theirs)
    return cursor_user(home)


def lay_out_cline_roo(home: Path) -> None:
    """Roo Code's and Cline's task folders in VS Code's globalStorage (Linux place), and a
    Cline SDK session store with its `sessions.db`."""
    storage = home / ".config" / "Code" / "User" / "globalStorage"
    shutil.copytree(AGENT_FIXTURES / "roo", storage / "rooveterinaryinc.roo-cline")
    shutil.copytree(AGENT_FIXTURES / "cline", storage / "saoudrizwan.claude-dev")
    sdk = home / ".cline" / "data" / "sessions"
    shutil.copytree(AGENT_FIXTURES / "cline-sdk", sdk, ignore=shutil.ignore_patterns("*.sql"))
    build_db(AGENT_FIXTURES / "cline-sdk" / "sessions.sql", sdk / "sessions.db")


def goose_sessions(home: Path) -> Path:
    return home / ".local" / "share" / "goose" / "sessions"


def lay_out_goose(home: Path) -> Path:
    """Goose's sessions folder (Linux and macOS place): `sessions.db` and two older JSONL
    files, one of them a session the database also holds (Goose imported it)."""
    folder = goose_sessions(home)
    build_db(AGENT_FIXTURES / "goose" / "sessions.sql", folder / "sessions.db")
    for name in ("legacy-chat.jsonl", "imported-chat.jsonl"):
        shutil.copyfile(AGENT_FIXTURES / "goose" / name, folder / name)
    return folder


def crush_project(home: Path) -> Path:
    return home / "work" / "gosvc"


def lay_out_crush(home: Path) -> Path:
    """A project's `.crush/crush.db`, listed in Crush's `projects.json` in its global data
    folder (where recall finds it)."""
    project = crush_project(home)
    db = build_db(AGENT_FIXTURES / "crush" / "crush.sql", project / ".crush" / "crush.db")
    listing = home / ".local" / "share" / "crush" / "projects.json"
    listing.parent.mkdir(parents=True, exist_ok=True)
    entry = {
        "path": str(project),
        "data_dir": str(db.parent),
        "last_accessed": "2026-01-08T12:00:00Z",
    }
    gone = {
        "path": "/nowhere",
        "data_dir": "/nowhere/.crush",
        "last_accessed": "2025-01-01T00:00:00Z",
    }
    listing.write_text(json.dumps({"projects": [entry, gone]}, indent=2))
    return db


def lay_out_continue(home: Path) -> Path:
    folder = home / ".continue" / "sessions"
    shutil.copytree(AGENT_FIXTURES / "continue" / "sessions", folder)
    return folder
