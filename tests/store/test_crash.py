"""SIGKILL recall's writers hundreds of times: the index stays intact and the next sync restores all.

RECALL_KILL_CYCLES sets the number of cycles (default 200); RECALL_KILL_SEED
replays a run's choices (the timing of kills cannot be replayed).
"""

from __future__ import annotations

import os
import random
import time
from pathlib import Path

import pytest

from crashloop import (
    KILL_LIST,
    RUNS_UNTIL_KILLED,
    Tally,
    World,
    check,
    finish,
    grow,
    kill_after,
    make_world,
    marks_of,
    mirrors_of,
    reset,
)

CYCLES = int(os.environ.get("RECALL_KILL_CYCLES", "200"))
SESSIONS = 40


def _calibrate(w: World) -> tuple[float, dict[str, float]]:
    """Start-up time, and each command's run time on an empty index: kills are drawn across it."""
    startup = min(finish(w, ["--version"]) for _ in range(3))
    took = {}
    for name, command in KILL_LIST.items():
        if name not in RUNS_UNTIL_KILLED:
            reset(w)
            took[name] = finish(w, *command(w))
    for name, parts in RUNS_UNTIL_KILLED.items():
        took[name] = startup + sum(took[p] for p in parts)
    reset(w)
    return startup, took


@pytest.mark.needs_model
def test_kills_at_random_points_never_corrupt_and_sync_restores_everything(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    seed = int(os.environ.get("RECALL_KILL_SEED", random.randrange(1 << 30)))
    w = make_world(tmp_path, sessions=SESSIONS, seed=seed, embedding="local")
    startup, took = _calibrate(w)
    tally = Tally()
    names = list(KILL_LIST)
    started = time.monotonic()
    for _ in range(CYCLES):
        if w.rng.random() < 0.3:
            grow(w)
        if w.rng.random() < 0.15:
            reset(w)
        name = w.rng.choice(names)
        argv, stdin = KILL_LIST[name](w)
        # Half the kills anywhere in the run, half once start-up is over.
        delay = w.rng.uniform(0 if w.rng.random() < 0.5 else startup, took[name] * 1.1)
        tally.outcome[kill_after(w, argv, stdin, delay)] += 1
        tally.by_command[name] += 1
        tally.cycles += 1
        check(w)
    loop_s = time.monotonic() - started

    # The safety net: one sync after all that equals a clean index of the same files.
    finish(w, ["sync", "--quiet", "--no-embed"])
    check(w)
    clean = World(w.home, tmp_path / "clean", w.scratch, w.rng)
    finish(clean, ["sync", "--quiet", "--no-embed"])
    assert mirrors_of(w.db) == mirrors_of(clean.db)
    assert marks_of(w.db) == marks_of(clean.db)
    assert len(mirrors_of(w.db)) == SESSIONS

    with capsys.disabled():
        print(
            f"\n[crash] seed {seed}: {tally.summary()}; {w.grown} turns appended; "
            f"loop {loop_s:.1f}s; start-up {startup * 1000:.0f} ms; "
            + ", ".join(f"{n} {t * 1000:.0f} ms" for n, t in took.items())
        )
    # The loop only proves something if kills really landed inside transactions.
    assert tally.outcome["killed holding the write lock"] >= max(1, CYCLES // 50)
    assert tally.outcome["killed outside the write lock"] >= max(1, CYCLES // 50)
