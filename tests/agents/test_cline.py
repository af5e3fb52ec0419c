"""Cline and Roo Code: task folders (ui_messages.json) and the Cline SDK's session store.

Expected values were read off the fixture files by hand, never produced by the adapter.
"""

from __future__ import annotations

from pathlib import Path

from agentdbs import lay_out_cline_roo
from recall.jsonlines import SKIP_BAD_SHAPE
from synchelp import index_state, stored, sync_now


def test_roo_task_folders_keep_the_conversation() -> None:
    lay_out_cline_roo(Path.home())
    report = sync_now(["roo"])
    got = stored("roo")
    task = got["task-roo-1"]
    assert task["messages"] == [
        ("user", "Add pagination to the /orders endpoint"),
        ("assistant", "I'll add limit and cursor query parameters to /orders."),
        ("assistant", "Should the default page size be 50 or 100?"),
        ("user", "50, and cap it at 200"),
        ("assistant", "Pagination is in: limit defaults to 50, capped at 200."),
    ]
    assert task["project"] == "/work/shop" and task["started"] == 1767300000.0
    assert got["task-roo-sub"]["parent"] == "task-roo-1"
    assert report.skipped[SKIP_BAD_SHAPE] == 1  # the stray string
    assert "NOT-INDEXED" not in repr(got)


def test_cline_task_folders_and_sdk_sessions() -> None:
    lay_out_cline_roo(Path.home())
    sync_now(["cline"])
    got = stored("cline")
    assert got["1767000000000"]["messages"] == [
        ("user", "Why does the docker build miss the .env file?"),
        ("assistant", "The .dockerignore lists .env; copy it at run time instead."),
        ("user", "ok, do that"),
        ("assistant", "The compose file now mounts .env at run time."),
    ]
    assert got["1767000000000"]["project"] == "/work/infra"
    sdk = got["sess_a1"]
    assert sdk["messages"] == [
        ("user", "Make the CI cache hit more often"),
        ("assistant", "Key the cache on the lockfile hash, not the branch."),
        ("assistant", "Done: the cache key is now hashFiles('package-lock.json')."),
    ]
    assert (sdk["title"], sdk["project"]) == ("Speed up the CI cache", "/work/ci")
    assert got["sub_b2"]["parent"] == "sess_a1"
    assert "NOT-INDEXED" not in repr(got)


def test_a_rewritten_task_is_read_again_alone() -> None:
    lay_out_cline_roo(Path.home())
    sync_now(["cline", "roo"])
    before = index_state()
    assert sync_now(["cline", "roo"]).files_read == 0 and index_state() == before
    ui = next(Path.home().rglob("task-roo-sub/ui_messages.json"))
    ui.write_text(
        '[{"ts":1767300003500,"type":"say","say":"task","text":"Write tests for pagination"},'
        '{"ts":1767300009999,"type":"say","say":"completion_result","text":"Six tests now."}]'
    )
    again = sync_now(["cline", "roo"])
    assert (again.files_read, again.sessions_touched) == (1, 1)
    assert stored("roo")["task-roo-sub"]["messages"] == [
        ("user", "Write tests for pagination"),
        ("assistant", "Six tests now."),
    ]
