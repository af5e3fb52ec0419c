"""Factory Droid: `~/.factory/sessions/<cwd-slug>/<id>.jsonl` (and the older flat layout).

recall's fixture (in `tests/fixtures/home`, built from the format notes and
the readers that parse Droid's files, docs/agents.md): a session with
a `<system-reminder>`-wrapped prompt, thinking, a tool call and its result,
`todo_state` and `compaction_state` lines, a message of the wrong shape, a line
without a type and a half-written last line; its `.settings.json` sibling;
and one session in the flat layout. Expected values were read off the files
by hand.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from agenthelp import FIXTURE_HOME
from clihelp import call
from recall.agents import ADAPTERS, adapter_for
from recall.jsonlines import SKIP_BAD_SHAPE, SKIP_BROKEN, SKIP_UNKNOWN
from synchelp import index_state, stored, sync_now

SID = "3d9c6a1e-8b2f-4c7d-a5e4-1f0b9c8d7e6a"
FLAT = "0c1d2e3f-4a5b-4c6d-8e7f-9a0b1c2d3e4f"
SESSIONS = Path(".factory", "sessions")


def _lay_out(home: Path) -> Path:
    shutil.copytree(FIXTURE_HOME / SESSIONS, home / SESSIONS)
    return home / SESSIONS / "-home-dev-billing" / f"{SID}.jsonl"


def test_prompts_and_answers_are_kept_and_tools_reminders_and_state_are_not() -> None:
    _lay_out(Path.home())
    report = sync_now(["factory"])
    assert report.files_failed == 0
    got = stored("factory")
    assert set(got) == {SID, FLAT}  # the .settings.json is not a session
    session = got[SID]
    assert session["messages"] == [
        (
            "user",
            "Stripe webhooks fail when our handler times out. Add a retry with exponential"
            " backoff and jitter.",
        ),
        ("assistant", "I'll read the webhook worker first."),
        (
            "assistant",
            "Done: failed deliveries are retried up to 6 times with exponential backoff (base"
            " 2 s, capped at 5 min) and full jitter; the attempt count lives on the"
            " webhook_events row.",
        ),
        ("user", "Also log the final failure to Sentry."),
        (
            "assistant",
            "Added sentry_sdk.capture_message on the sixth failure, tagged with the event id.",
        ),
    ]
    assert session["title"] == "Retry failed webhooks"
    assert session["project"] == "/home/dev/billing"
    assert session["started"] == 1791966602.114  # the first message's time
    assert got[FLAT]["project"] == "/home/dev/tools" and len(got[FLAT]["messages"]) == 2
    assert report.skipped[SKIP_BAD_SHAPE] == 1 and report.skipped[SKIP_UNKNOWN] == 1
    assert SKIP_BROKEN not in report.skipped  # the half-written line waits for its end
    assert "NOISE" not in repr(got) and "half-writ" not in repr(got)


def test_a_second_sync_writes_nothing_and_a_finished_line_is_read_alone() -> None:
    path = _lay_out(Path.home())
    sync_now(["factory"])
    before = index_state()
    again = sync_now(["factory"])
    assert (again.files_read, again.sessions_touched) == (0, 0) and index_state() == before
    with path.open("ab") as fh:
        fh.write(b'ten"}}\n')
    grown = sync_now(["factory"])
    assert (grown.files_read, grown.sessions_touched) == (1, 1)
    assert stored("factory")[SID]["messages"][-1] == ("user", "NOISE half-written")


@pytest.mark.skipif(__import__("os").name == "nt", reason="the printed command is a POSIX shell's")
def test_a_session_resumes_with_droid(capsys: pytest.CaptureFixture[str]) -> None:
    _lay_out(Path.home())
    sync_now(["factory"])
    code, out, err = call(capsys, "resume", SID, "--print")
    assert code == 0, err
    assert out.strip().endswith(f"droid --resume {SID}")


def test_its_files_are_told_from_claude_codes(tmp_path: Path) -> None:
    droid = tmp_path / "elsewhere.jsonl"
    shutil.copy(FIXTURE_HOME / SESSIONS / f"{FLAT}.jsonl", droid)
    assert adapter_for(droid) is ADAPTERS["factory"]  # sniffed by its session_start
    claude = tmp_path / "claude.jsonl"
    claude.write_text(
        '{"type":"user","sessionId":"s","uuid":"u","message":{"role":"user","content":"hi"}}\n'
    )
    assert adapter_for(claude) is ADAPTERS["claude"]
