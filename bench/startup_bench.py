"""What a user waits on per command: `recall search` (keyword) and a no-op hook, as processes.

    python bench/startup_bench.py [--sessions 60] [--runs 21] [--before OTHER/python]

A synthetic corpus (bench/corpus.py) of `--sessions` sessions is indexed
into a throwaway RECALL_HOME. Then, interleaved so the machine's noise falls
on all alike, `--runs` times each:

- the baseline, `python3 -c 'import json'` (Python's own start-up);
- `recall search WORD --mode keyword` over that index (a whole process);
- `recall ingest --event agent-stop` with a Claude Code Stop payload for a
  transcript already indexed (nothing to write: the hook agents run every turn).

With `--before DIR`, the two recall commands run a second time per round from
the recall package under DIR (another checkout's `python/`), on the same index.

Prints p50 and p95 of wall time and p50 of CPU time (user + system: steadier
on a shared machine) of each, in ms and as ratios to the baseline's p50, all
from this one run (issue 23 asks search p50 <= 2.0x, hook p95 <= 2.0x).
Bytecode is written, as an install has it: one untimed run of each comes first.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import corpus  # noqa: E402

Case = tuple[list[str], bytes, dict[str, str]]


def timed(cmd: list[str], env: dict[str, str], stdin: bytes = b"") -> tuple[float, float]:
    """Wall and CPU seconds of one process, which must succeed (search: 0 or 1)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(cmd, input=stdin, env=env, capture_output=True, check=False)
    took = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode not in (0, 1):
        raise SystemExit(f"{' '.join(cmd)} failed: {done.stderr.decode(errors='replace')}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return took, cpu


def p(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def cases(env: dict[str, str], query: str, payload: bytes, before: str | None) -> dict[str, Case]:
    recall = [sys.executable, "-m", "recall"]
    out: dict[str, Case] = {
        "python3 -c 'import json'": ([sys.executable, "-c", "import json"], b"", env)
    }
    trees = [("", env)]
    if before:
        trees.append(("before: ", {**env, "PYTHONPATH": before}))
    for label, tree_env in trees:
        out[f"{label}recall search {query} --mode keyword"] = (
            [*recall, "search", query, "--mode", "keyword"],
            b"",
            tree_env,
        )
        out[f"{label}recall ingest --event agent-stop (no-op)"] = (
            [*recall, "ingest", "--event", "agent-stop"],
            payload,
            tree_env,
        )
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sessions", type=int, default=60)
    ap.add_argument("--runs", type=int, default=21)
    ap.add_argument("--query", default="retry")
    ap.add_argument("--before", metavar="DIR", help="also time the recall package under DIR")
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="recall-startup-") as tmp:
        root = Path(tmp)
        corpus.generate(root / "user", args.sessions, jobs=1)
        env = {
            k: v
            for k, v in os.environ.items()
            if not k.startswith("RECALL_") and k != "PYTHONDONTWRITEBYTECODE"
        }
        env.update(
            RECALL_HOME=str(root / "home"),
            HOME=str(root / "user"),
            RECALL_EMBEDDING="none",
            RECALL_IMPL=os.environ.get("RECALL_IMPL", "auto"),
        )
        subprocess.run(
            [sys.executable, "-m", "recall", "sync"], env=env, check=True, capture_output=True
        )
        transcript = next((root / "user" / ".claude" / "projects").rglob("*.jsonl"))
        payload = json.dumps({"hook_event_name": "Stop", "transcript_path": str(transcript)})
        todo = cases(env, args.query, payload.encode(), args.before)
        for cmd, stdin, case_env in todo.values():
            timed(cmd, case_env, stdin)
        wall: dict[str, list[float]] = {name: [] for name in todo}
        cpu: dict[str, list[float]] = {name: [] for name in todo}
        for _ in range(args.runs):
            for name, (cmd, stdin, case_env) in todo.items():
                took, used = timed(cmd, case_env, stdin)
                wall[name].append(took)
                cpu[name].append(used)
    base, base_cpu = p(next(iter(wall.values())), 0.5), p(next(iter(cpu.values())), 0.5)
    print(f"{args.sessions} sessions, {args.runs} runs each, interleaved")
    for name in wall:
        p50, p95, c50 = p(wall[name], 0.5), p(wall[name], 0.95), p(cpu[name], 0.5)
        print(
            f"  {name:<52} wall p50 {p50 * 1000:6.1f} ms ({p50 / base:.2f}x)"
            f"  p95 {p95 * 1000:6.1f} ms ({p95 / base:.2f}x)"
            f"  cpu p50 {c50 * 1000:6.1f} ms ({c50 / base_cpu:.2f}x)"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
