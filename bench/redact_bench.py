"""What secret redaction costs: throughput per core, per-message and cold-start latency, ingest.

    python bench/redact_bench.py                 # 150 generated sessions, a minute or two
    python bench/redact_bench.py --sessions 400

One run, every figure beside a baseline taken in the same run (SPEC §8):

1. Text: the conversation text recall would store from a generated corpus
   (bench/corpus.py, the agents' real layouts), read back from an index built
   with redaction off, with one fake secret (of the shapes the rules know)
   mixed into about one message in fifty.
2. Throughput: `redact` over all of it, per core, median of N passes, in
   MB/s; beside it the same text through `str.lower()` (a memory-bound pass:
   the floor any scan pays) and the Rust/Python ratio.
3. Per message: median microseconds per message, per core (what a hook pays
   for each new turn once the rules are compiled).
4. Cold start: a fresh process imports recall's core and redacts one
   message; the first call compiles the rules whose keywords occur. Reported
   beside the same process importing the core and calling `strip_reminders`.
5. Ingest: `recall sync` of the corpus into an empty index with redaction on
   and off (`[redact] enabled = false`), per core, alternated, median of
   `--syncs` runs each; the ratio is the overhead redaction adds to a backfill.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import sqlite3
import statistics
import string
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import corpus

IMPLS = ("rust", "python")
ALNUM = string.ascii_letters + string.digits


def fake_secret(rng: random.Random) -> str:
    """A generated (never real) secret of a shape the rules know, as pasted in a chat."""

    def r(n: int) -> str:
        return "".join(rng.choice(ALNUM) for _ in range(n))

    return rng.choice(
        [
            f"export OPENAI_API_KEY=sk-proj-{r(48)}",
            f"GITHUB_TOKEN=ghp_{r(36)}",
            f"aws_access_key_id = AKIA{r(16).upper()}",
            f"postgres://app:{r(10)}9!@db:5432/x",
            f'curl -H "Authorization: Bearer {r(40)}"',
            f"DB_PASSWORD={r(8)}#1",
            f"hf_{r(34)}",
            f"xoxb-{r(10)}-{r(24)}",
        ]
    )


def env_for(home: Path, data: Path, impl: str) -> dict[str, str]:
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("CLAUDE_CONFIG_DIR", "CODEX_HOME", "GEMINI_CLI_HOME")
        and not k.startswith("XDG_")
    }
    env.update(HOME=str(home), RECALL_HOME=str(data), RECALL_COMPUTER="bench", RECALL_IMPL=impl)
    return env


def sync_seconds(home: Path, work: Path, impl: str, enabled: bool) -> tuple[float, Path]:
    data = work / f"index-{impl}-{'on' if enabled else 'off'}"
    shutil.rmtree(data, ignore_errors=True)
    data.mkdir(parents=True)
    if not enabled:
        (data / "config.toml").write_text("[redact]\nenabled = false\n", encoding="utf-8")
    cmd = [sys.executable, "-m", "recall", "sync", "--quiet", "--no-embed"]
    start = time.perf_counter()
    subprocess.run(cmd, env=env_for(home, data, impl), check=True, capture_output=True)
    return time.perf_counter() - start, data


def texts_from(data: Path, rng: random.Random) -> list[str]:
    uri = (data / "recall.db").resolve().as_uri() + "?mode=ro"
    with sqlite3.connect(uri, uri=True) as db:
        texts = [row[0] for row in db.execute("SELECT text FROM messages ORDER BY id")]
    return [t + "\n" + fake_secret(rng) if rng.random() < 0.02 else t for t in texts]


def median_seconds(fn: Any, n: int) -> float:
    fn()
    times = []
    for _ in range(n):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


COLD = """
import sys, time
t0 = time.perf_counter()
from recall import _accel
t1 = time.perf_counter()
getattr(_accel, sys.argv[1])(sys.argv[2])
t2 = time.perf_counter()
print(t1 - t0, t2 - t1)
"""


def cold_start(impl: str, message: str, runs: int) -> dict[str, float]:
    env = {**os.environ, "RECALL_IMPL": impl}
    out: dict[str, list[float]] = {"redact": [], "strip_reminders": []}
    for _ in range(runs):
        for fn in out:
            proc = subprocess.run(
                [sys.executable, "-c", COLD, fn, message], env=env, capture_output=True, check=True
            )
            out[fn].append(float(proc.stdout.split()[1]) * 1000)
    return {f"{fn}_first_call_ms": statistics.median(v) for fn, v in out.items()}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sessions", type=int, default=150)
    parser.add_argument("--passes", type=int, default=5)
    parser.add_argument("--syncs", type=int, default=3, help="sync runs per core and setting")
    args = parser.parse_args(argv)
    from recall import _accel, _core  # type: ignore[attr-defined]

    cores = {"rust": _core, "python": _accel.twin()}
    rng = random.Random(3)
    results: dict[str, Any] = {"sessions": args.sessions}
    with tempfile.TemporaryDirectory(prefix="recall-redact-bench-") as tmp:
        work = Path(tmp)
        home = work / "home"
        corpus.generate(home, sessions=args.sessions, seed=1, jobs=1)
        ingest: dict[str, dict[str, float]] = {}
        data = work
        for impl in IMPLS:
            offs, ons = [], []
            for _ in range(args.syncs):  # alternated, medians: the machine is shared
                off, data = sync_seconds(home, work, impl, enabled=False)
                on, _ = sync_seconds(home, work, impl, enabled=True)
                offs.append(off)
                ons.append(on)
            off, on = statistics.median(offs), statistics.median(ons)
            ingest[impl] = {"sync_off_s": off, "sync_on_s": on, "overhead_x": on / off}
        texts = texts_from(data, rng)
    blob = "\n".join(texts)
    mb = len(blob.encode("utf-8")) / 1e6
    results["text_mb"] = round(mb, 2)
    results["messages"] = len(texts)
    floor = median_seconds(lambda: blob.lower(), args.passes)
    results["baseline_lower_mb_s"] = mb / floor
    for impl, core in cores.items():
        redacted = core.redact(blob)
        secs = median_seconds(lambda core=core: core.redact(blob), args.passes)
        sample = texts[: min(len(texts), 2000)]

        def per_message(core: Any = core, sample: list[str] = sample) -> None:
            for t in sample:
                core.redact(t)

        per = median_seconds(per_message, 3) / len(sample) * 1e6
        results[impl] = {
            "mb_s": mb / secs,
            "x_of_lower_baseline": (mb / secs) / results["baseline_lower_mb_s"],
            "us_per_message": per,
            "redactions": redacted.count("[REDACTED:"),
            **ingest[impl],
            **cold_start(impl, texts[0][:2000] + " ghp_x sk-a token=", 5),
        }
    results["rust_over_python_x"] = results["rust"]["mb_s"] / results["python"]["mb_s"]
    print(
        f"text: {results['messages']} messages, {mb:.1f} MB;"
        f" str.lower() {results['baseline_lower_mb_s']:.0f} MB/s"
    )
    for impl in IMPLS:
        r = results[impl]
        print(
            f"{impl:6} {r['mb_s']:8.1f} MB/s ({r['x_of_lower_baseline']:.3f}x lower())"
            f"  {r['us_per_message']:7.1f} us/message  {r['redactions']} redactions"
            f"  first call {r['redact_first_call_ms']:.1f} ms"
            f" (strip_reminders {r['strip_reminders_first_call_ms']:.2f} ms)"
            f"  sync {r['sync_off_s']:.2f}s off / {r['sync_on_s']:.2f}s on = {r['overhead_x']:.2f}x"
        )
    print(f"rust / python: {results['rust_over_python_x']:.0f}x")
    out = Path(__file__).resolve().parent / "out"
    out.mkdir(exist_ok=True)
    (out / "redact.json").write_text(json.dumps(results, indent=2), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
