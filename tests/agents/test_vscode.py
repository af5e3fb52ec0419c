"""VS Code Copilot Chat: `<User>/workspaceStorage/<hash>/chatSessions/<id>.json|.jsonl`.

recall's fixtures (`tests/fixtures/agents/vscode`, built from microsoft/vscode's
`chatModel.ts` serialized shape, version 3, and `objectMutationLog.ts`): a
snapshot with markdown split around a reference, thinking, tool invocations,
code-block URIs and edit groups, a cancelled request, requests of the wrong
shape; a mutation log with pushes, a truncating push, a set, a delete, an
entry that does not apply, a broken line and a half-written last line; and an
empty window's session. Expected values were read off the files by hand.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from clihelp import call, call_json
from recall.agents import ADAPTERS, adapter_for
from recall.agents.vscode import SKIP_BAD_LOG
from recall.jsonlines import SKIP_BAD_SHAPE, SKIP_BROKEN
from synchelp import index_state, stored, sync_now

FIXTURES = Path(__file__).parents[1] / "fixtures" / "agents" / "vscode"
USER = Path(".config", "Code", "User")
SNAPSHOT = "a41c7e52-0d3b-4f8e-9a61-5c2b7d9e0f13"
LOG = "c93e1f07-5a2d-4b6c-8e9f-0a1b2c3d4e5f"
EMPTY = "e0d1c2b3-a495-4867-8123-456789abcdef"
WORKSPACE = "5f0b2c9e8d7a6b5c4d3e2f1a0b9c8d7e"


def _lay_out(home: Path) -> Path:
    shutil.copytree(FIXTURES, home / USER)
    return home / USER / "workspaceStorage" / WORKSPACE / "chatSessions" / f"{LOG}.jsonl"


def test_prompts_and_markdown_answers_are_kept_and_the_rest_is_not() -> None:
    _lay_out(Path.home())
    report = sync_now(["vscode"])
    assert report.files_failed == 0
    got = stored("vscode")
    assert set(got) == {SNAPSHOT, LOG, EMPTY}
    snap = got[SNAPSHOT]
    assert snap["messages"] == [
        ("user", "Why is the cart total off by a cent for three items at 0.10?"),
        (
            "assistant",
            "The total is summed in binary floating point: 0.1 + 0.1 + 0.1 is"
            " 0.30000000000000004, and the rounding in `formatTotal` truncates instead of"
            " rounding. Keep money in integer cents.",
        ),
        ("user", "Convert the cart to integer cents then."),
        (
            "assistant",
            "Done: prices are stored as integer cents and formatted once, at display.",
        ),
        ("user", "also the tax"),  # cancelled: what the user asked is still theirs
    ]
    assert snap["title"] == "Cart total rounding" and snap["project"] == "/home/dev/shop"
    log = got[LOG]
    assert log["messages"] == [
        ("user", "How do I make the webhook handler idempotent?"),
        (
            "assistant",
            "Store each event id in a processed_events table and skip an event whose id is"
            " already there, inside the same transaction.",
        ),
        ("user", "Does the unique index alone suffice?"),
        ("assistant", "Yes, if the insert and the side effect commit together."),
    ]
    assert log["title"] == "Idempotent webhooks" and log["project"] == "/home/dev/shop"
    assert got[EMPTY]["project"] is None and len(got[EMPTY]["messages"]) == 2
    assert report.skipped[SKIP_BAD_SHAPE] == 2  # the two requests of the wrong shape
    assert report.skipped[SKIP_BAD_LOG] == 1 and report.skipped[SKIP_BROKEN] == 1
    assert "NOISE" not in repr(got) and "half-writ" not in repr(got)


def test_a_second_sync_writes_nothing_and_a_grown_log_is_read_alone() -> None:
    path = _lay_out(Path.home())
    sync_now(["vscode"])
    before = index_state()
    again = sync_now(["vscode"])
    assert (again.files_read, again.sessions_touched) == (0, 0) and index_state() == before
    with path.open("ab") as fh:  # VS Code finishes the line it was writing
        fh.write(b'ten", "parts": []}, "response": [{"value": "ok"}]}]}\n')
    grown = sync_now(["vscode"])
    assert (grown.files_read, grown.sessions_touched) == (1, 1)
    assert stored("vscode")[LOG]["messages"][-2:] == [
        ("user", "NOISE half-written"),
        ("assistant", "ok"),
    ]


def test_search_show_status_and_the_agent_filter(capsys: pytest.CaptureFixture[str]) -> None:
    _lay_out(Path.home())
    code, _, err = call(capsys, "sync", "--quiet", "--no-embed")
    assert code == 0, err
    hits = call_json(capsys, "search", "processed_events transaction", "--mode", "keyword")
    assert hits["results"][0]["session_id"] == LOG
    assert hits["results"][0]["agent"] == "vscode"
    only = call_json(capsys, "search", "integer cents", "--mode", "keyword", "--agent", "vscode")
    assert {r["agent"] for r in only["results"]} == {"vscode"}
    shown = call_json(capsys, "show", SNAPSHOT)
    assert shown["agent"] == "vscode" and len(shown["messages"]) == 5
    counts = {a["agent"]: a["sessions"] for a in call_json(capsys, "status")["index"]["agents"]}
    assert counts["vscode"] == 3


def test_a_log_without_its_first_entry_is_no_session(tmp_path: Path) -> None:
    folder = tmp_path / "chatSessions"
    folder.mkdir()
    path = folder / "x.jsonl"
    path.write_bytes(b'{"kind": 1, "k": ["customTitle"], "v": "t"}\n')
    adapter = ADAPTERS["vscode"]
    assert adapter_for(path) is adapter
    parsed = adapter.parse(path, path.read_bytes(), 0, {})
    assert parsed.parts == [] and parsed.skipped == {SKIP_BAD_SHAPE: 1}
