"""Cursor: agent transcripts (the shared samples and ours, every layout) and the IDE's
`state.vscdb` chat rows (built from tests/fixtures/agents/cursor/state.vscdb.sql).

Expected values were read off the fixture files by hand, never produced by the adapter.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from agentdbs import cursor_user, lay_out_cursor
from recall.agents.cursor import CursorAdapter, decode_workspace
from recall.jsonlines import SKIP_BAD_SHAPE, SKIP_BROKEN
from synchelp import index_state, stored, sync_now

CURSOR = CursorAdapter()


def test_transcripts_keep_text_and_the_users_query(transcripts: Path) -> None:
    lay_out_cursor(Path.home(), transcripts)
    sync_now(["cursor"])
    got = stored("cursor")
    assert got["small"]["messages"] == [
        ("user", "List the files."),
        ("assistant", "Here are the files."),
        ("user", "Run ls."),
        ("assistant", "Running ls."),
    ]
    assert got["schema_drift"]["messages"][1] == (
        "assistant",
        "Cursor added an unknown block with visible text.",
    )
    assert got["parent:agent-child"]["parent"] == "parent"
    assert got["nested-1:agent-sub-a"]["parent"] == "nested-1"
    # the wrapper and the injected context go; a tool result alone is no turn; the
    # half-written last line waits for the rest
    assert got["c-transcript"]["messages"] == [
        ("user", "Why is the orders query slow?"),
        ("assistant", "It scans orders without an index on customer_id."),
        ("assistant", "Add CREATE INDEX ON orders(customer_id)."),
    ]
    assert got["legacy-chat"]["messages"] == [
        ("user", "Explain the retry policy in the billing worker"),
        ("assistant", "The billing worker retries three times with a fixed delay."),
        ("user", "Make the delay exponential"),
    ]
    # wrong types, a broken line, bad bytes, a half emoji: kept what reads, nothing more
    assert got["hostile"]["messages"] == [
        ("user", "plain string from the user"),
        ("assistant", "a block typed as a list keeps its text\n\na bare string block"),
        ("user", "first\n\nsecond"),
        ("assistant", "\ufffd half an emoji"),
    ]
    assert all(m[1] for s in got.values() for m in s["messages"])
    assert "NOT-INDEXED" not in repr(got)


def test_the_ide_database_keeps_chat_rows(transcripts: Path) -> None:
    lay_out_cursor(Path.home(), transcripts)
    report = sync_now(["cursor"])
    got = stored("cursor")
    main = got["c-main"]
    assert main["messages"] == [
        ("user", "Add exponential backoff to the S3 uploader"),
        ("assistant", "I wrapped upload() in a retry loop with jittered exponential backoff."),
        ("user", "Cap it at five attempts"),
        ("assistant", "Done: maxAttempts is 5."),
    ]
    assert (main["title"], main["project"]) == ("Add retry to the uploader", "/work/uploader")
    assert main["started"] == 1767261600.0
    assert got["c-sub"]["parent"] == "c-main"
    assert got["c-inline"]["messages"] == [
        ("user", "How do I rebase my branch onto main?"),
        ("assistant", "git fetch, then git rebase origin/main."),
    ]
    assert got["aichat-tab-1"]["title"] == "Old chat about webpack"
    assert got["aichat-tab-1"]["messages"][1][1].startswith("Turn on persistent caching")
    # hostile rows are counted; the readable bubble survives
    assert got["c-hostile"]["messages"] == [("user", "hostile composer, readable bubble")]
    assert report.skipped[SKIP_BROKEN] >= 1 and report.skipped[SKIP_BAD_SHAPE] >= 1
    # a chat with a transcript keeps the transcript's messages and the IDE's title
    assert got["c-transcript"]["title"] == "Profile the slow query"
    assert got["c-transcript"]["messages"][0] == ("user", "Why is the orders query slow?")
    assert "NOT-INDEXED" not in repr(got) and "NOT-A-COMPOSER" not in repr(got)


def test_incremental_resync_of_transcripts_and_chats(transcripts: Path) -> None:
    lay_out_cursor(Path.home(), transcripts)
    sync_now(["cursor"])
    before = index_state()
    again = sync_now(["cursor"])
    assert (again.files_read, again.sessions_touched) == (0, 0) and index_state() == before
    # a bubble appended to one chat: that chat alone is read again
    db = cursor_user(Path.home()) / "globalStorage" / "state.vscdb"
    with sqlite3.connect(db) as conn:
        conn.execute(
            "INSERT INTO cursorDiskKV VALUES ('bubbleId:c-inline:i3',"
            ' \'{"type":1,"text":"and if it conflicts?"}\')'
        )
    conn.close()
    grown = sync_now(["cursor"])
    assert (grown.files_read, grown.sessions_touched) == (1, 1)
    assert stored("cursor")["c-inline"]["messages"][-1] == ("user", "and if it conflicts?")
    # the half-written line of a transcript, finished, is read from where it stopped
    path = next(Path.home().rglob("c-transcript.jsonl"))
    with path.open("ab") as fh:
        fh.write(b"}]}}\n")
    finished = sync_now(["cursor"])
    assert finished.sessions_touched == 1
    assert stored("cursor")["c-transcript"]["messages"][-1] == ("user", "do it")


def test_the_workspace_name_is_decoded_against_the_disk(tmp_path: Path) -> None:
    (tmp_path / "src" / "my-app").mkdir(parents=True)
    name = "-".join((*tmp_path.parts[1:], "src", "my-app"))
    assert decode_workspace(name) == str(tmp_path / "src" / "my-app")
    assert decode_workspace("no-such-folder-anywhere") is None


def test_only_transcripts_under_agent_transcripts_are_owned(tmp_path: Path) -> None:
    assert CURSOR.owns(tmp_path / "p" / "agent-transcripts" / "x.jsonl")
    assert not CURSOR.owns(tmp_path / "p" / "other" / "x.jsonl")
