"""Semantic search benchmark: embedding throughput, query latency, HNSW recall against exact.

    python bench/semantic_bench.py [--sizes 10000 100000] [--texts 384] [--queries 40]

Every figure sits beside a baseline measured in the same run (SPEC §8):

1. Embedding throughput: recall's encoder (tokenize, batch by tokens, run,
   mean-pool, normalise) on real conversation turns (LongMemEval user turns,
   cut to the window) against raw `InferenceSession.run` on exactly the same
   pre-tokenised batches: chunks/s and the ratio.
2. Query latency, in-process, at each size: a recall database with that many
   messages (LongMemEval turns, so FTS has real text) and as many chunks
   whose vectors are mixtures of real turn embeddings, indexed by recall's own
   index code; LongMemEval's questions embedded by the real model each time.
   p50/p95 for keyword (the baseline), semantic and hybrid search through
   `recall.search.modes.run`, the code behind `recall search`.
3. HNSW against exact search: recall@10 of the usearch index against a
   brute-force numpy scan, and the time of each, on real embeddings of
   conversation turns and on the mixed vectors at each size.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
SHARED = Path(os.environ.get("RECALL_SHARED", ROOT.parent / "shared"))
DATA = SHARED / "eval" / "longmemeval" / "longmemeval_s_dev100.jsonl.gz"


def pct(xs: list[float], q: float) -> float:
    s = sorted(xs)
    return s[min(len(s) - 1, round(q * (len(s) - 1)))]


def ms(x: float) -> str:
    return f"{x * 1000:.1f} ms"


def real_texts(n: int) -> list[str]:
    texts: list[str] = []
    with gzip.open(DATA, "rt", encoding="utf-8") as fh:
        for line in fh:
            for session in json.loads(line)["haystack_sessions"]:
                texts.extend(t["content"] for t in session if t["role"] == "user")
            if len(texts) >= n * 3:
                break
    random.Random(7).shuffle(texts)
    return texts[:n]


def bench_throughput(enc: Any, texts: list[str], rounds: int = 3) -> dict[str, float]:
    """Best of `rounds` alternating runs of each, so load from other processes hits both."""
    chunks = [t[s:e] for t in texts for s, e in enc.split(t)]
    enc.embed(chunks[:8])  # warm up
    # raw onnxruntime on exactly the batches recall forms
    from recall.semantic import encoder as encmod

    ids = enc._ids(chunks)
    order = sorted(range(len(ids)), key=lambda i: len(ids[i]))
    batches, batch = [], []
    for i in order:
        width = len(ids[i])
        if batch and ((len(batch) + 1) * width > encmod.BATCH_TOKENS or len(batch) >= 64):
            batches.append(batch)
            batch = []
        batch.append(i)
    batches.append(batch)
    feeds = []
    for b in batches:
        width = max(len(ids[i]) for i in b)
        arr = np.zeros((len(b), width), dtype=np.int64)
        mask = np.zeros_like(arr)
        for n, i in enumerate(b):
            arr[n, : len(ids[i])] = ids[i]
            mask[n, : len(ids[i])] = 1
        feeds.append(
            {"input_ids": arr, "attention_mask": mask, "token_type_ids": np.zeros_like(arr)}
        )
    ours, raw = [], []
    for _ in range(rounds):
        t0 = time.perf_counter()
        for feed in feeds:
            enc.session.run(None, feed)
        raw.append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        enc.embed(chunks)
        ours.append(time.perf_counter() - t0)
    return {"chunks": len(chunks), "ours_s": min(ours), "raw_s": min(raw)}


def real_turns(n: int, chars: int = 600) -> list[str]:
    """`n` conversation turns (both roles, cut to `chars`), cycling LongMemEval's haystacks."""
    texts: list[str] = []
    with gzip.open(DATA, "rt", encoding="utf-8") as fh:
        for line in fh:
            for session in json.loads(line)["haystack_sessions"]:
                texts.extend(t["content"][:chars] for t in session)
            if len(texts) >= n:
                break
    return [texts[i % len(texts)] for i in range(n)]


def questions(n: int) -> list[str]:
    with gzip.open(DATA, "rt", encoding="utf-8") as fh:
        return [json.loads(line)["question"] for line in fh][:n]


def scattered(real: np.ndarray, n: int, seed: int = 3) -> np.ndarray:
    """`n` unit vectors made from real embeddings: each a real turn's vector plus up to
    half of another's, plus a little noise (σ 0.01 a dimension).

    Uniformly random unit vectors in 384 dimensions have no neighbourhoods
    (every pair is nearly orthogonal), which makes HNSW construction slow and
    its recall meaningless; mixtures of real turns have the structure of a
    real conversation index (topics, and turns between topics).
    """
    rng = np.random.default_rng(seed)
    other = rng.integers(0, len(real), n)
    share = (0.5 * rng.random((n, 1))).astype(np.float32)
    noise = rng.standard_normal((n, real.shape[1])).astype(np.float32) * np.float32(0.01)
    out = real[np.arange(n) % len(real)] + share * real[other] + noise
    out /= np.linalg.norm(out, axis=1, keepdims=True)
    return out.astype(np.float32)


def make_db(home: Path, vecs: np.ndarray, texts: list[str], model: str) -> float:
    """A recall database of `texts` as messages (sessions of 10) with `vecs` as their chunks."""
    os.environ["RECALL_HOME"] = str(home)
    from recall.semantic.index import build
    from recall.store import open_writer

    n = len(texts)
    with open_writer() as store:
        with store.transaction() as db:
            for s in range(n // 10):
                cur = db.execute(
                    "INSERT INTO sessions(session_id, agent, computer, title, started_at, ended_at,"
                    " message_count, updated_at) VALUES (?, 'bench', 'pc', ?, ?, ?, 10, 0)",
                    (f"s{s}", texts[s * 10][:60], 1.7e9 + s, 1.7e9 + s + 60),
                )
                db.executemany(
                    "INSERT INTO messages(session, position, key, role, text, ts)"
                    " VALUES (?, ?, ?, ?, ?, ?)",
                    [
                        (
                            cur.lastrowid,
                            i,
                            f"k{i}",
                            ("user", "assistant")[i % 2],
                            texts[s * 10 + i],
                            1.7e9 + s + i,
                        )
                        for i in range(10)
                    ],
                )
            ids = [r[0] for r in db.execute("SELECT id FROM messages ORDER BY id")]
            db.executemany(
                "INSERT INTO chunks(message, model, piece, start, end, vector)"
                " VALUES (?, ?, 0, 0, 0, ?)",
                ((m, model, vecs[k].tobytes()) for k, m in enumerate(ids)),
            )
            db.executemany(
                "INSERT INTO embedded(model, message) VALUES (?, ?)", ((model, m) for m in ids)
            )
        t0 = time.perf_counter()
        build(store.conn, model, vecs.shape[1])
        return time.perf_counter() - t0


def bench_latency(
    vecs: np.ndarray, texts: list[str], queries: list[str]
) -> tuple[dict[str, list[float]], float]:
    from recall.search.asked import Asked, prepare
    from recall.search.modes import run
    from recall.search.results import Filters
    from recall.semantic.provider import get_encoder
    from recall.store import open_reader

    enc = get_encoder()
    home = Path(tempfile.mkdtemp(prefix=f"recall-sem-{len(texts)}-"))
    build_s = make_db(home, vecs, texts, enc.model_id)
    times: dict[str, list[float]] = {"keyword": [], "semantic": [], "hybrid": []}
    with open_reader() as reader:
        for mode in times:
            run(reader.conn, Asked(reader.conn, prepare(queries[0])), Filters(), 10, mode)
        for text in queries:
            for mode in times:
                t0 = time.perf_counter()
                out = run(reader.conn, Asked(reader.conn, prepare(text)), Filters(), 10, mode)
                times[mode].append(time.perf_counter() - t0)
                assert out.mode == mode, (out.mode, out.note)
    import shutil

    shutil.rmtree(home, ignore_errors=True)
    return times, build_s


def hnsw_vs_exact(vecs: np.ndarray, queries: np.ndarray) -> dict[str, float]:
    from recall.semantic.index import _new_index

    index = _new_index(vecs.shape[1])
    index.add(np.arange(len(vecs), dtype=np.int64), vecs)
    hits, t_hnsw, t_exact = 0, 0.0, 0.0
    for q in queries:
        t0 = time.perf_counter()
        approx = set(int(k) for k in index.search(q, 10).keys)
        t1 = time.perf_counter()
        exact = set(int(k) for k in np.argpartition(-(vecs @ q), 10)[:10])
        t2 = time.perf_counter()
        hits += len(approx & exact)
        t_hnsw += t1 - t0
        t_exact += t2 - t1
    return {
        "recall@10": hits / (10 * len(queries)),
        "hnsw_ms": 1000 * t_hnsw / len(queries),
        "exact_ms": 1000 * t_exact / len(queries),
    }


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000])
    p.add_argument("--texts", type=int, default=200, help="turns embedded for throughput")
    p.add_argument("--queries", type=int, default=60, help="LongMemEval questions asked")
    p.add_argument("--real", type=int, default=4000, help="real turns embedded for the vectors")
    args = p.parse_args(argv)
    from recall.semantic.provider import get_encoder

    enc = get_encoder()
    print("1. embedding throughput (chunks/s)")
    tp = bench_throughput(enc, real_texts(args.texts))
    ours, raw = tp["chunks"] / tp["ours_s"], tp["chunks"] / tp["raw_s"]
    print(
        f"   {tp['chunks']} chunks: recall {ours:.1f}/s, raw onnxruntime {raw:.1f}/s, "
        f"ratio {ours / raw:.2f}"
    )
    from recall.semantic.cache import VectorCache
    from recall.semantic.embedjob import _embed

    cache = VectorCache(Path(tempfile.gettempdir()) / "recall-eval-cache" / "vectors.db")
    chunks = [t[s:e] for t in real_texts(args.real) for s, e in enc.split(t)]
    real, _ = _embed(enc, chunks, cache)
    cache.close()
    asked = questions(args.queries)
    print("2. query latency, in-process, query embedding included (real questions)")
    for n in args.sizes:
        vecs = scattered(real, n)
        t, build_s = bench_latency(vecs, real_turns(n), asked)
        row = ", ".join(f"{m} p50 {ms(pct(v, 0.5))} p95 {ms(pct(v, 0.95))}" for m, v in t.items())
        ratio = statistics.median(t["hybrid"]) / statistics.median(t["keyword"])
        print(
            f"   {n} chunks (index built in {build_s:.1f} s): {row}; "
            f"hybrid/keyword p50 {ratio:.1f}x"
        )
    print("3. HNSW recall@10 against exact search (queries: the real questions)")
    qs = enc.embed(asked)
    r = hnsw_vs_exact(real, qs)
    print(
        f"   real turn embeddings, {len(real)}: recall@10 {r['recall@10']:.3f}; "
        f"hnsw {r['hnsw_ms']:.2f} ms, exact {r['exact_ms']:.2f} ms per query"
    )
    for n in args.sizes:
        r = hnsw_vs_exact(scattered(real, n, seed=9), qs)
        print(
            f"   mixtures of real embeddings, {n}: recall@10 {r['recall@10']:.3f}; "
            f"hnsw {r['hnsw_ms']:.2f} ms, exact {r['exact_ms']:.2f} ms per query"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
