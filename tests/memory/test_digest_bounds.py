"""A hostile summariser cannot take recall's memory, grow its files or hide a digest
(issue 21, items 11, 14 and 15)."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from clihelp import call
from digesthelp import DAY, chat_file, configure

PROBE = """
import sys
from recall.cli import main
code = main(sys.argv[1:])
peak = [x for x in open("/proc/self/status") if x.startswith("VmHWM:")][0].split()[1]
sys.stderr.write(f"\\nRSS_KB {peak} {code}\\n")
"""
"""This process's peak memory: VmHWM, since ru_maxrss keeps the forking parent's peak."""


def _ingest(capsys: pytest.CaptureFixture[str], tmp_path: Path, name: str, text: str) -> None:
    src = chat_file(tmp_path, name, [("user", text), ("assistant", "noted")])
    assert call(capsys, "ingest", "--format", "jsonl", str(src))[0] == 0


def _marks(recall_home: Path) -> list[tuple[int, int]]:
    with sqlite3.connect(recall_home / "recall.db") as db:
        return db.execute("SELECT session, position FROM digest_marks").fetchall()


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads VmHWM from /proc")
def test_a_flooding_summariser_is_stopped_and_changes_nothing(
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    recall_home: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    configure(tmp_path, recall_home)
    _ingest(capsys, tmp_path, "s1", "a question about walrus tusks")
    done = subprocess.run(
        [sys.executable, "-c", PROBE, "digest", "--date", DAY],
        capture_output=True,
        env={**os.environ, "STUB_MODE": "flood", "STUB_MB": "64"},
        timeout=120,
        check=False,
    )
    err = done.stderr.decode()
    assert "RSS_KB" in err, err[-2000:]
    rss_kb, code = (int(x) for x in err.rsplit("RSS_KB ", 1)[1].split())
    assert code == 1 and "answered over 1024 KB" in err, err
    assert rss_kb < 150 * 1024, f"{rss_kb} KB for a 64 MB answer"
    assert not (recall_home / "daily").exists() and not (recall_home / "MEMORY.md").exists()
    assert _marks(recall_home) == []  # the messages wait for a better run


def test_a_long_answer_is_cut_in_the_daily_log_and_says_so(
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    recall_home: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    configure(tmp_path, recall_home, 'facts = "memory"\n')
    _ingest(capsys, tmp_path, "s1", "a question about narwhal songs")
    answer = tmp_path / "answer.md"
    facts = "".join(f"- fact number {n} " + "y" * 1000 + "\n" for n in range(300))
    answer.write_text(
        "## Daily Summary\n"
        + "- a long line about narwhals\n" * 20000
        + "## Long-term Facts\n"
        + facts
    )
    monkeypatch.setenv("STUB_MODE", "file")
    monkeypatch.setenv("STUB_ANSWER", str(answer))
    code, _, err = call(capsys, "digest", "--date", DAY)
    assert code == 0, err
    log = (recall_home / "daily" / f"{DAY}.md").read_text()
    assert 30_000 < len(log) < 34 * 1024 and "(cut: the summariser wrote" in log
    memory = (recall_home / "MEMORY.md").read_text()
    assert memory.count("- fact number") == 40 and len(memory) < 40 * 700
    found = json.loads(call(capsys, "search", "narwhals", "--scope", "daily", "--json")[1])
    assert found["results"]  # and it is indexed, not passed over


def test_the_summarisers_stderr_reaches_the_terminal_without_escapes(
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    recall_home: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    configure(tmp_path, recall_home)
    _ingest(capsys, tmp_path, "s1", "a question about seals")
    monkeypatch.setenv("STUB_MODE", "fail")
    monkeypatch.setenv(
        "STUB_STDERR", "starting\n\x1b]52;c;ZXZpbA==\x07\x1b]0;pwned\x07\x1b[2Jquota exceeded\n"
    )
    code, _, err = call(capsys, "digest", "--date", DAY)
    assert code == 1 and "status 3" in err and "quota exceeded" in err
    assert "\x1b" not in err and "\x07" not in err


def test_a_heading_inside_a_summary_cannot_swallow_the_next_digest(
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    recall_home: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    configure(tmp_path, recall_home)
    answer = tmp_path / "answer.md"
    answer.write_text(
        "## Daily Summary\n- about dolphins\n## Digest 2\n```\n\n## Long-term Facts\nNone\n"
    )
    monkeypatch.setenv("STUB_MODE", "file")
    monkeypatch.setenv("STUB_ANSWER", str(answer))
    _ingest(capsys, tmp_path, "s1", "a question about dolphins")
    assert call(capsys, "digest", "--date", DAY)[0] == 0
    answer.write_text("## Daily Summary\n- the manatee plan was agreed\n")
    _ingest(capsys, tmp_path, "s2", "a question about manatees")
    out = json.loads(call(capsys, "digest", "--date", DAY, "--json")[1])
    assert out["messages"] == 2
    log = (recall_home / "daily" / f"{DAY}.md").read_text()
    assert [x for x in log.splitlines() if x.startswith("#")] == [
        f"# {DAY}",
        "## Digest 1",
        "## Digest 2",
    ]
    assert log.split("\n## Digest 2\n", 1)[1].strip() == "- the manatee plan was agreed"
    found = json.loads(call(capsys, "search", "manatee", "--scope", "daily", "--json")[1])
    assert found["results"][0]["heading"].endswith("Digest 2")


def test_no_watermark_moves_unless_the_section_is_in_the_file(
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    recall_home: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from recall.memory import sections

    configure(tmp_path, recall_home)
    _ingest(capsys, tmp_path, "s1", "a question about orcas")
    real = sections.write
    monkeypatch.setattr(sections, "write", lambda path, text: None)  # the write is lost
    code, _, err = call(capsys, "digest", "--date", DAY)
    assert code == 1 and "does not hold '## Digest 1'" in err
    assert _marks(recall_home) == []
    monkeypatch.setattr(sections, "write", real)
    out = json.loads(call(capsys, "digest", "--date", DAY, "--json")[1])
    assert out["recovered"] == 1 and out["messages"] == 0  # finished, not summarised again
    assert "orcas" in (recall_home / "daily" / f"{DAY}.md").read_text()
    assert len(_marks(recall_home)) == 1


def test_a_memory_file_too_big_to_index_is_named_by_sync_status_and_doctor(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, recall_home: Path
) -> None:
    _ingest(capsys, tmp_path, "s1", "a question about sea otters")
    memory = recall_home / "MEMORY.md"
    memory.write_text("# Memory\n\n## Tools\n- the build uses hatch\n" + "z" * (5 * 1024 * 1024))
    code, out, _ = call(capsys, "sync", "--no-embed")
    assert code == 0 and f"passed over {memory}" in out and "1 passed over" in out
    code, out, _ = call(capsys, "status")
    assert code == 0 and "too big to index" in out and f"{memory} (5.2 MB)" in out
    status = json.loads(call(capsys, "status", "--json")[1])
    assert [f["path"] for f in status["too_big"]] == [str(memory)]
    checks = {c["name"]: c for c in json.loads(call(capsys, "doctor", "--json")[1])["checks"]}
    found = checks["memory files"]
    assert found["status"] == "warn" and str(memory) in found["summary"] and found["fix"]


def test_a_summariser_past_its_time_is_stopped_with_what_it_started(
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    recall_home: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import time

    configure(tmp_path, recall_home, "timeout = 1.0\n")
    _ingest(capsys, tmp_path, "s1", "a question about puffins")
    monkeypatch.setenv("STUB_MODE", "hang")
    started = time.monotonic()
    code, _, err = call(capsys, "digest", "--date", DAY)
    assert code == 1 and "took over 1 s; nothing was digested" in err
    assert time.monotonic() - started < 15  # not the helper's 60 s
    assert _marks(recall_home) == [] and not (recall_home / "daily").exists()


@pytest.mark.parametrize(
    "answer",
    [
        "- the narwhal survey ran at dawn\n\n## Long-term Facts\n- survey data lives in s3\n",
        "Summary of the day:\n- the narwhal survey ran at dawn\n## Daily Summary\n- more\n",
    ],
)
def test_a_summary_before_its_first_heading_is_kept(
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    recall_home: Path,
    monkeypatch: pytest.MonkeyPatch,
    answer: str,
) -> None:
    """A summariser that skips the `## Daily Summary` heading (or writes a line before
    it) still has its summary written: the text was dropped, the watermark moved."""
    configure(tmp_path, recall_home)
    (tmp_path / "answer.md").write_text(answer)
    monkeypatch.setenv("STUB_MODE", "file")
    monkeypatch.setenv("STUB_ANSWER", str(tmp_path / "answer.md"))
    _ingest(capsys, tmp_path, "s1", "a question about narwhals")
    assert call(capsys, "digest", "--date", DAY)[0] == 0
    log = (recall_home / "daily" / f"{DAY}.md").read_text()
    assert "- the narwhal survey ran at dawn" in log
    assert "survey data lives in s3" not in log  # the facts are not the summary


def test_the_answer_is_taken_when_the_summariser_exits_whatever_it_left_running(
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    recall_home: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A summariser that daemonises a helper (its own session, so out of reach of the
    process-group kill) holding its stdout: the read waited for the helper, 40 s."""
    import signal
    import time

    configure(tmp_path, recall_home, "timeout = 30.0\n")
    _ingest(capsys, tmp_path, "s1", "a question about auks")
    pidfile = tmp_path / "helper.pid"
    monkeypatch.setenv("STUB_MODE", "linger")
    monkeypatch.setenv("STUB_PIDFILE", str(pidfile))
    started = time.monotonic()
    try:
        code, _, err = call(capsys, "digest", "--date", DAY)
        took = time.monotonic() - started
    finally:
        if pidfile.exists():
            os.kill(int(pidfile.read_text()), signal.SIGKILL)
    assert code == 0, err
    assert took < 15, f"{took:.1f} s: the read waited for the helper"
    assert "the lingering helper day" in (recall_home / "daily" / f"{DAY}.md").read_text()
