"""`recall ingest --format jsonl` on a year of history, beside the store's own floor.

    python bench/import_bench.py [--messages 430000] [--only file,stdin,resume]

Writes (once, kept in bench/data/) a JSONL history of `--messages` lines
(`history_corpus.py`: ~210 MB at 430,000), then measures, each in a fresh
`RECALL_HOME` and a process of its own:

- **floor**: SQLite alone inserting the same texts the way the store keeps
  them (a table of rows and an external-content FTS5 index over it, recall's
  tokenizer and pragmas, one transaction and one bulk FTS insert a 4 MiB
  piece). The JSON is decoded outside the timing: this is what the store
  can insert, the ceiling an import can approach.
- **file**: `recall ingest --format jsonl FILE`; MB/s of the file's bytes,
  the ratio to the floor, peak RSS (the child's `ru_maxrss`).
- **stdin**: the same, piped (`recall ingest --format jsonl - < FILE`).
- **resume**: an import from the file killed (SIGKILL) half-way, then run
  again: the second run's seconds, and whether the index then holds every
  message exactly once.
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
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "python"))

from history_corpus import ensure  # noqa: E402

MB = 1024 * 1024
PIECE = 4 * MB
TOKENIZER = "porter unicode61 remove_diacritics 2"


def floor(path: Path) -> float:
    """Seconds SQLite takes to store and FTS5-index the file's texts (decoding untimed)."""
    with tempfile.TemporaryDirectory() as tmp:
        db = sqlite3.connect(Path(tmp) / "floor.db", isolation_level=None)
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA synchronous=NORMAL")
        db.execute("PRAGMA cache_size=-65536")
        db.execute("CREATE TABLE t(id INTEGER PRIMARY KEY, session TEXT, role TEXT, text TEXT)")
        db.execute(
            "CREATE VIRTUAL TABLE f USING fts5(text, content='t', content_rowid='id',"
            f" tokenize='{TOKENIZER}')"
        )
        spent = 0.0
        with path.open("rb") as fh:
            while True:
                lines = fh.readlines(PIECE)
                if not lines:
                    break
                rows = []
                for line in lines:
                    obj = json.loads(line)
                    rows.append((obj["session"], obj["role"], obj["text"]))
                start = time.perf_counter()
                (last,) = db.execute("SELECT coalesce(max(id), 0) FROM t").fetchone()
                db.execute("BEGIN IMMEDIATE")
                db.executemany("INSERT INTO t(session, role, text) VALUES (?, ?, ?)", rows)
                index = "INSERT INTO f(rowid, text) SELECT id, text FROM t WHERE id > ?"
                db.execute(index, (last,))
                db.execute("COMMIT")
                spent += time.perf_counter() - start
        db.close()
    return spent


def env_for(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("RECALL_", "XDG_"))}
    env.update(
        HOME=str(home),
        RECALL_HOME=str(home / "data"),
        RECALL_COMPUTER="bench",
        PYTHONPATH=str(HERE.parent / "python"),
    )
    return env


def run(cmd: list[str], env: dict[str, str], stdin: Path | None = None) -> tuple[float, int]:
    """(wall seconds, peak RSS in MB) of one process."""
    start = time.perf_counter()
    with open(stdin or os.devnull, "rb") as fh:
        proc = subprocess.Popen(cmd, env=env, stdin=fh, stdout=subprocess.PIPE)
        _, status, usage = os.wait4(proc.pid, 0)
    seconds = time.perf_counter() - start
    if status != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed ({status})")
    return seconds, usage.ru_maxrss // 1024


def count(home: Path) -> tuple[int, int]:
    """(messages, distinct (session, key)) in the index."""
    db = sqlite3.connect(home / "data" / "recall.db")
    n, distinct = db.execute(
        "SELECT count(*), (SELECT count(*) FROM (SELECT DISTINCT session, key FROM messages))"
        " FROM messages"
    ).fetchone()
    db.close()
    return n, distinct


def resume(path: Path, recall: list[str]) -> dict[str, Any]:
    """Kill an import half-way (by the time it would have taken), then finish it."""
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp)
        env = env_for(home)
        full, _ = run([*recall, "ingest", "--format", "jsonl", str(path)], env)
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp)
        env = env_for(home)
        proc = subprocess.Popen(
            [*recall, "ingest", "--format", "jsonl", str(path)], env=env, stdout=subprocess.PIPE
        )
        time.sleep(full / 2)
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        before, _ = count(home)
        again, rss = run([*recall, "ingest", "--format", "jsonl", str(path)], env)
        n, distinct = count(home)
    return {
        "first_run_s": full,
        "killed_with_messages": before,
        "resumed_s": again,
        "resumed_rss_mb": rss,
        "messages": n,
        "distinct": distinct,
    }


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--messages", type=int, default=430_000)
    p.add_argument("--only", default="file,stdin,resume")
    p.add_argument("--json", type=Path, help="write the figures here too")
    args = p.parse_args(argv)
    path = ensure(HERE / "data" / f"history-{args.messages}.jsonl", args.messages)
    size = path.stat().st_size
    lines = sum(1 for _ in path.open("rb"))
    recall = [sys.executable, "-m", "recall"]
    out: dict[str, Any] = {"file_mb": round(size / MB, 1), "messages": lines}
    base = floor(path)
    out["floor_mb_s"] = round(size / MB / base, 1)
    print(f"{path.name}: {size / MB:.1f} MB, {lines:,} messages")
    print(f"floor (SQLite + FTS5, same texts): {base:.1f} s, {out['floor_mb_s']} MB/s")
    for how in ("file", "stdin"):
        if how not in args.only:
            continue
        with tempfile.TemporaryDirectory() as tmp:
            home = Path(tmp)
            target = "-" if how == "stdin" else str(path)
            cmd = [*recall, "ingest", "--format", "jsonl", target]
            seconds, rss = run(cmd, env_for(home), path if how == "stdin" else None)
            n, distinct = count(home)
        rate = size / MB / seconds
        out[how] = {
            "seconds": round(seconds, 1),
            "mb_s": round(rate, 1),
            "ratio_to_floor": round(rate / out["floor_mb_s"], 2),
            "peak_rss_mb": rss,
            "messages": n,
        }
        print(
            f"{how:5}: {seconds:.1f} s, {rate:.1f} MB/s = {rate / out['floor_mb_s']:.2f}x floor,"
            f" peak RSS {rss} MB, {n:,} messages ({distinct:,} distinct)"
        )
    if "resume" in args.only:
        r = resume(path, recall)
        out["resume"] = r
        ok = r["messages"] == r["distinct"] == lines
        print(
            f"resume: killed at {r['killed_with_messages']:,} messages, finished in"
            f" {r['resumed_s']:.1f} s (whole run {r['first_run_s']:.1f} s), peak RSS"
            f" {r['resumed_rss_mb']} MB; {r['messages']:,} messages,"
            f" {'each once' if ok else 'NOT each once'}"
        )
    if args.json:
        args.json.write_text(json.dumps(out, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
