"""The daemon's reconciliation worker: sync's own code, one pass at a time, stoppable, killable."""

from __future__ import annotations

import signal
import time
from pathlib import Path

import pytest

from crashloop import World, check, finish, make_world, marks_of, mirrors_of, reset, spawn
from recall.serve.worker import Worker
from recall.store.locking import read_holder


def _world(tmp_path: Path) -> World:
    w = make_world(tmp_path, sessions=40, seed=7)
    return w


def test_sigkill_while_the_worker_writes_loses_nothing_and_frees_the_lock(tmp_path: Path) -> None:
    w = _world(tmp_path)
    proc = spawn(w, ["serve", "--port", "0"], None)
    deadline = time.monotonic() + 60
    held = False
    while time.monotonic() < deadline and proc.poll() is None:
        holder = read_holder(w.lock)
        if holder is not None and holder.pid == proc.pid:
            held = True
            break
        time.sleep(0.001)
    proc.send_signal(signal.SIGKILL)
    proc.communicate(timeout=60)
    assert held, "the daemon's worker never took the write lock"
    check(w)  # lock free, integrity checks pass, every session whole or absent
    finish(w, ["sync", "--quiet", "--no-embed"])
    clean = World(w.home, tmp_path / "clean", w.scratch, w.rng)
    finish(clean, ["sync", "--quiet", "--no-embed"])
    assert mirrors_of(w.db) == mirrors_of(clean.db)
    assert marks_of(w.db) == marks_of(clean.db)


def test_one_pass_at_a_time_idempotent_and_stoppable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    w = _world(tmp_path)
    for key, value in w.env().items():
        monkeypatch.setenv(key, value)
    lines: list[str] = []
    worker = Worker("testbox", 300, lines.append)
    with worker.busy:  # a pass already running: the next one does not start
        assert worker.run_once() is False
    assert worker.run_once() is True
    first = mirrors_of(w.db)
    assert len(first) == 40 and worker.state["last_sessions_touched"] == 40
    assert worker.run_once() is True  # again: nothing new, nothing changed
    assert worker.state["last_sessions_touched"] == 0 and mirrors_of(w.db) == first

    reset(w)
    worker.stopping.set()  # asked to stop: it stops at the first commit boundary
    assert worker.run_once() is True
    assert "worker: stopped at a commit boundary" in lines
    check(w)
    assert len(mirrors_of(w.db)) < 40
