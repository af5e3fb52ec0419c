"""`recall embed` throughput and peak memory on an agent-history corpus, per setting.

    python bench/embed_bench.py [--sessions 300] [--limit 3000] [--variants shipped,fp-arena]

A corpus of `--sessions` synthetic agent sessions (`bench/corpus.py`: Claude,
Codex and Gemini transcripts, prose, code and logs) is synced once without
embedding into bench/data/embed-<n>/. Each variant then embeds the newest
`--limit` pending messages (0: all) from a copy of that index, in a process
of its own that applies the variant's settings first: wall seconds, chunks,
chunks/s, CPU seconds (user + system: the steadier figure on a shared machine)
and the process's peak RSS (`ru_maxrss`). Variants alternate over
`--rounds`; the best round of each is reported beside the first variant's.

Variants (module settings of `semantic.embedjob`, `semantic.encoder`,
`semantic.optimized`):
- shipped: the code as it is.
- before: the settings before issue 28 (onnxruntime's CPU memory arena on,
  batches of 2048 padded tokens, 16 pieces of every message).
- first-window: only the first window-sized piece of each message.
- batch-1024 / batch-4096: padded tokens an onnxruntime call.
- threads-1: one onnxruntime thread (the daemon's background setting).
- float: the optimised graph in float32, not its int8 rewrite (semantic/quantize.py).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "bench" / "data"

VARIANTS: dict[str, dict[str, Any]] = {
    "shipped": {},
    "before": {"ARENA": True, "BATCH_TOKENS": 2048, "MAX_PIECES": 16, "MAX_WORKERS": 1},
    "one-run-512": {"MAX_WORKERS": 1, "BATCH_TOKENS": 512},  # shipped until 2026-11-28
    "first-window": {"MAX_PIECES": 1},
    "batch-512": {"BATCH_TOKENS": 512},
    "batch-1024": {"BATCH_TOKENS": 1024},
    "batch-4096": {"BATCH_TOKENS": 4096},
    "threads-1": {"THREADS": 1, "MAX_WORKERS": 1},
    "no-arena": {"ARENA": False},
    "float": {"QUANTIZE": False},
}

CHILD = """
import json, sys
from recall.semantic import embedjob, encoder, optimized, provider
settings = json.loads(sys.argv[1])
for name, value in settings.items():
    module = next(m for m in (embedjob, encoder, optimized) if hasattr(m, name))
    setattr(module, name, value)
from recall.cli import main
sys.exit(main(["embed", "-q"] + (["--limit", sys.argv[2]] if sys.argv[2] != "0" else [])))
"""


def corpus_home(sessions: int) -> Path:
    """An index of `sessions` synthetic sessions, synced without embedding (kept)."""
    home = DATA / f"embed-{sessions}"
    if (home / "recall.db").exists():
        return home
    corpus = DATA / f"corpus-{sessions}"
    if not corpus.exists():
        make = [sys.executable, str(ROOT / "bench" / "corpus.py"), "--sessions", str(sessions)]
        subprocess.run([*make, "--out", str(corpus)], check=True, capture_output=True)
    home.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "HOME": str(corpus), "RECALL_HOME": str(home), "RECALL_COMPUTER": "b"}
    env["PYTHONPATH"] = str(ROOT / "python")
    subprocess.run(
        [sys.executable, "-m", "recall", "sync", "--no-embed", "-q"], env=env, check=True
    )
    return home


def once(source: Path, settings: dict[str, Any], limit: int) -> dict[str, Any]:
    """One run from the unembedded index. The model's optimised copy (`models/` in the
    data dir) is built once and kept, as a user's is: only the index is fresh."""
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp)
        shutil.copy(source / "recall.db", home / "recall.db")
        (source / "models").mkdir(exist_ok=True)
        (home / "models").symlink_to(source / "models")
        env = {k: v for k, v in os.environ.items() if not k.startswith("RECALL_")}
        env.update(RECALL_HOME=str(home), PYTHONPATH=str(ROOT / "python"))
        if os.environ.get("RECALL_MODEL_DIR"):
            env["RECALL_MODEL_DIR"] = os.environ["RECALL_MODEL_DIR"]
        start = time.perf_counter()
        proc = subprocess.Popen(
            [sys.executable, "-c", CHILD, json.dumps(settings), str(limit)],
            env=env,
            stdout=subprocess.DEVNULL,
        )
        _, status, usage = os.wait4(proc.pid, 0)
        seconds = time.perf_counter() - start
        if status:
            raise RuntimeError(f"embed failed with {settings}: status {status}")
        db = sqlite3.connect(home / "recall.db")
        (chunks,) = db.execute("SELECT count(*) FROM chunks").fetchone()
        db.close()
    cpu = usage.ru_utime + usage.ru_stime
    return {"seconds": seconds, "cpu": cpu, "chunks": chunks, "rss_mb": usage.ru_maxrss // 1024}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--sessions", type=int, default=300)
    p.add_argument("--limit", type=int, default=3000, help="messages embedded a run (0: all)")
    p.add_argument("--variants", default="shipped,before")
    p.add_argument("--rounds", type=int, default=2)
    p.add_argument("--json", type=Path)
    args = p.parse_args(argv)
    home = corpus_home(args.sessions)
    once(home, {}, 1)  # builds the model's optimised copy, kept in home/models
    names = args.variants.split(",")
    runs: dict[str, list[dict[str, Any]]] = {n: [] for n in names}
    for r in range(args.rounds):
        for name in names[:: 1 if r % 2 == 0 else -1]:
            runs[name].append(once(home, VARIANTS[name], args.limit))
    best = {n: min(rs, key=lambda x: x["seconds"]) for n, rs in runs.items()}
    first = best[names[0]]
    print(
        f"{args.sessions} sessions, newest {args.limit or 'all'} messages embedded per run,"
        f" load average {os.getloadavg()[0]:.1f}"
    )
    for name in names:
        b = best[name]
        rate = b["chunks"] / b["seconds"]
        ratio = rate / (first["chunks"] / first["seconds"])
        rounds = ", ".join(f"{x['seconds']:.1f}" for x in runs[name])
        print(
            f"  {name:13s} {b['chunks']:6d} chunks in {b['seconds']:6.1f} s = {rate:5.1f} chunks/s"
            f" ({ratio:.2f}x {names[0]}), {b['chunks'] / b['cpu']:5.1f} chunks a CPU-second,"
            f" peak RSS {max(x['rss_mb'] for x in runs[name])} MB (rounds {rounds} s)"
        )
    if args.json:
        args.json.write_text(json.dumps(runs, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
