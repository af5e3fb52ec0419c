"""A user's first `recall sync` of a year of history: when is the newest month hybrid-ready?

    python bench/first_sync_bench.py [--sessions 2000] [--days 30] [--keep-going]

A synthetic history of `--sessions` agent sessions in the real on-disk layouts
(`bench/corpus.py`: Claude Code, Codex and Gemini transcripts spread over 300
days, about 50 messages a session, so 2,000 sessions are ~100,000 messages) is
written once to bench/data/year-<n>/, which stands in for the user's home. Then,
with a model installed and a fresh data directory, one `recall sync` runs as a
user runs it, and this script watches it from outside (a read-only look at the
index every half second):

- **import**: from the start until sync says keyword search works (its
  "Keyword search works now" line; everything is keyword-searchable);
- **month searchable**: until every message of the sessions active in the newest
  `--days` days is searchable by meaning, whole or, where the run's first pass
  read it so (semantic/firstpass.py), from its opening;
- **month ready**: until every session active in the newest `--days` days of
  the history is embedded whole (what `recall status` reports as "every session
  since ... is embedded"), measured from the start and from the end of the
  import, in wall seconds, and in the sync process's CPU seconds after the
  import (on a busy machine, CPU seconds over the two cores' is the steadier
  figure; the chunk count is taken when sync stops, a look after);
- what `recall status` then says of the rest.

Sync is then stopped with Ctrl-C (SIGINT), as a user would, and the next run
resumes (`--keep-going` lets it finish and reports the whole history's time).
The days count back from the history's newest session, not today's date.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "python"))
sys.path.insert(0, str(HERE))

READY_LINE = "Keyword search works now"


def corpus(sessions: int) -> Path:
    """The history's root (a stand-in $HOME), written once per size."""
    from corpus import generate

    root = HERE / "data" / f"year-{sessions}"
    if not (root / "manifest.json").exists():
        generate(root, sessions)
    return root


def env_for(home: Path, data: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("RECALL_", "XDG_"))}
    env.update(
        HOME=str(home),
        RECALL_HOME=str(data),
        RECALL_COMPUTER="bench",
        PYTHONPATH=str(HERE.parent / "python"),
        PYTHONUNBUFFERED="1",
    )
    if os.environ.get("RECALL_MODEL_DIR"):
        env["RECALL_MODEL_DIR"] = os.environ["RECALL_MODEL_DIR"]
    return env


def month_pending(db_path: Path, model: str, days: float) -> tuple[int, int, int] | None:
    """(messages, of them not embedded whole, of them not searchable by meaning at all)
    in sessions active in the newest `days` days of the history (a message the first
    pass read from its opening is searchable, not whole); None while there is no index."""
    if not db_path.exists():
        return None
    try:
        db = sqlite3.connect(f"file:{db_path}?mode=ro", uri=True, timeout=5)
    except sqlite3.Error:
        return None
    try:
        (newest,) = db.execute("SELECT max(ended_at) FROM sessions").fetchone()
        if newest is None:
            return None
        since = newest - days * 86400
        (total,) = db.execute(
            "SELECT count(*) FROM messages m JOIN sessions s ON s.id = m.session"
            " WHERE s.ended_at >= ?",
            (since,),
        ).fetchone()
        (done,) = db.execute(
            "SELECT count(*) FROM messages m JOIN sessions s ON s.id = m.session"
            " JOIN embedded e ON e.message = m.id AND e.model = ? WHERE s.ended_at >= ?",
            (model, since),
        ).fetchone()
        (opened,) = db.execute(
            "SELECT count(*) FROM messages m JOIN sessions s ON s.id = m.session"
            " JOIN chunks c ON c.message = m.id AND c.model = ? AND c.piece = -1"
            " WHERE s.ended_at >= ? AND NOT EXISTS"
            " (SELECT 1 FROM embedded e WHERE e.message = m.id AND e.model = c.model)",
            (model, since),
        ).fetchone()
        return int(total), int(total) - int(done), int(total) - int(done) - int(opened)
    except sqlite3.Error:  # mid-migration, or the table not made yet
        return None
    finally:
        db.close()


def child_model(env: dict[str, str]) -> str:
    """The model id recall will embed with in `env` (its config and model folders, not
    this script's)."""
    code = "from recall.semantic.provider import current_model_id; print(current_model_id())"
    out = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
    )
    return out.stdout.strip()


def semantic_line(env: dict[str, str]) -> str:
    """What `recall status` says of semantic search now (run beside the sync)."""
    out = subprocess.run(
        [sys.executable, "-m", "recall", "status"], env=env, capture_output=True, text=True
    ).stdout
    return next((line.strip() for line in out.splitlines() if "semantic search" in line), "")


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of a running process so far (Linux /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def watch(args: argparse.Namespace) -> dict[str, Any]:
    home = corpus(args.sessions)
    manifest = json.loads((home / "manifest.json").read_text())
    out: dict[str, Any] = {
        "sessions": args.sessions,
        "history_mb": round(manifest["bytes"] / 1e6, 1),
        "days": args.days,
    }
    with tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp) / "data"
        env = env_for(home, data)
        model = child_model(env)
        lines: list[tuple[float, str]] = []
        start = time.perf_counter()
        proc = subprocess.Popen(
            [sys.executable, "-m", "recall", "sync"],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            # a background job of a non-interactive shell ignores SIGINT, and so would the
            # sync it starts: Ctrl-C (how this stops it) must reach it as it reaches a user's
            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
        )

        def read() -> None:
            assert proc.stdout is not None
            for line in proc.stdout:
                lines.append((time.perf_counter() - start, line.rstrip()))

        reader = threading.Thread(target=read, daemon=True)
        reader.start()
        imported = month = searchable = None
        said = ""
        month_size = 0
        cpu_imported = cpu_month = cpu_searchable = 0.0
        while proc.poll() is None:
            time.sleep(0.5)
            if imported is None:
                imported = next((t for t, s in lines if READY_LINE in s), None)
                if imported is not None:
                    cpu_imported = cpu_seconds(proc.pid)
                continue
            state = month_pending(data / "recall.db", model, args.days)
            if state is not None and state[2] == 0 and searchable is None:
                searchable = time.perf_counter() - start
                cpu_searchable = cpu_seconds(proc.pid)
                said = semantic_line(env)
            if state is not None and state[1] == 0 and month is None:
                month, month_size = time.perf_counter() - start, state[0]
                cpu_month = cpu_seconds(proc.pid)
                if not args.keep_going:
                    proc.send_signal(signal.SIGINT)
        proc.wait()
        reader.join(5)
        whole = time.perf_counter() - start
        if imported is None:  # a sync shorter than one look
            imported = next((t for t, s in lines if READY_LINE in s), None)
        if month is None:  # finished between two looks
            state = month_pending(data / "recall.db", model, args.days)
            if state is not None and state[1] == 0:
                month, month_size = whole, state[0]
        searchable = searchable if searchable is not None else month
        status = subprocess.run(
            [sys.executable, "-m", "recall", "status", "--json"],
            env=env,
            capture_output=True,
            text=True,
            check=True,
        )
        info = json.loads(status.stdout)
        db = sqlite3.connect(data / "recall.db")
        (messages,) = db.execute("SELECT count(*) FROM messages").fetchone()
        (chunks,) = db.execute("SELECT count(*) FROM chunks").fetchone()
        db.close()
    out.update(
        messages=messages,
        month_messages=month_size,
        import_s=round(imported, 1) if imported is not None else None,
        month_searchable_s=round(searchable, 1) if searchable is not None else None,
        month_searchable_after_import_s=(
            round(searchable - imported, 1) if searchable and imported else None
        ),
        month_searchable_after_import_cpu_s=(
            round(cpu_searchable - cpu_imported, 1) if cpu_searchable else None
        ),
        month_ready_s=round(month, 1) if month is not None else None,
        month_after_import_s=round(month - imported, 1) if month and imported else None,
        month_after_import_cpu_s=round(cpu_month - cpu_imported, 1) if cpu_month else None,
        chunks_embedded=chunks,
        sync_exit=proc.returncode,
        sync_s=round(whole, 1),
        status_when_searchable=said,
        status_semantic=info.get("semantic"),
        sync_output=[s for _, s in lines][-6:],
    )
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--sessions", type=int, default=2000)
    p.add_argument("--days", type=float, default=30)
    p.add_argument("--keep-going", action="store_true", help="let sync embed everything")
    p.add_argument("--json", type=Path)
    args = p.parse_args(argv)
    try:
        from recall.semantic.provider import current_model_id

        current_model_id()
    except Exception as exc:
        print(f"no embedding model: {exc}", file=sys.stderr)
        return 2
    result = watch(args)
    print(json.dumps(result, indent=1))
    if args.json:
        args.json.write_text(json.dumps(result, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
