"""OpenCode: its SQLite store (built from tests/fixtures/agents/opencode/opencode.sql), its
older JSON tree (ours and the shared samples), read-only and per session.

Expected values were read off the fixture files by hand, never produced by the adapter.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from agentdbs import lay_out_opencode, opencode_data
from recall.agents import agentdb
from recall.agents.opencode import OpenCodeAdapter
from recall.jsonlines import SKIP_BAD_SHAPE, SKIP_BROKEN
from recall.types import TITLE_AGENT
from synchelp import index_state, stored, sync_now

OPENCODE = OpenCodeAdapter()


@pytest.fixture
def home() -> Path:
    home = Path.home()
    lay_out_opencode(home)
    return home


def _read(root: Path) -> dict[str, tuple[object, ...]]:
    out = {}
    for s in OPENCODE.sessions(root):
        parsed = OPENCODE.read_session(s)
        for part in parsed.parts:
            info = part.info
            texts = [(m.role, m.text) for m in part.messages]
            out[info.session_id] = (info.title, info.project, info.parent_session_id, texts)
    return out


def test_the_shared_samples_keep_text_parts_only(transcripts: Path) -> None:
    base = transcripts / "opencode" / "agent-sessions"
    got = _read(base / "storage_v2")
    assert got["s_stage0_small"] == (
        "OpenCode Small",
        "/tmp/repo",
        None,
        [("user", "Hello"), ("assistant", "Found 2 files.")],
    )
    # the synthetic text part and the tool, file, reasoning, step, compaction and patch
    # parts of the first answer leave it empty, so it is not a turn
    assert got["s_stage0_large"][3] == [
        ("user", "Step 1"),
        ("user", "Step 2"),
        ("assistant", "Ok"),
    ]
    # the older tree: parts kept flat under part/, each naming its message
    legacy = _read(base / "storage_legacy")
    assert legacy["s_stage0_drift"] == (
        "OpenCode Drift",
        "/tmp/drift",
        None,
        [("assistant", "Read README and extracted the title.")],
    )


def test_the_database_keeps_the_conversation(home: Path) -> None:
    sync_now(["opencode"])
    got = stored("opencode")
    main = got["ses_main"]
    assert main["messages"] == [
        ("user", "Why does the timezone test fail only in CI?"),
        ("assistant", "CI runs in UTC; the test assumes Europe/Paris."),
        ("user", "Set TZ in jest.config then."),
        ("assistant", "Done: TZ=Europe/Paris is set in jest.config.js."),
    ]
    assert (main["title"], main["project"]) == ("Fix the flaky timezone test", "/work/app/api")
    assert main["started"] == 1767261600.0 and main["ended"] == 1767261710.0
    assert got["ses_child"]["parent"] == "ses_main"
    # OpenCode's placeholder is no title: the first prompt titles it
    assert got["ses_placeholder"]["title"].startswith("How do I expose a kubernetes ingress")
    assert got["ses_empty"]["messages"] == []
    # a session in both layouts is one session, read from the database
    assert got["ses_both"]["messages"][0] == (
        "user",
        "Rotate the JWT signing keys without downtime",
    )
    assert got["ses_both"]["title"] == "Rotate the signing keys"
    assert got["ses_legacy"]["messages"] == [
        ("user", "Migrate the cron jobs to systemd timers"),
        ("assistant", "Each cron line becomes a .timer and a .service unit."),
    ]
    everything = repr(got)
    for dropped in ("NOT-INDEXED",):
        assert dropped not in everything


def test_hostile_rows_are_counted_not_raised(home: Path) -> None:
    report = sync_now(["opencode"])
    assert stored("opencode")["ses_hostile"]["messages"] == [
        ("user", "hostile rows but this one is readable")
    ]
    assert report.skipped.get(SKIP_BROKEN, 0) >= 2  # a message and a part that are not JSON
    assert report.skipped.get(SKIP_BAD_SHAPE, 0) >= 1  # a message that is a JSON array


def test_a_row_too_big_is_passed_over_without_loading_it(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    db = opencode_data(home) / "opencode.db"
    with sqlite3.connect(db) as conn:
        conn.execute(
            'UPDATE part SET data = \'{"type":"text","text":"\' || hex(zeroblob(4096)) || \'"}\''
            " WHERE id = 'prt_04a'"
        )
    conn.close()
    monkeypatch.setattr(agentdb, "MAX_ROW", 4096)
    report = sync_now(["opencode"])
    assert report.skipped[agentdb.SKIP_BIG_ROW] == 1
    texts = [t for _, t in stored("opencode")["ses_main"]["messages"]]
    assert "Set TZ in jest.config then." in texts and not any("0000" in t for t in texts)


def test_a_second_sync_writes_nothing_and_one_grown_session_is_read_alone(home: Path) -> None:
    first = sync_now(["opencode"])
    assert first.files_read == first.files_seen == 7  # 6 in the database, 1 only in the tree
    before = index_state()
    again = sync_now(["opencode"])
    assert (again.files_read, again.sessions_touched) == (0, 0)
    assert index_state() == before
    # the agent appends a turn to one session: only that session is read again
    with sqlite3.connect(opencode_data(home) / "opencode.db") as conn:
        conn.execute(
            "INSERT INTO message VALUES ('msg_p3', 'ses_placeholder', 1767344500000,"
            ' 1767344500000, \'{"role":"user"}\')'
        )
        conn.execute(
            "INSERT INTO part VALUES ('prt_p3', 'msg_p3', 'ses_placeholder', 1767344500000,"
            ' 1767344500000, \'{"type":"text","text":"And for gRPC backends?"}\')'
        )
        conn.execute("UPDATE session SET time_updated = 1767344500000 WHERE id = 'ses_placeholder'")
    conn.close()
    grown = sync_now(["opencode"])
    assert (grown.files_read, grown.sessions_touched) == (1, 1)
    assert stored("opencode")["ses_placeholder"]["messages"][-1] == (
        "user",
        "And for gRPC backends?",
    )


def test_an_edit_in_place_is_seen_by_its_update_time(home: Path) -> None:
    sync_now(["opencode"])
    with sqlite3.connect(opencode_data(home) / "opencode.db") as conn:
        conn.execute(
            "UPDATE part SET time_updated = 1767261999000,"
            ' data = \'{"type":"text","text":"Done: TZ=UTC everywhere instead."}\''
            " WHERE id = 'prt_04a'"
        )
    conn.close()
    assert sync_now(["opencode"]).sessions_touched == 1
    assert stored("opencode")["ses_main"]["messages"][-1] == (
        "assistant",
        "Done: TZ=UTC everywhere instead.",
    )


def test_a_deleted_session_keeps_its_mirror(home: Path) -> None:
    sync_now(["opencode"])
    with sqlite3.connect(opencode_data(home) / "opencode.db") as conn:
        conn.execute("DELETE FROM part WHERE session_id = 'ses_child'")
        conn.execute("DELETE FROM message WHERE session_id = 'ses_child'")
        conn.execute("DELETE FROM session WHERE id = 'ses_child'")
    conn.close()
    report = sync_now(["opencode"])
    assert report.missing == 1
    assert stored("opencode")["ses_child"]["messages"]  # recall's copy outlives the agent's


def test_the_title_is_the_agents(home: Path) -> None:
    parsed = OPENCODE.read_session(
        next(s for s in OPENCODE.sessions(opencode_data(home)) if s.session_id == "ses_main")
    )
    assert parsed.parts[0].info.title_rank == TITLE_AGENT


def test_opencode_db_names_the_database(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    elsewhere = home / "elsewhere.db"
    (opencode_data(home) / "opencode.db").rename(elsewhere)
    monkeypatch.setenv("OPENCODE_DB", str(elsewhere))
    sync_now(["opencode"])
    assert "ses_main" in stored("opencode")
