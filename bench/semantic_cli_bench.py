"""Semantic search as a user meets it: cold `recall search` processes, and `recall embed`.

    python bench/semantic_cli_bench.py [--only cold|embed|progress] [--runs 21]

Every figure sits beside a baseline measured in the same run:

1. Cold CLI search: real `recall search` processes on one index (LongMemEval
   haystacks, both roles embedded), keyword (`--mode keyword`) against hybrid
   (the default once vectors exist), alternating, each query asked in both
   modes; p50/p95 of each and the hybrid/keyword ratio of the p50s (target
   ≤ 4). The first hybrid process, which builds the optimised-model cache, is
   reported apart.
2. Embedding throughput with both roles embedded: the `recall embed` job
   (`embed_pending`) on the same messages with the shipped settings and with
   the baseline (the source model file under onnxruntime's default session
   options, one encoder call per batch of 128 messages, 4096 padded tokens
   an onnxruntime call, every piece of every message), alternating rounds,
   on two corpora: LongMemEval turns (real conversations) and synthetic agent
   sessions (`bench/corpus.py`: prose, code, logs). Chunks/s, characters/s
   and the ratios.
3. Progress: a `recall embed` process on a pseudo-terminal; seconds until its
   first line with a rate and an ETA.
"""

from __future__ import annotations

import argparse
import contextlib
import gzip
import io
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))
from eval_longmemeval import DATA, import_lines  # noqa: E402
from run import compile_bytecode, p50, p95, recall_command, recall_env  # noqa: E402

ROLES = ["user", "assistant"]


# --- corpora --------------------------------------------------------------------------------


def longmemeval_home(home: Path, questions: int, first: int = 0) -> list[str]:
    """A recall home holding `questions` LongMemEval haystacks; returns their questions."""
    asked, lines = [], []
    with gzip.open(DATA, "rt", encoding="utf-8") as fh:
        for n, line in enumerate(fh):
            if n < first:
                continue
            if n >= first + questions:
                break
            q = json.loads(line)
            q["haystack_session_ids"] = [f"q{n}-{s}" for s in q["haystack_session_ids"]]
            lines.append(import_lines(q))
            asked.append(q["question"])
    home.mkdir(parents=True, exist_ok=True)
    src = home / "haystack.jsonl"
    src.write_text("".join(lines), encoding="utf-8")
    _recall(home, "ingest", "--format", "jsonl", str(src))
    return asked


def agents_home(home: Path, sessions: int) -> None:
    """A recall home holding `sessions` synthetic agent sessions, synced without embedding."""
    corpus = home / "corpus"
    make = [sys.executable, str(ROOT / "bench" / "corpus.py"), "--sessions", str(sessions)]
    subprocess.run(
        [*make, "--out", str(corpus), "--jobs", "1"],
        check=True,
        capture_output=True,
    )
    env = recall_env(corpus, home)
    recall, _ = recall_command()
    subprocess.run([*recall, "sync", "--no-embed", "-q"], env=env, check=True)


def _recall(home: Path, *argv: str) -> None:
    from recall.cli import main

    os.environ["RECALL_HOME"] = str(home)
    with contextlib.redirect_stdout(io.StringIO()):
        if main(list(argv)) != 0:
            raise SystemExit(f"recall {' '.join(argv)} failed in {home}")


@contextlib.contextmanager
def knobs(**values: Any) -> Iterator[None]:
    """Module settings of the embedding job and the encoder set for a block (the baseline's)."""
    from recall.semantic import embedjob, encoder

    module = {k: embedjob if hasattr(embedjob, k) else encoder for k in values}
    old = {k: getattr(module[k], k) for k in values}
    for k, v in values.items():
        setattr(module[k], k, v)
    try:
        yield
    finally:
        for k, v in old.items():
            setattr(module[k], k, v)


def encoders() -> dict[str, tuple[Any, dict[str, Any]]]:
    """name → (encoder, job settings): the shipped one and the baseline."""
    import onnxruntime as ort

    from recall.semantic.provider import get_encoder

    shipped = get_encoder()
    base = type(shipped).__new__(type(shipped))
    base.__dict__.update(shipped.__dict__)
    source = str(shipped.files.paths["model.onnx"])
    base.session = ort.InferenceSession(source, providers=["CPUExecutionProvider"])
    huge = 1 << 40
    old = {"GROUP_CHARS": huge, "FIRST_GROUP_CHARS": huge, "MAX_PIECES": huge, "BATCH_TOKENS": 4096}
    return {"baseline": (base, old), "shipped": (shipped, {})}


def embed_once(home: Path, encoder: Any, settings: dict[str, Any], limit: int) -> dict[str, Any]:
    """Embed the first `limit` messages of `home` from scratch; seconds up to the last batch."""
    from recall.semantic.embedjob import embed_pending
    from recall.store import open_writer

    os.environ["RECALL_HOME"] = str(home)
    ticks: list[Any] = []
    with open_writer() as store:
        with store.transaction() as db:
            db.execute("DELETE FROM chunks")
            db.execute("DELETE FROM embedded")
        with knobs(**settings):
            report = embed_pending(
                store, encoder, ROLES, progress=lambda t: ticks.append(t.seconds), limit=limit
            )
    return {"seconds": ticks[-1], "chunks": report.chunks, "chars": _chars(home, limit)}


def _chars(home: Path, limit: int) -> int:
    import sqlite3

    db = sqlite3.connect(home / "recall.db")
    marks = ",".join("?" * len(ROLES))
    (n,) = db.execute(
        f"SELECT sum(length(text)) FROM (SELECT text FROM messages WHERE role IN ({marks})"
        " ORDER BY id LIMIT ?)",
        (*ROLES, limit),
    ).fetchone()
    db.close()
    return int(n)


def bench_embed(args: argparse.Namespace, work: Path) -> None:
    print(f"2. embedding throughput, roles {ROLES}, {args.messages} messages a corpus")
    homes = {"longmemeval": work / "lme-embed", "agents": work / "agents"}
    longmemeval_home(homes["longmemeval"], 2, first=10)
    agents_home(homes["agents"], args.agent_sessions)
    encs = encoders()
    for corpus, home in homes.items():
        runs: dict[str, list[dict[str, Any]]] = {name: [] for name in encs}
        for r in range(args.rounds):
            for name in list(encs)[:: 1 if r % 2 else -1]:
                enc, settings = encs[name]
                runs[name].append(embed_once(home, enc, settings, args.messages))
        best = {name: min(rs, key=lambda x: x["seconds"]) for name, rs in runs.items()}
        for name, b in best.items():
            rounds = ", ".join(f"{x['seconds']:.1f}" for x in runs[name])
            print(
                f"   {corpus:11s} {name:8s}: {b['chunks']} chunks in {b['seconds']:.1f} s,"
                f" {b['chunks'] / b['seconds']:.1f} chunks/s,"
                f" {b['chars'] / b['seconds'] / 1000:.1f} k chars/s"
                f" (rounds: {rounds} s)"
            )
        a, z = best["baseline"], best["shipped"]
        print(
            f"   {corpus:11s} shipped/baseline: chunks/s "
            f"{(z['chunks'] / z['seconds']) / (a['chunks'] / a['seconds']):.2f}x, "
            f"messages (chars) per second {a['seconds'] / z['seconds']:.2f}x"
        )


# --- cold search ----------------------------------------------------------------------------


def bench_cold(args: argparse.Namespace, work: Path) -> None:
    from recall.semantic.cache import VectorCache
    from recall.semantic.embedjob import embed_pending
    from recall.semantic.provider import get_encoder
    from recall.store import open_writer

    home = work / "lme-cold"
    asked = longmemeval_home(home, args.questions)
    cache = VectorCache(Path(tempfile.gettempdir()) / "recall-eval-cache" / "vectors.db")
    os.environ["RECALL_HOME"] = str(home)
    with open_writer() as store:
        report = embed_pending(store, get_encoder(), ROLES, cache=cache)
    cache.close()
    recall, how = recall_command()
    env = recall_env(work / "nohome", home)
    print(
        f"1. cold `recall search` processes ({how}), {report.indexed} chunks of "
        f"{report.messages} messages, {args.runs} queries each mode"
    )
    shutil.rmtree(home / "models", ignore_errors=True)  # no optimised model cache yet
    t0 = time.perf_counter()
    subprocess.run([*recall, "search", asked[0]], env=env, capture_output=True, check=True)
    first = time.perf_counter() - t0
    print(f"   first hybrid process (builds the optimised model cache): {first:.2f} s")
    times: dict[str, list[float]] = {"keyword": [], "hybrid": []}
    cpu: dict[str, list[float]] = {"keyword": [], "hybrid": []}
    argv = {"keyword": ["--mode", "keyword"], "hybrid": []}
    for n in range(args.runs):
        q = asked[n % len(asked)]
        for mode in list(times)[:: 1 if n % 2 else -1]:
            before = _children_cpu()
            t0 = time.perf_counter()
            proc = subprocess.run([*recall, "search", *argv[mode], q], env=env, capture_output=True)
            times[mode].append(time.perf_counter() - t0)
            cpu[mode].append(_children_cpu() - before)
            if proc.returncode not in (0, 1):
                raise SystemExit(proc.stderr.decode())
    for mode, xs in times.items():
        print(
            f"   {mode:8s} p50 {p50(xs) * 1000:.0f} ms, p95 {p95(xs) * 1000:.0f} ms"
            f" (CPU time p50 {p50(cpu[mode]) * 1000:.0f} ms)"
        )
    ratio = p50(times["hybrid"]) / p50(times["keyword"])
    cpu_ratio = p50(cpu["hybrid"]) / p50(cpu["keyword"])
    print(f"   hybrid/keyword p50 ratio {ratio:.2f}x (target <= 4x); CPU time {cpu_ratio:.2f}x")


def _children_cpu() -> float:
    import resource

    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


# --- progress -------------------------------------------------------------------------------


def bench_progress(args: argparse.Namespace, work: Path) -> None:
    """Seconds from starting `recall embed` on a pseudo-terminal to its first rate + ETA."""
    import pty
    import select

    home = work / "lme-progress"
    longmemeval_home(home, 1, first=20)
    recall, _ = recall_command()
    env = recall_env(work / "nohome", home)
    (home / "config.toml").write_text(f"embed_roles = {json.dumps(ROLES)}\n", encoding="utf-8")
    firsts = []
    for _ in range(args.progress_runs):
        # a first process builds the optimised model cache, as any earlier search would
        subprocess.run([*recall, "embed", "-q", "--limit", "1"], env=env, check=True)
        import sqlite3

        db = sqlite3.connect(home / "recall.db")
        db.execute("DELETE FROM chunks")
        db.execute("DELETE FROM embedded")
        db.commit()
        db.close()
        leader, follower = pty.openpty()
        t0 = time.perf_counter()
        proc = subprocess.Popen(
            [*recall, "embed", "--limit", "150"],
            env=env,
            stdin=follower,
            stdout=follower,
            stderr=follower,
        )
        os.close(follower)
        seen, first = b"", None
        while first is None and time.perf_counter() - t0 < 60:
            ready, _, _ = select.select([leader], [], [], 0.05)
            if ready:
                try:
                    seen += os.read(leader, 4096)
                except OSError:
                    break
                if b"chunks/s" in seen and b"ETA" in seen:
                    first = time.perf_counter() - t0
        proc.send_signal(2)
        proc.wait()
        os.close(leader)
        firsts.append(first if first is not None else float("inf"))
    print(
        "3. first progress line with chunks/s and an ETA, `recall embed` on a terminal: "
        + ", ".join(f"{x:.2f} s" for x in firsts)
        + f" (median {statistics.median(firsts):.2f} s; target <= 2 s)"
    )


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--only", choices=["cold", "embed", "progress"], action="append")
    p.add_argument("--runs", type=int, default=21, help="queries a mode, cold search")
    p.add_argument("--questions", type=int, default=3, help="LongMemEval haystacks indexed")
    p.add_argument("--messages", type=int, default=300, help="messages embedded a corpus")
    p.add_argument("--agent-sessions", type=int, default=20)
    p.add_argument("--rounds", type=int, default=2, help="alternating embedding rounds")
    p.add_argument("--progress-runs", type=int, default=3)
    args = p.parse_args(argv)
    only = args.only or ["cold", "embed", "progress"]
    compile_bytecode()
    work = Path(tempfile.mkdtemp(prefix="recall-semcli-"))
    try:
        if "cold" in only:
            bench_cold(args, work)
        if "embed" in only:
            bench_embed(args, work)
        if "progress" in only:
            bench_progress(args, work)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
