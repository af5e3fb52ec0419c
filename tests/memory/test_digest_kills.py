"""`recall digest` killed (SIGKILL) at random instants, again and again: afterwards every
message is in the daily log exactly once and every proposed fact is queued exactly once."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from clihelp import call
from digesthelp import DAY, chat_file, configure

CYCLES = int(os.environ.get("RECALL_DIGEST_KILLS", "24"))


@pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="needs SIGKILL")
def test_digests_killed_at_random_summarise_every_message_once(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, recall_home: Path
) -> None:
    seed = int(os.environ.get("RECALL_SEED", random.randrange(1 << 30)))
    rng = random.Random(seed)
    configure(tmp_path, recall_home)
    turns: list[tuple[str, str]] = []
    killed = finished = 0
    for n in range(CYCLES):
        turns.append(
            ("user", f"line {n:03d} fact: fact {n:03d}" if n % 3 == 0 else f"line {n:03d}")
        )
        src = chat_file(tmp_path, "s1", turns)
        assert call(capsys, "ingest", "--format", "jsonl", str(src))[0] == 0
        proc = subprocess.Popen(
            [sys.executable, "-m", "recall", "digest", "--date", DAY],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            env={**os.environ, "RECALL_EMBEDDING": "none"},  # the kills land in the digest
        )
        time.sleep(rng.uniform(0.05, 0.8))
        if proc.poll() is None:
            proc.send_signal(signal.SIGKILL)
            killed += 1
        else:
            finished += 1
        proc.wait()
    while True:  # what the kills left: finished, then the rest digested
        code, out, err = call(capsys, "digest", "--date", DAY, "--json")
        assert code == 0, f"seed {seed}: {err}"
        if not json.loads(out)["messages"]:
            break
    log = (recall_home / "daily" / f"{DAY}.md").read_text()
    for n in range(CYCLES):
        assert log.count(f"User: line {n:03d}") == 1, f"seed {seed}: line {n}\n{log}"
    heads = [x for x in log.splitlines() if x.startswith("## ")]
    assert len(heads) == len(set(heads)), f"seed {seed}: a digest written twice"
    queued = json.loads(call(capsys, "memory", "review", "--json")[1])["proposed"]
    texts = sorted(q["text"] for q in queued)
    assert texts == [f"fact {n:03d}" for n in range(0, CYCLES, 3)], f"seed {seed}"
    print(f"[digest kills] seed {seed}: {CYCLES} cycles, {killed} killed, {finished} finished")
