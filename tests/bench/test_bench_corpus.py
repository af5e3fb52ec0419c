"""The benchmark's synthetic corpus is only worth its figures if recall reads it like real data."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

from clihelp import call, call_json, run

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
import corpus


# Each test syncs with `--no-embed`: what they check is how recall reads the corpus, and
# embedding its 558 messages cost ~7 s a test in each pass.
@pytest.fixture
def small_corpus(tmp_path: Path) -> dict[str, object]:
    home = Path(os.environ["HOME"])
    return corpus.generate(home, sessions=12, seed=7, jobs=1)


def test_sync_finds_every_generated_session_in_the_default_roots(
    small_corpus: dict[str, object], capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = call(capsys, "sync", "--no-embed")
    assert code == 0, err
    status = call_json(capsys, "status")["index"]
    assert status["sessions"] == small_corpus["sessions"] == 12
    by_agent = {a: v["sessions"] for a, v in small_corpus["by_agent"].items()}  # type: ignore[attr-defined]
    found = {a["agent"]: a["sessions"] for a in status["agents"]}
    assert {a: n for a, n in found.items() if n} == by_agent  # the others are listed, empty
    assert set(found) > set(by_agent)


def test_generated_ticket_ids_are_searchable(
    small_corpus: dict[str, object], capsys: pytest.CaptureFixture[str]
) -> None:
    call(capsys, "sync", "--no-embed")
    ticket = small_corpus["tickets"][0]  # type: ignore[index]
    out = call_json(capsys, "search", ticket)
    assert out["results"], f"{ticket} not found"


def test_an_appended_turn_reaches_the_index_through_the_hook(
    small_corpus: dict[str, object], capsys: pytest.CaptureFixture[str]
) -> None:
    call(capsys, "sync", "--no-embed")
    path = Path(os.environ["HOME"]) / small_corpus["claude_sessions"][0]  # type: ignore[index]
    before = path.stat().st_size
    added = corpus.append_claude_turn(path, seed=7, marker="zebracorn")
    assert path.stat().st_size == before + added
    payload = json.dumps({"hook_event_name": "Stop", "transcript_path": str(path)})
    proc = run("ingest", "--event", "agent-stop", stdin=payload.encode())
    assert proc.returncode == 0 and proc.stdout == b"", proc.stderr
    assert call_json(capsys, "search", "zebracorn")["results"]
