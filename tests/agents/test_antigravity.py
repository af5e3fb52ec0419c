"""Antigravity CLI: `~/.gemini/antigravity-cli/brain/<id>/.system_generated/logs/transcript.jsonl`.

recall's fixture (in `tests/fixtures/home`, built from the format the shared
samples and agent-sessions' parser show: wrapped and bare requests, appended
metadata, thinking and tool steps, a system-sourced input, bad lines, a
half-written last step) and the shared samples, laid out where `agy` writes
them. Expected values were read off the files by hand.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from agenthelp import FIXTURE_HOME
from clihelp import call
from paths import TRANSCRIPTS
from recall.agents import ADAPTERS, adapter_for
from recall.agents.antigravity import conversation_id
from recall.jsonlines import SKIP_BAD_SHAPE, SKIP_BROKEN, SKIP_UNKNOWN
from synchelp import index_state, stored, sync_now

CONV = "b7e2c1d4-3f5a-4e6b-9c8d-0a1b2c3d4e5f"
BRAIN = Path(".gemini", "antigravity-cli", "brain")
LOGS = Path(".system_generated", "logs", "transcript.jsonl")


def _lay_out(home: Path) -> Path:
    shutil.copytree(FIXTURE_HOME / BRAIN, home / BRAIN)
    for name in ("cli_small", "cli_schema_drift"):
        target = home / BRAIN / f"shared-{name}" / LOGS
        target.parent.mkdir(parents=True)
        shutil.copy(TRANSCRIPTS / "antigravity" / "agent-sessions" / f"{name}.jsonl", target)
    return home / BRAIN / CONV / LOGS


def test_requests_and_answers_are_kept_and_the_steps_between_are_not() -> None:
    _lay_out(Path.home())
    report = sync_now(["antigravity"])
    assert report.files_failed == 0
    got = stored("antigravity")
    assert set(got) == {CONV, "shared-cli_small", "shared-cli_schema_drift"}  # no _full copy
    assert got[CONV]["messages"] == [
        ("user", "Why does the invoice export time out for large accounts?"),
        (
            "assistant",
            "The exporter loads every invoice into memory before writing the CSV; stream the"
            " rows with a server-side cursor instead.",
        ),
        ("user", "Use a batch size of 500"),
        ("assistant", "Done: rows are fetched 500 at a time with itersize=500."),
    ]
    assert got["shared-cli_small"]["messages"][:2] == [
        ("user", "List the files."),
        ("assistant", "The directory contains a.txt and b.txt."),
    ]
    assert got["shared-cli_schema_drift"]["messages"] == [("user", "Go")]
    assert report.skipped[SKIP_BAD_SHAPE] == 1 and report.skipped[SKIP_UNKNOWN] == 1
    assert report.skipped[SKIP_BROKEN] == 1
    assert "NOISE" not in repr(got) and "half-writ" not in repr(got)


def test_a_second_sync_writes_nothing_and_a_finished_step_is_read_alone() -> None:
    path = _lay_out(Path.home())
    sync_now(["antigravity"])
    before = index_state()
    again = sync_now(["antigravity"])
    assert (again.files_read, again.sessions_touched) == (0, 0) and index_state() == before
    with path.open("ab") as fh:
        fh.write(b'ten</USER_REQUEST>"}\n')
    grown = sync_now(["antigravity"])
    assert (grown.files_read, grown.sessions_touched) == (1, 1)
    assert stored("antigravity")[CONV]["messages"][-1] == ("user", "half-written")


@pytest.mark.skipif(__import__("os").name == "nt", reason="the printed command is a POSIX shell's")
def test_a_conversation_resumes_with_agy(capsys: pytest.CaptureFixture[str]) -> None:
    _lay_out(Path.home())
    sync_now(["antigravity"])
    code, out, err = call(capsys, "resume", CONV, "--print")
    assert code == 0, err
    assert out.strip() == f"agy --conversation {CONV}"


def test_its_transcripts_are_told_from_gemini_clis(tmp_path: Path) -> None:
    path = tmp_path / ".gemini" / "antigravity-cli" / "brain" / "c1" / LOGS
    path.parent.mkdir(parents=True)
    path.write_text('{"step_index":0,"type":"USER_INPUT","content":"hi"}\n')
    assert adapter_for(path) is ADAPTERS["antigravity"]
    assert conversation_id(path) == "c1"
    elsewhere = tmp_path / "steps.jsonl"
    shutil.copy(path, elsewhere)
    assert adapter_for(elsewhere) is ADAPTERS["antigravity"]  # sniffed by `step_index`
    gemini = tmp_path / ".gemini" / "tmp" / "h" / "chats" / "session-x.jsonl"
    gemini.parent.mkdir(parents=True)
    gemini.write_text('{"sessionId":"s","projectHash":"h"}\n')
    assert adapter_for(gemini) is ADAPTERS["gemini"]
