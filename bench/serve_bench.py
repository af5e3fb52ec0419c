"""`recall serve` in numbers: fan-out to three daemons, and the warm model.

1. Fan-out: the same keyword queries asked of one local index in-process
   (`recall search`'s own function), and of three local daemons at once
   through `--computer laptop desk build` (HTTP on loopback, parallel,
   merged). Each computer holds a synthetic corpus (bench/corpus.py) of
   `--sessions` sessions. p50 and p95 over every query and run.
2. Warm model: `recall search` as a user runs it (a whole process): hybrid
   answered by a running daemon that has the model loaded, hybrid answered
   in-process (RECALL_NO_DAEMON=1: the process loads the model itself), and
   keyword (never sent to the daemon), interleaved, each as a ratio to keyword
   (issue 23's bar: daemon hybrid ≤ 1.5x keyword, cold hybrid ≤ 3x).

    python bench/serve_bench.py [--sessions 60] [--runs 5] [--only fanout|warm]

One run; every ratio is against a baseline measured in the same run.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import corpus  # noqa: E402

QUERIES = [
    "retry",
    "deadlock",
    "cache invalidation",
    '"rate limiter"',
    "idempot*",
    "migration -rollback",
    "TimeoutError",
    "what did we decide about the retry backoff",
]
HYBRID_QUERIES = [
    "how do we stop duplicate payments",
    "library for data analysis",
    "why was the deploy slow",
    "retry backoff for webhooks",
]
COMPUTERS = ("laptop", "desk", "build")


def pct(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1)))]


def env_for(root: Path, name: str, embedding: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("RECALL_")}
    env.update(
        HOME=str(root / name / "home"),
        RECALL_HOME=str(root / name / "recall"),
        RECALL_COMPUTER=name,
        RECALL_EMBEDDING=embedding,
    )
    return env


def recall(env: dict[str, str], *argv: str) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        [sys.executable, "-m", "recall", *argv],
        capture_output=True,
        text=True,
        env=env,
        timeout=1800,
        check=False,
    )
    if done.returncode not in (0, 1):
        raise SystemExit(f"recall {' '.join(argv)} failed: {done.stderr}")
    return done


def start(env: dict[str, str]) -> tuple[subprocess.Popen[bytes], int]:
    state = Path(env["RECALL_HOME"]) / "serve.json"
    proc = subprocess.Popen(
        [sys.executable, "-m", "recall", "serve", "--port", "0", "--no-worker"],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            data = json.loads(state.read_text())
            if data["pid"] == proc.pid:
                return proc, int(data["port"])
        except (OSError, ValueError, KeyError):
            time.sleep(0.05)
    raise SystemExit("a daemon did not start")


def fan_out(root: Path, runs: int, daemons: dict[str, int]) -> None:
    from recall.peers.fanout import search_computers
    from recall.search.engine import search as local_search
    from recall.search.request import SearchRequest

    client = env_for(root, "client", "none")
    for name in COMPUTERS:
        token = Path(env_for(root, name, "none")["RECALL_HOME"]) / "serve.token"
        recall(
            client,
            "peers",
            "add",
            name,
            f"http://127.0.0.1:{daemons[name]}",
            "--token-file",
            str(token),
        )
    one, three = [], []
    for _ in range(runs):
        for q in QUERIES:
            req = SearchRequest(text=q, limit=10, mode="keyword", computers=list(COMPUTERS))
            os.environ.update(env_for(root, "laptop", "none"))
            started = time.perf_counter()
            local_search(req)
            one.append(time.perf_counter() - started)
            os.environ.update(client)
            started = time.perf_counter()
            outcome, _ = search_computers(req, local_search)
            three.append(time.perf_counter() - started)
            assert not outcome.output.errors, outcome.output.errors
    p50, p95 = pct(one, 50) * 1000, pct(one, 95) * 1000
    f50, f95 = pct(three, 50) * 1000, pct(three, 95) * 1000
    print(f"keyword search, {len(one)} searches each ({runs} runs of {len(QUERIES)} queries)")
    print(f"  one local index, in-process     p50 {p50:7.1f} ms   p95 {p95:7.1f} ms")
    print(
        f"  fan-out to 3 daemons, merged    p50 {f50:7.1f} ms   p95 {f95:7.1f} ms"
        f"   ({f50 / p50:.1f}x / {f95 / p95:.1f}x the local search)"
    )


def warm_model(root: Path, runs: int) -> None:
    env = env_for(root, "laptop", "local")
    report = recall(env, "embed", "--quiet")
    if report.returncode != 0:
        print(f"warm model: skipped, embedding failed: {report.stderr.strip()}")
        return
    cold_env = {**env, "RECALL_NO_DAEMON": "1"}
    if "semantic search is off" in recall(cold_env, "search", "retry", "--mode", "hybrid").stderr:
        print("warm model: skipped, no embedding model (recall model install)")
        return
    proc, _ = start(env)
    try:
        recall(env, "search", "warm up")
        cold: list[float] = []
        warm: list[float] = []
        keyword: list[float] = []
        kinds = ((warm, env, ()), (cold, cold_env, ()), (keyword, env, ("--mode", "keyword")))
        for _ in range(runs):
            for q in HYBRID_QUERIES:
                for target, use, flags in kinds:
                    started = time.perf_counter()
                    out = recall(use, "search", q, "--json", *flags)
                    target.append(time.perf_counter() - started)
                    assert json.loads(out.stdout)["results"] is not None
    finally:
        proc.terminate()
        proc.wait(60)
    k50, k95 = pct(keyword, 50) * 1000, pct(keyword, 95) * 1000
    print(f"`recall search` as a process, {len(cold)} searches each, interleaved")
    print(f"  keyword (the baseline)          p50 {k50:7.1f} ms   p95 {k95:7.1f} ms")
    for name, values in (
        ("hybrid through the warm daemon", warm),
        ("hybrid in-process (cold)", cold),
    ):
        v50, v95 = pct(values, 50) * 1000, pct(values, 95) * 1000
        print(
            f"  {name:<31} p50 {v50:7.1f} ms   p95 {v95:7.1f} ms"
            f"   ({v50 / k50:.2f}x keyword at p50)"
        )
    print(f"  cold / warm hybrid at p50: {pct(cold, 50) / pct(warm, 50):.1f}x")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--sessions", type=int, default=60, help="sessions per computer")
    p.add_argument("--runs", type=int, default=5)
    p.add_argument("--only", choices=("fanout", "warm"), help="one part only")
    args = p.parse_args(argv)
    root = Path(tempfile.mkdtemp(prefix="recall-serve-bench-"))
    procs: list[subprocess.Popen[bytes]] = []
    try:
        daemons = {}
        for n, name in enumerate(COMPUTERS if args.only != "warm" else COMPUTERS[:1]):
            env = env_for(root, name, "none")
            corpus.generate(Path(env["HOME"]), sessions=args.sessions, seed=n + 1, jobs=1)
            recall(env, "sync", "--quiet", "--no-embed")
            if args.only == "warm":
                continue
            proc, port = start(env)
            procs.append(proc)
            daemons[name] = port
        if args.only != "warm":
            fan_out(root, args.runs, daemons)
        for proc in procs:
            proc.terminate()
            proc.wait(60)
        procs = []
        if args.only != "fanout":
            warm_model(root, args.runs)
    finally:
        for proc in procs:
            proc.terminate()
        shutil.rmtree(root, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
