"""Embedding as a user runs it: progress with a rate and an ETA, Ctrl-C, resuming."""

from __future__ import annotations

import io
import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from clihelp import call
from recall.cli.embed import Meter, duration
from recall.record import asdict
from recall.semantic.embedjob import Tick


def _lines(text: str) -> list[str]:
    return [part.strip() for part in text.split("\r") if part.strip()]


def test_the_meter_rewrites_one_line_with_rate_and_eta() -> None:
    out = io.StringIO()
    meter = Meter(out)
    meter.start(1200)
    meter.drawn = 0.0  # as if the model took a while to load
    meter(Tick(0, 1200, 0, 0, 100_000, 0.3))  # nothing embedded yet: no rate to show
    meter(Tick(0, 1200, 40, 2_000, 100_000, 1.0))
    meter(Tick(128, 1200, 41, 2_500, 100_000, 1.1))  # within EVERY: not redrawn
    meter.drawn = 0.0
    meter(Tick(128, 1200, 300, 25_000, 100_000, 10.0))
    meter.end()
    text = out.getvalue()
    assert "\n" not in text  # one line, rewritten in place
    lines = _lines(text)
    assert lines[0] == "Embedding 1,200 messages: loading the model…"
    assert lines[1] == "Embedding 0/1,200 messages, 40 chunks, 40.0 chunks/s, ETA 49s"
    assert lines[2] == "Embedding 128/1,200 messages, 300 chunks, 30.0 chunks/s, ETA 30s"
    assert len(lines) == 3
    assert text.endswith("\r")  # cleared, so the summary line starts clean


@pytest.mark.parametrize(
    ("seconds", "shown"),
    [(0, "0s"), (59.4, "59s"), (61, "1m 01s"), (3599, "59m 59s"), (7380, "2h 03m")],
)
def test_durations_read_as_a_person_would_say_them(seconds: float, shown: str) -> None:
    assert duration(seconds) == shown


def _import(path: Path, n: int, words: int = 12) -> Path:
    vocab = [
        "pandas",
        "retry",
        "garden",
        "tomato",
        "editor",
        "theme",
        "backoff",
        "region",
        "charge",
        "soil",
    ]
    lines = []
    for i in range(n):
        text = " ".join(vocab[(i * 7 + k * 3) % len(vocab)] for k in range(words)) + f" item {i}"
        stamp = f"2026-03-01T10:{i // 60 % 60:02d}:{i % 60:02d}+00:00"
        role = ("user", "assistant")[i % 2]
        lines.append(
            json.dumps({"session": f"s{i // 10}", "role": role, "text": text, "timestamp": stamp})
        )
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


@pytest.mark.needs_model
def test_the_job_reports_progress_before_its_first_commit(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from recall.semantic import embedjob
    from recall.semantic.provider import get_encoder
    from recall.store import open_writer

    call(capsys, "ingest", "--format", "jsonl", str(_import(tmp_path / "c.jsonl", 40)))
    monkeypatch.setattr(embedjob, "FIRST_GROUP_CHARS", 200)
    monkeypatch.setattr(embedjob, "GROUP_CHARS", 800)
    ticks: list[Tick] = []
    with open_writer() as store:
        report = embedjob.embed_pending(
            store,
            get_encoder(),
            ["user", "assistant"],
            progress=lambda t: ticks.append(Tick(**asdict(t))),
        )
    assert report.messages == 40 and report.chunks == 40 and not report.interrupted
    first = ticks[0]
    assert (first.messages, first.chunks, first.chars) == (0, 0, 0) and first.total == 40
    # the first small group reports a rate while the first batch is still being embedded
    early = ticks[1]
    assert early.messages == 0 and 0 < early.chunks < 10 and early.seconds > 0
    assert len([t for t in ticks if t.messages == 0]) > 3
    last = ticks[-1]
    assert (last.messages, last.chunks) == (40, 40) and last.chars == last.total_chars


@pytest.mark.needs_model
def test_embed_in_a_pipe_prints_only_its_summary(
    tmp_path: Path, recall_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _both_roles(recall_home)
    call(capsys, "ingest", "--format", "jsonl", str(_import(tmp_path / "c.jsonl", 6)))
    code, out, err = call(capsys, "embed")
    assert code == 0 and err == ""
    assert out.count("\n") == 1 and out.startswith("embedded 6 messages as 6 chunks")
    assert "chunks/s" in out


def _both_roles(home: Path) -> None:
    from recall.config import _load

    home.mkdir(parents=True, exist_ok=True)
    (home / "config.toml").write_text('embed_roles = ["user", "assistant"]\n')
    _load.cache_clear()


def _counts(db: Path) -> tuple[int, int, int]:
    # a short busy timeout: a poll that met the writer's lock must not wait out sqlite's
    # default 5 s, by which time a fast machine has embedded everything (seen in CI)
    conn = sqlite3.connect(db, timeout=0.05)
    try:
        chunks, distinct = conn.execute(
            "SELECT count(*), count(DISTINCT message || ':' || piece) FROM chunks"
        ).fetchone()
        (done,) = conn.execute("SELECT count(*) FROM embedded").fetchone()
        return int(chunks), int(distinct), int(done)
    except sqlite3.OperationalError:  # the vector tables are not there yet
        return 0, 0, 0
    finally:
        conn.close()


@pytest.mark.needs_model
def test_ctrl_c_keeps_committed_batches_and_the_next_run_finishes(
    tmp_path: Path, recall_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    total = 900
    _both_roles(recall_home)
    call(capsys, "ingest", "--format", "jsonl", str(_import(tmp_path / "c.jsonl", total)))
    db = recall_home / "recall.db"
    child = subprocess.Popen(
        [sys.executable, "-m", "recall", "embed"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=os.environ.copy(),
        # Ctrl-C as at a terminal: a suite started in the background by a shell without
        # job control inherits SIGINT ignored, and Python then never raises
        # KeyboardInterrupt (the embed ran to the end in such a CI run)
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    deadline = time.monotonic() + 300
    while _counts(db)[2] == 0 and child.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    assert child.poll() is None, "the embed finished before a committed batch was seen"
    child.send_signal(signal.SIGINT)
    out, err = child.communicate(timeout=120)
    assert child.returncode == 130, (out, err)
    assert b"Traceback" not in err
    stopped = err.decode().strip()
    assert stopped.startswith("recall: stopped: embedded ") and f"of {total} messages" in stopped
    assert "`recall embed`" in stopped
    chunks, distinct, done = _counts(db)
    assert 0 < done < total  # whole batches kept, the rest left for later
    assert chunks == distinct == done  # one chunk per message here, none twice
    code, out2, err2 = call(capsys, "embed")
    assert code == 0, err2
    assert out2.startswith(f"embedded {total - done} messages")
    chunks, distinct, done = _counts(db)
    assert chunks == distinct == done == total
    code, out3, _ = call(capsys, "search", "--mode", "semantic", "tomato soil garden")
    assert code == 0 and "1." in out3
