"""Many hook processes at once, on the same and on growing sessions: nothing lost, nothing doubled."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

from recall.store import open_reader
from recall.store.queries import load_mirror

SOURCES = [
    (
        "claude",
        "claude/claude-code-viewer/sample-project/5c0375b4-57a5-4f26-b12d-d022ee4e51b7.jsonl",
    ),
    (
        "claude",
        "claude/claude-code-viewer/sample-project/1af7fc5e-8455-4414-9ccd-011d40f70b2a.jsonl",
    ),
    ("claude", "claude/agent-sessions/small.jsonl"),
    ("codex", "codex/agent-sessions/small.jsonl"),
    ("codex", "codex/agent-sessions/large.jsonl"),
    ("gemini", "gemini/agent-sessions/jsonl_v040.jsonl"),
]
PROCESSES = 32


def _hook(home: Path, agent: str, path: Path) -> subprocess.Popen[bytes]:
    payload = json.dumps(
        {
            "session_id": path.stem,
            "transcript_path": str(path),
            "cwd": "/work",
            "hook_event_name": "Stop",
        }
    ).encode()
    proc = subprocess.Popen(
        [sys.executable, "-m", "recall", "ingest", "--event", "agent-stop", "--agent", agent],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={**os.environ, "RECALL_HOME": str(home), "RECALL_EMBEDDING": "none"},
    )
    assert proc.stdin is not None
    proc.stdin.write(payload)
    proc.stdin.close()
    proc.stdin = None  # sent; communicate() must not touch it again
    return proc


def _wait(procs: list[subprocess.Popen[bytes]]) -> None:
    for proc in procs:
        out, err = proc.communicate(timeout=300)
        assert proc.returncode == 0 and out == b"", err


def _mirrors(home: Path) -> dict[str, list[tuple[str, str]]]:
    with open_reader(home / "recall.db") as store:
        rows = store.conn.execute("SELECT id, session_id FROM sessions").fetchall()
        return {
            sid: [(m.role, m.text) for m in load_mirror(store.conn, rowid).messages]
            for rowid, sid in rows
        }


def test_32_concurrent_hooks_lose_and_duplicate_nothing(transcripts: Path, tmp_path: Path) -> None:
    files = []
    for n, (agent, rel) in enumerate(SOURCES):
        target = tmp_path / "t" / f"{n}-{Path(rel).name}"
        target.parent.mkdir(exist_ok=True)
        files.append((agent, transcripts / rel, target))

    # Reference: each whole transcript ingested once, by one process.
    reference_home = tmp_path / "reference"
    for _, source, target in files:
        shutil.copy(source, target)
    _wait([_hook(reference_home, agent, target) for agent, _, target in files])
    expected = _mirrors(reference_home)
    assert sum(len(v) for v in expected.values()) > 30

    # Under load: files start half-written and grow while 32 hooks race over them.
    home = tmp_path / "load"
    halves = []
    for _, source, target in files:
        data = source.read_bytes()
        cut = data.rfind(b"\n", 0, len(data) // 2) + 1
        target.write_bytes(data[:cut])
        halves.append((target, data[cut:]))
    procs = [_hook(home, *files[i % len(files)][::2]) for i in range(PROCESSES)]
    for target, rest in halves:
        for start in range(0, len(rest), max(1, len(rest) // 4)):
            with open(target, "ab") as fh:
                fh.write(rest[start : start + max(1, len(rest) // 4)])
            time.sleep(0.01)
    _wait(procs)
    # The agents' next turn-end hooks catch up with what was appended last.
    _wait([_hook(home, agent, target) for agent, _, target in files])

    assert _mirrors(home) == expected
    log = home / "recall.log"
    assert not log.exists() or "locked" not in log.read_text()
