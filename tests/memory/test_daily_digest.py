"""Daily digests with a stub summariser: files written, watermarks, crashes, budget, the child."""

from __future__ import annotations

import json
import shlex
import sqlite3
import sys
from pathlib import Path

import pytest

from clihelp import call, run
from recall.config import _load
from recall.memory import daily

DAY = "2026-01-05"
STUB = r"""
import json, os, sys
prompt = sys.stdin.read()
log = os.environ["STUB_LOG"]
with open(log, "a", encoding="utf-8") as fh:
    fh.write(json.dumps({"prompt": prompt, "child": os.environ.get("RECALL_DIGEST_CHILD")}) + "\n")
if os.environ.get("STUB_FAIL"):
    sys.exit(3)
print("## Daily Summary\n- talked about the otter queue\n\n## Long-term Facts\n- the otter queue uses Redis streams")
"""


@pytest.fixture
def summariser(tmp_path: Path, recall_home: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A configured stub summariser; returns the file where it logs each prompt."""
    script = tmp_path / "stub.py"
    script.write_text(STUB)
    log = tmp_path / "prompts.jsonl"
    monkeypatch.setenv("STUB_LOG", str(log))
    recall_home.mkdir(parents=True, exist_ok=True)
    command = f"{shlex.quote(sys.executable)} {shlex.quote(str(script))}"
    (recall_home / "config.toml").write_text(f"[digest]\ncommand = {json.dumps(command)}\n")
    _load.cache_clear()
    return log


def _prompts(log: Path) -> list[dict]:
    return [json.loads(x) for x in log.read_text().splitlines()] if log.exists() else []


def _chat(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, name: str, turns: list[tuple[str, str]]
) -> None:
    """Import messages of session `name`, on DAY at noon UTC onwards, one minute apart."""
    src = tmp_path / f"{name}-{len(turns)}.jsonl"
    lines = [
        {"session": name, "role": role, "text": text, "timestamp": f"{DAY}T12:{n:02d}:00Z"}
        for n, (role, text) in enumerate(turns)
    ]
    src.write_text("".join(json.dumps(x) + "\n" for x in lines))
    assert call(capsys, "ingest", "--format", "jsonl", str(src))[0] == 0


def _digest(capsys: pytest.CaptureFixture[str]) -> dict:
    code, out, err = call(capsys, "digest", "--date", DAY, "--json")
    assert code == 0, err
    return json.loads(out)


def test_without_a_summariser_it_says_so_and_does_nothing(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, recall_home: Path
) -> None:
    _chat(capsys, tmp_path, "s1", [("user", "hello")])
    code, out, err = call(capsys, "digest")
    assert code == 0 and out == "" and "no summariser is configured" in err
    assert not (recall_home / "daily").exists()


def test_a_digest_writes_the_log_and_proposes_facts_once(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, recall_home: Path, summariser: Path
) -> None:
    _chat(
        capsys,
        tmp_path,
        "s1",
        [("user", "how should the otter queue work?"), ("assistant", "use Redis streams")],
    )
    out = _digest(capsys)
    assert (out["sessions"], out["messages"]) == (1, 2)
    (sent,) = _prompts(summariser)
    assert sent["child"] == "1"
    assert sent["prompt"].splitlines()[0].startswith("recall:ignore")
    assert "User: how should the otter queue work?" in sent["prompt"]
    assert "Assistant: use Redis streams" in sent["prompt"]
    log = (recall_home / "daily" / f"{DAY}.md").read_text()
    assert log.startswith(f"# {DAY}\n") and "- talked about the otter queue" in log
    assert not (recall_home / "MEMORY.md").exists()  # facts wait for review
    (queued,) = json.loads(call(capsys, "memory", "review", "--json")[1])["proposed"]
    assert queued["text"] == "the otter queue uses Redis streams"
    found = json.loads(call(capsys, "search", "otter", "--scope", "daily", "--json")[1])
    assert [r["source"] for r in found["results"]] == ["daily_log"]
    again = _digest(capsys)  # nothing new: the summariser is not even started
    assert again["messages"] == 0 and len(_prompts(summariser)) == 1
    assert log == (recall_home / "daily" / f"{DAY}.md").read_text()


def test_only_messages_after_the_watermark_are_sent(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, summariser: Path
) -> None:
    _chat(capsys, tmp_path, "s1", [("user", "first question about beavers")])
    _digest(capsys)
    _chat(
        capsys,
        tmp_path,
        "s1",
        [("user", "first question about beavers"), ("assistant", "an answer about dams")],
    )
    assert _digest(capsys)["messages"] == 1
    second = _prompts(summariser)[1]["prompt"]
    assert "Assistant: an answer about dams" in second and "User: first question" not in second


def test_a_crash_between_the_log_and_the_watermark_repeats_nothing_and_loses_nothing(
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    recall_home: Path,
    summariser: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    _chat(capsys, tmp_path, "s1", [("user", "the heron migration plan"), ("assistant", "step one")])

    def crash(*args: object) -> None:
        raise KeyboardInterrupt  # the process dies after the files were written

    real = daily.apply_marks
    monkeypatch.setattr(daily, "apply_marks", crash)
    assert call(capsys, "digest", "--date", DAY)[0] == 130
    log = recall_home / "daily" / f"{DAY}.md"
    assert log.read_text().count("## Digest 1") == 1
    monkeypatch.setattr(daily, "apply_marks", real)
    out = _digest(capsys)
    assert out["recovered"] == 1 and out["messages"] == 0
    assert len(_prompts(summariser)) == 1  # not summarised twice
    assert log.read_text().count("## Digest") == 1  # not written twice
    assert len(json.loads(call(capsys, "memory", "review", "--json")[1])["proposed"]) == 1
    _chat(
        capsys,
        tmp_path,
        "s1",
        [
            ("user", "the heron migration plan"),
            ("assistant", "step one"),
            ("user", "and step two?"),
        ],
    )
    assert _digest(capsys)["messages"] == 1  # and what came after is not lost


def test_a_failing_summariser_changes_nothing(
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    recall_home: Path,
    summariser: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    _chat(capsys, tmp_path, "s1", [("user", "a question about lynx")])
    monkeypatch.setenv("STUB_FAIL", "1")
    code, _, err = call(capsys, "digest", "--date", DAY)
    assert code == 1 and "status 3" in err
    assert not (recall_home / "daily").exists()
    monkeypatch.delenv("STUB_FAIL")
    assert _digest(capsys)["messages"] == 1


def test_the_token_budget_caps_the_input_and_the_rest_waits(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, recall_home: Path, summariser: Path
) -> None:
    turns = [("user", f"message {n} " + "padding " * 100) for n in range(10)]
    _chat(capsys, tmp_path, "s1", turns)
    config = recall_home / "config.toml"
    config.write_text(config.read_text() + "max_tokens = 700\n")
    _load.cache_clear()
    first = _digest(capsys)
    assert 0 < first["messages"] < 10 and first["left"] == 10 - first["messages"]
    while _digest(capsys)["messages"]:
        pass
    sent = "".join(p["prompt"] for p in _prompts(summariser))
    for n in range(10):
        assert sent.count(f"User: message {n} ") == 1  # every message once, none twice
    assert all(len(p["prompt"]) < 700 * 4 + 2000 for p in _prompts(summariser))


def test_a_hook_inside_the_summariser_keeps_its_session_out(
    tmp_path: Path, recall_home: Path, transcripts: Path
) -> None:
    src = next(
        p for p in sorted((transcripts / "claude").rglob("*.jsonl")) if p.stat().st_size > 2000
    )
    first = json.loads(src.read_text(encoding="utf-8").splitlines()[0])
    payload = {
        "session_id": first.get("sessionId", "x"),
        "transcript_path": str(src),
        "hook_event_name": "Stop",
    }
    done = run(
        "ingest",
        "--event",
        "agent-stop",
        stdin=json.dumps(payload).encode(),
        env={"RECALL_DIGEST_CHILD": "1"},
    )
    assert done.returncode == 0 and done.stdout == b""
    db = sqlite3.connect(recall_home / "recall.db")
    assert db.execute("SELECT count(*) FROM sessions").fetchone() == (0,)
    assert db.execute("SELECT count(*) FROM forgotten").fetchone() == (1,)
    assert (
        run("ingest", "--event", "agent-stop", stdin=json.dumps(payload).encode()).returncode == 0
    )
    assert db.execute(
        "SELECT count(*) FROM sessions WHERE session_id = ?", (payload["session_id"],)
    ).fetchone() == (0,)


def test_two_digests_at_once_summarise_nothing_twice(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, summariser: Path
) -> None:
    from recall.errors import RecallError
    from recall.store import open_writer

    _chat(capsys, tmp_path, "s1", [("user", "a question about puffins")])
    with open_writer() as store:
        slow = daily.plan(store, DAY, 1000)  # this run is still waiting on its summariser
        assert _digest(capsys)["messages"] == 1  # when another one finishes
        with pytest.raises(RecallError, match="ran meanwhile"):
            daily.record(store, DAY, "summary", "", slow)
        assert daily.pending(store) == []
    log = Path(daily.daily_dir() / f"{DAY}.md").read_text()
    assert log.count("## Digest") == 1
