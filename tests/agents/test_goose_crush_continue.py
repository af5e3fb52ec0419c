"""Goose (SQLite store and older JSONL), Crush (a SQLite store per project, listed in its
projects.json) and Continue (a JSON document per session), read from fixtures built from
each agent's own schema (tests/fixtures/agents/{goose,crush,continue}).

Expected values were read off the fixture files by hand, never produced by the adapters.
"""

from __future__ import annotations

import json
import sqlite3
import threading
from pathlib import Path

import pytest

from agentdbs import (
    crush_project,
    goose_sessions,
    lay_out_continue,
    lay_out_crush,
    lay_out_goose,
)
from recall.agents import ADAPTERS
from recall.agents.crush import SKIP_COMPRESSED, crush_roots
from recall.agents.goose import goose_roots
from recall.jsonlines import SKIP_BAD_SHAPE, SKIP_BROKEN
from synchelp import index_state, stored, sync_now

NEW = ["goose", "crush", "continue"]


@pytest.fixture
def home() -> Path:
    home = Path.home()
    lay_out_goose(home)
    lay_out_crush(home)
    lay_out_continue(home)
    return home


def _everything(agent: str) -> str:
    return repr(stored(agent))


def test_goose_keeps_the_conversation_the_user_saw(home: Path) -> None:
    sync_now(["goose"])
    got = stored("goose")
    main = got["20260105_1"]
    assert main["messages"] == [
        ("user", "Why does every build reinstall the npm packages?"),
        (
            "assistant",
            "Your Dockerfile copies the whole tree before npm ci, so any change busts the cache.",
        ),
        (
            "assistant",
            "Copy package.json and package-lock.json first, run npm ci, then copy the rest.",
        ),
        ("user", "Done, builds take 40 seconds now."),
    ]
    assert (main["title"], main["project"]) == ("Dockerfile layer caching", "/work/shop")
    assert main["started"] == 1767607200.0
    assert got["20260106_1"]["title"] == "kubernetes probes"  # the older description column
    assert "20260106_2" not in got  # Goose's hidden session
    # the older JSONL: its metadata line, a truncated last line left out
    assert got["legacy-chat"]["project"] == "/work/legacy"
    assert got["legacy-chat"]["messages"][-1] == ("user", "Set it to 0.01, thanks.")
    # a session Goose imported into its database is read from there, not from its JSONL
    assert got["imported-chat"]["messages"] == [("user", "How do I rotate nginx logs daily?")]
    for dropped in ("NOT-INDEXED", "the JSONL copy"):
        assert dropped not in _everything("goose")


def test_crush_keeps_text_parts_and_marks_sub_agents(home: Path) -> None:
    sync_now(["crush"])
    got = stored("crush")
    main = got["crush-main"]
    assert main["messages"] == [
        ("user", "go test ./... takes four minutes, why?"),
        (
            "assistant",
            "The integration package starts Postgres in every test; share one container with "
            "TestMain.",
        ),
        ("user", "Use TestMain then, and t.Parallel where safe."),
    ]
    # the project is the one projects.json lists, unless the session names its own
    assert main["project"] == str(crush_project(home))
    assert got["crush-task"]["parent"] == "crush-main"
    assert got["crush-task"]["project"] == "/work/gosvc/internal"
    assert main["started"] == 1767870000.0
    assert "NOT-INDEXED" not in _everything("crush")


def test_continue_keeps_user_and_assistant_text(home: Path) -> None:
    sync_now(["continue"])
    got = stored("continue")
    main = got["4f1c2a9e-0b7d-4c55-9a3e-3d2b1f0e7a11"]
    assert main["messages"] == [
        ("user", "The search box fires a request on every keystroke. Debounce it?"),
        ("assistant", "Wrap the fetch in a useDebouncedCallback with a 300 ms delay."),
        ("user", "And cancel the in-flight request with an AbortController."),
        ("assistant", "Keep the controller in a ref and abort it before each new fetch."),
    ]
    assert main["title"] == "Debounce the search box"
    assert main["project"] == "/work/web app"  # the file:// URI, decoded
    assert main["started"] == 1768046400.0  # sessions.json's dateCreated (ms, as a string)
    other = got["9d0e8b7c-6a5f-4e3d-2c1b-0a9f8e7d6c5b"]
    # "New Session" is Continue's placeholder: the first prompt titles it
    assert other["title"].startswith("How do I paginate a Prisma query")
    assert "NOT-INDEXED" not in _everything("continue")


def test_hostile_rows_and_documents_are_counted_not_raised(home: Path) -> None:
    report = sync_now(NEW)
    assert report.files_failed == 0
    assert stored("goose")["20260107_1"]["messages"] == [
        ("user", "hostile rows but this one is readable")
    ]
    assert stored("crush")["crush-hostile"]["messages"] == [
        ("user", "hostile rows but this one is readable")
    ]
    assert report.skipped.get(SKIP_BROKEN, 0) >= 4  # goose, crush, continue's truncated file
    assert report.skipped.get(SKIP_BAD_SHAPE, 0) >= 3
    assert report.skipped.get(SKIP_COMPRESSED, 0) == 1  # a zstd frame without zstd
    assert stored("continue")["broken-one"]["messages"] == []


def test_a_second_sync_writes_nothing_and_one_grown_session_is_read_alone(home: Path) -> None:
    first = sync_now(NEW)
    # goose: 4 in the database (one hidden left out) + 1 JSONL; crush 3; continue 3
    assert first.files_read == first.files_seen == 11
    before = index_state()
    again = sync_now(NEW)
    assert (again.files_read, again.sessions_touched) == (0, 0)
    assert index_state() == before
    # each agent adds one turn to one session: only those sessions are read again
    with sqlite3.connect(goose_sessions(home) / "sessions.db") as conn:
        conn.execute(
            "INSERT INTO messages (session_id, role, content_json, created_timestamp)"
            " VALUES ('20260106_1', 'user',"
            ' \'[{"type":"text","text":"And the readiness probe?"}]\', 1767690100)'
        )
    conn.close()
    with sqlite3.connect(crush_project(home) / ".crush" / "crush.db") as conn:
        conn.execute(
            "INSERT INTO messages VALUES ('t3', 'crush-task', 'user',"
            ' \'[{"type":"text","data":{"text":"Now the five fastest"}}]\','
            " NULL, 1767870070, 1767870070, NULL, NULL, 0)"
        )
    conn.close()
    path = home / ".continue/sessions/9d0e8b7c-6a5f-4e3d-2c1b-0a9f8e7d6c5b.json"
    doc = json.loads(path.read_text())
    doc["history"].append({"message": {"role": "user", "content": "And backwards?"}})
    path.write_text(json.dumps(doc))
    grown = sync_now(NEW)
    assert (grown.files_read, grown.sessions_touched) == (3, 3)
    assert stored("goose")["20260106_1"]["messages"][-1] == ("user", "And the readiness probe?")
    assert stored("crush")["crush-task"]["messages"][-1] == ("user", "Now the five fastest")
    got = stored("continue")["9d0e8b7c-6a5f-4e3d-2c1b-0a9f8e7d6c5b"]
    assert got["messages"][-1] == ("user", "And backwards?")


def test_a_database_held_by_a_writer_is_read_without_blocking_it(home: Path) -> None:
    """Goose and Crush write in WAL mode: a writer mid-transaction neither blocks recall nor
    is blocked by it."""
    db = goose_sessions(home) / "sessions.db"
    writer = sqlite3.connect(db, isolation_level=None, check_same_thread=False)
    writer.execute("BEGIN IMMEDIATE")
    writer.execute(
        "INSERT INTO messages (session_id, role, content_json, created_timestamp)"
        ' VALUES (\'20260105_1\', \'user\', \'[{"type":"text","text":"uncommitted"}]\', 1)'
    )
    done = threading.Event()

    def write_on() -> None:
        writer.execute("COMMIT")
        done.set()

    report = sync_now(["goose"])
    assert report.files_failed == 0 and "20260105_1" in stored("goose")
    assert not any("uncommitted" in t for _, t in stored("goose")["20260105_1"]["messages"])
    thread = threading.Thread(target=write_on)
    thread.start()
    thread.join(5)
    assert done.is_set()  # the writer was never made to wait
    writer.close()
    # the writer's WAL files went with it: recall, read-only, held them open and kept none
    names = sorted(p.name for p in db.parent.iterdir() if p.name.startswith("sessions.db"))
    assert names == ["sessions.db"]


def test_recall_leaves_nothing_beside_an_idle_database(home: Path) -> None:
    sync_now(NEW)
    names = sorted(p.name for p in goose_sessions(home).iterdir())
    assert names == ["imported-chat.jsonl", "legacy-chat.jsonl", "sessions.db"]
    crush = sorted(p.name for p in (crush_project(home) / ".crush").iterdir())
    assert crush == ["crush.db"]


def test_environment_overrides_name_the_stores(
    home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    goose_root = tmp_path / "goose-root"
    (goose_root / "data").mkdir(parents=True)
    goose_sessions(home).rename(goose_root / "data" / "sessions")
    monkeypatch.setenv("GOOSE_PATH_ROOT", str(goose_root))
    crush_data = tmp_path / "crush-data"
    (home / ".local/share/crush").rename(crush_data)
    monkeypatch.setenv("CRUSH_GLOBAL_DATA", str(crush_data))
    (home / ".continue").rename(tmp_path / "cont")
    monkeypatch.setenv("CONTINUE_GLOBAL_DIR", str(tmp_path / "cont"))
    sync_now(NEW)
    assert "20260105_1" in stored("goose")
    assert "crush-main" in stored("crush")
    assert "4f1c2a9e-0b7d-4c55-9a3e-3d2b1f0e7a11" in stored("continue")


def test_default_places_on_each_system(monkeypatch: pytest.MonkeyPatch) -> None:
    home = Path("/h")
    assert goose_roots(home)[:2] == [
        home / ".local/share/goose/sessions",
        home / "AppData/Roaming/Block/goose/data/sessions",
    ]
    monkeypatch.setenv("APPDATA", "C:/Users/me/AppData/Roaming")
    monkeypatch.setenv("LOCALAPPDATA", "C:/Users/me/AppData/Local")
    assert Path("C:/Users/me/AppData/Roaming/Block/goose/data/sessions") in goose_roots(home)
    assert crush_roots(home) == [
        home / ".local/share/crush",
        Path("C:/Users/me/AppData/Local/crush"),
    ]
    assert ADAPTERS["continue"].default_roots() == [Path.home() / ".continue" / "sessions"]
