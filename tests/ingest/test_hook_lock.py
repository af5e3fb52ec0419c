"""A hook with nothing to write never waits on the write lock; one with work still does.

Another process holds the write lock, inside an open write transaction, for
HOLD_S seconds, as a long `recall sync` or `forget` would (issue 23).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from clihelp import call_json, run
from daemons import modules_after

HOLD_S = 3.0
NO_OP_BOUND_S = 1.5
"""Well above the ~0.1-0.3 s a no-op hook takes on a busy 2-core machine, well below HOLD_S."""
VIEWER = "claude/claude-code-viewer/sample-project/5c0375b4-57a5-4f26-b12d-d022ee4e51b7.jsonl"

HOLDER = """
import sys, time
from recall.store import open_writer
with open_writer() as store, store.transaction() as db:
    print("held", flush=True)
    time.sleep(float(sys.argv[1]))
"""


@contextmanager
def writer_holding_the_lock() -> Iterator[float]:
    """A process inside a write transaction under the write lock; yields when it holds it
    (the monotonic time it will let go, at the earliest)."""
    with subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(HOLD_S)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=dict(os.environ),
    ) as proc:
        assert proc.stdout is not None and proc.stderr is not None
        line = proc.stdout.readline()
        assert line == b"held\n", (line, proc.stderr.read())
        try:
            yield time.monotonic() + HOLD_S
        finally:
            assert proc.wait(60) == 0, proc.stderr.read()


def _stop_payload(hook_payloads: Path, transcripts: Path) -> tuple[bytes, Path]:
    """Claude Code's Stop payload as the agent sends it, and its transcript put in place."""
    raw = (hook_payloads / "claude-stop.json").read_bytes()
    target = Path(os.path.expanduser(json.loads(raw)["transcript_path"]))
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy(transcripts / VIEWER, target)
    return raw, target


def _hook(raw: bytes) -> float:
    start = time.monotonic()
    done = run("ingest", "--event", "agent-stop", stdin=raw)
    took = time.monotonic() - start
    assert done.returncode == 0 and done.stdout == b"", done.stderr
    return took


def test_a_hook_with_nothing_to_write_does_not_wait_for_a_writer(
    hook_payloads: Path, transcripts: Path, recall_home: Path
) -> None:
    raw, _ = _stop_payload(hook_payloads, transcripts)
    _hook(raw)  # indexed once: the next hook finds the transcript unchanged
    with writer_holding_the_lock():
        took = _hook(raw)
    print(f"no-op hook beside a writer holding the lock: {took:.3f} s")
    assert took < NO_OP_BOUND_S
    log = recall_home / "recall.log"
    assert not log.exists() or "ingest --event" not in log.read_text(encoding="utf-8")
    # nor does it load the parser, the writer's privacy checks or sync: one read decides
    loaded = modules_after(["ingest", "--event", "agent-stop"], raw)
    assert "recall.vetting" in loaded  # the probe saw the hook look
    assert not loaded & {"recall.ingest", "recall.privacy.forget", "recall.sync"}


def test_a_hook_with_work_waits_for_the_writer_and_writes(
    hook_payloads: Path, transcripts: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    raw, transcript = _stop_payload(hook_payloads, transcripts)
    _hook(raw)
    before = call_json(capsys, "status")["index"]["messages"]
    last = json.loads(transcript.read_text(encoding="utf-8").splitlines()[-1])
    turn = {
        **last,
        "type": "user",
        "uuid": "7d1b4a8e-0000-4000-8000-00000000f00d",
        "parentUuid": last.get("uuid"),
        "message": {"role": "user", "content": "zebracorn quota for the nightly job"},
    }
    with transcript.open("a", encoding="utf-8") as fh:
        fh.write(json.dumps(turn) + "\n")
    with writer_holding_the_lock() as free_at:
        _hook(raw)
        assert time.monotonic() >= free_at - 1.0  # it waited for the writer to let go
    assert call_json(capsys, "status")["index"]["messages"] == before + 1
    hits = call_json(capsys, "search", "zebracorn", "--mode", "keyword")["results"]
    assert [h["session_id"] for h in hits] == [last["sessionId"]]
