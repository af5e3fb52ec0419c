"""A harness that SIGKILLs recall's writers at random points and checks the index after each kill.

A `World` is a stand-in $HOME holding agent transcripts in their real layouts
(the benchmark's synthetic corpus) plus a RECALL_HOME. Each cycle may grow a
transcript by one turn (as an agent would) or start again from an empty
index, then runs one command from `KILL_LIST`, kills it after a random delay
drawn across that command's measured run time (so kills land during start-up,
parsing, transactions and commits), and checks:

- nobody holds the write lock any more (a dead writer's lock is released);
- `PRAGMA integrity_check` and both FTS5 integrity checks pass;
- every session is whole or absent: the sessions read from each transcript
  equal what a clean ingest of that transcript's bytes up to its mark gives,
  and no session exists without a mark.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from recall.agents import ADAPTERS
from recall.ingest import ingest_path
from recall.store import open_reader, open_writer
from recall.store.health import index_problems
from recall.store.locking import lock_is_free, read_holder
from recall.store.queries import load_mirror

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
import corpus

COMPUTER = "testbox"


@dataclass
class World:
    home: Path
    """Stand-in $HOME: the agents' transcript directories live under it."""
    recall_home: Path
    scratch: Path
    rng: random.Random
    files: list[tuple[str, Path]] = field(default_factory=list)
    references: dict[tuple[str, int], dict[str, Any]] = field(default_factory=dict)
    grown: int = 0
    embedding: str = "none"
    """`RECALL_EMBEDDING` for every process: pinned, so the machine's model never
    decides what a load or crash run does (the crash loop embeds: "local")."""

    @property
    def db(self) -> Path:
        return self.recall_home / "recall.db"

    @property
    def lock(self) -> Path:
        return self.recall_home / "recall.db.lock"

    def env(self) -> dict[str, str]:
        return {
            **os.environ,
            "HOME": str(self.home),
            "RECALL_HOME": str(self.recall_home),
            "RECALL_COMPUTER": COMPUTER,
            "RECALL_EMBEDDING": self.embedding,
        }


def make_world(root: Path, sessions: int, seed: int, embedding: str = "none") -> World:
    home = root / "home"
    manifest = corpus.generate(home, sessions=sessions, seed=seed, jobs=1)
    world = World(home, root / "recall", root / "scratch", random.Random(seed), embedding=embedding)
    world.files = [(s["agent"], home / s["path"]) for s in manifest["sessions_index"]]
    return world


# --- the commands the loop kills ---------------------------------------------------

Command = Callable[[World], tuple[list[str], bytes | None]]


def _ingest_paths(w: World) -> tuple[list[str], bytes | None]:
    picked = w.rng.sample(w.files, k=min(len(w.files), w.rng.randint(1, 6)))
    return ["ingest", *(str(p) for _, p in picked)], None


def _ingest_hook(w: World) -> tuple[list[str], bytes | None]:
    _, path = w.rng.choice(w.files)
    payload = {
        "session_id": path.stem,
        "transcript_path": str(path),
        "cwd": str(w.home),
        "hook_event_name": "Stop",
    }
    return ["ingest", "--event", "agent-stop"], json.dumps(payload).encode()


def _sync(w: World) -> tuple[list[str], bytes | None]:
    # Embedding after sync is its own job (`recall embed`), not what this loop kills.
    return ["sync", "--quiet", "--no-embed"], None


KILL_LIST: dict[str, Command] = {
    "ingest": _ingest_paths,
    "ingest --event": _ingest_hook,
    "sync": _sync,
    "embed": lambda w: (["embed"], None),
    # the daemon's worker runs sync then embed at start; it never exits by itself
    "serve": lambda w: (["serve", "--port", "0"], None),
}
RUNS_UNTIL_KILLED = {"serve": ("sync", "embed")}
"""Commands that never finish: their run time is taken as that of the commands they run."""


# --- running and killing ---------------------------------------------------------------


def spawn(
    w: World, argv: list[str], stdin: bytes | None, env: dict[str, str] | None = None
) -> subprocess.Popen[bytes]:
    """`recall ARGV` in w's homes; stdout and stderr are piped, stdin is sent and closed."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "recall", *argv],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={**w.env(), **(env or {})},
    )
    assert proc.stdin is not None
    try:
        proc.stdin.write(stdin or b"")
        proc.stdin.close()
    except BrokenPipeError:
        pass
    proc.stdin = None
    return proc


def finish(w: World, argv: list[str], stdin: bytes | None = None) -> float:
    """Run a command to completion; returns its wall time. It must succeed silently."""
    start = time.monotonic()
    proc = spawn(w, argv, stdin)
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 0 and not err, (argv, proc.returncode, err)
    assert argv[0] != "ingest" or argv[1] != "--event" or not out, out
    return time.monotonic() - start


@dataclass
class Tally:
    cycles: int = 0
    outcome: Counter[str] = field(default_factory=Counter)
    by_command: Counter[str] = field(default_factory=Counter)

    def summary(self) -> str:
        parts = ", ".join(f"{n} {what}" for what, n in self.outcome.most_common())
        cmds = ", ".join(f"{n} {c}" for c, n in sorted(self.by_command.items()))
        return f"{self.cycles} kill cycles ({cmds}): {parts}"


def kill_after(w: World, argv: list[str], stdin: bytes | None, delay: float) -> str:
    """Run a command and SIGKILL it after `delay` s; where the kill landed."""
    proc = spawn(w, argv, stdin)
    try:
        proc.wait(timeout=delay)
    except subprocess.TimeoutExpired:
        proc.kill()  # SIGKILL on POSIX, TerminateProcess on Windows
        proc.wait(timeout=60)
        holder = read_holder(w.lock)
        proc.communicate()
        if holder is not None and holder.pid == proc.pid:
            return "killed holding the write lock"
        return "killed outside the write lock"
    _, err = proc.communicate()
    assert proc.returncode == 0 and not err, (argv, proc.returncode, err)
    return "finished before the kill"


# --- checking -------------------------------------------------------------------------


def mirrors_of(db: Path, where: str = "", args: tuple[Any, ...] = ()) -> dict[str, Any]:
    """Every session (or those `where` selects) as comparable builtins, without its path."""
    with open_reader(db) as store:
        rows = store.conn.execute(f"SELECT id, session_id FROM sessions {where}", args).fetchall()
        out = {}
        for rowid, sid in rows:
            mirror = load_mirror(store.conn, rowid)
            mirror.transcript_path = None
            out[sid] = mirror
        return out


def marks_of(db: Path) -> dict[str, tuple[str, int]]:
    with open_reader(db) as store:
        return {
            p: (a, o)
            for p, a, o in store.conn.execute("SELECT path, agent, offset FROM transcripts")
        }


def reference(w: World, path: str, agent: str, offset: int) -> dict[str, Any]:
    """The sessions a clean, one-process ingest of `path`'s first `offset` bytes gives."""
    key = (path, offset)
    if key not in w.references:
        n = len(w.references)
        rel = Path(path).relative_to(w.home.resolve())
        target = w.scratch / str(n) / "home" / rel
        target.parent.mkdir(parents=True)
        with open(path, "rb") as fh:
            target.write_bytes(fh.read(offset))
        db = w.scratch / str(n) / "recall.db"
        with open_writer(db) as store:
            ingest_path(store, ADAPTERS[agent], target.resolve(), COMPUTER)
        w.references[key] = mirrors_of(db)
    return w.references[key]


def check(w: World) -> None:
    """The index after a kill: lock free, intact, every session whole or absent."""
    assert lock_is_free(w.lock), "a killed writer left the write lock held"
    if not w.db.exists():
        return
    problems = index_problems(w.db)
    assert problems == [], problems
    marks = marks_of(w.db)
    with open_reader(w.db) as store:
        orphans = store.conn.execute(
            "SELECT session_id FROM sessions WHERE transcript_path IS NULL"
            " OR transcript_path NOT IN (SELECT path FROM transcripts)"
        ).fetchall()
    assert orphans == [], f"sessions without a transcript mark: {orphans}"
    for path, (agent, offset) in marks.items():
        got = mirrors_of(w.db, "WHERE transcript_path = ?", (path,))
        want = reference(w, path, agent, offset)
        assert got == want, f"{path} up to byte {offset} is not whole"


def grow_file(w: World, path: Path) -> str:
    """Append one turn to a Claude transcript, as Claude Code does at a turn's end.

    Returns the marker word the new user prompt carries.
    """
    w.grown += 1
    marker = f"appendedturn{w.grown}x"
    corpus.append_claude_turn(path, seed=w.grown, marker=marker)
    return marker


def grow(w: World) -> None:
    grow_file(w, w.rng.choice([p for a, p in w.files if a == "claude"]))


def reset(w: World) -> None:
    """Start again from an empty index, so kills keep landing in big first ingests."""
    for suffix in ("", "-wal", "-shm"):
        Path(str(w.db) + suffix).unlink(missing_ok=True)
