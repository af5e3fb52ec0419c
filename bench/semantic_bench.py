"""Semantic search benchmark: embedding throughput, query latency, HNSW recall against exact.

    python bench/semantic_bench.py [--sizes 10000 100000] [--texts 384] [--queries 40]

Every figure sits beside a baseline measured in the same run (SPEC §8):

1. Embedding throughput: recall's encoder (tokenize, batch by tokens, run,
   mean-pool, normalise) on real conversation turns (LongMemEval user turns,
   cut to the window) against raw `InferenceSession.run` on exactly the same
   pre-tokenised batches: chunks/s and the ratio.
2. Query latency, in-process, at each size: a recall database with that many
   messages (synthetic text, so FTS has real work) and as many chunks with
   random unit vectors, indexed by recall's own index code; real queries
   embedded by the real model each time. p50/p95 for keyword (the baseline),
   semantic and hybrid search through `recall.semantic.modes.run`, the code
   behind `recall search`.
3. HNSW against exact search: recall@10 of the usearch index against a
   brute-force numpy scan, and the time of each, on the random vectors and
   on real embeddings of conversation turns.
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
DATA = ROOT.parent / "shared" / "eval" / "longmemeval" / "longmemeval_s_dev100.jsonl.gz"
_VOCAB = """
deploy migration schema index query cache retry backoff jitter payment invoice customer
refund webhook queue worker timeout latency kubernetes pod container memory leak profile
pandas dataframe polars arrow parquet csv report nightly cron docker image build test
flaky fixture mock coverage lint format typing release version tag branch merge rebase
conflict review approve token secret rotate vault config env feature flag rollout metric
alert dashboard trace span log error panic exception stack frame thread lock mutex async
await future promise stream buffer socket http grpc json yaml toml parser tokenizer
embedding vector search ranking fusion decay window chunk model onnx runtime batch
"""
WORDS = _VOCAB.split()
QUERIES = [
    "why did the nightly report get slow",
    "how do we retry failed payments",
    "what was decided about the schema migration",
    "container keeps running out of memory",
    "which library did we pick for dataframes",
    "flaky tests in the release branch",
    "how are secrets rotated",
    "webhook timeout errors from the queue worker",
]


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


def bench_throughput(enc: Any, texts: list[str]) -> dict[str, float]:
    chunks = [t[s:e] for t in texts for s, e in enc.split(t)]
    enc.embed(chunks[:8])  # warm up
    t0 = time.perf_counter()
    enc.embed(chunks)
    ours = time.perf_counter() - t0
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
    t0 = time.perf_counter()
    for feed in feeds:
        enc.session.run(None, feed)
    raw = time.perf_counter() - t0
    return {"chunks": len(chunks), "ours_s": ours, "raw_s": raw}


def make_db(home: Path, n: int, dims: int, model: str, seed: int = 3) -> None:
    """`n` messages in sessions of 10 and one random unit vector per message, via recall's store."""
    os.environ["RECALL_HOME"] = str(home)
    from recall.semantic.index import build
    from recall.store import open_writer

    rng = random.Random(seed)
    nrng = np.random.default_rng(seed)
    with open_writer() as store:
        with store.transaction() as db:
            for s in range(n // 10):
                cur = db.execute(
                    "INSERT INTO sessions(session_id, agent, computer, title, started_at, ended_at,"
                    " message_count, updated_at) VALUES (?, 'bench', 'pc', ?, ?, ?, 10, 0)",
                    (f"s{s}", " ".join(rng.choices(WORDS, k=5)), 1.7e9 + s, 1.7e9 + s + 60),
                )
                sid = cur.lastrowid
                db.executemany(
                    "INSERT INTO messages(session, position, key, role, text, ts)"
                    " VALUES (?, ?, ?, ?, ?, ?)",
                    [
                        (
                            sid,
                            i,
                            f"k{i}",
                            "user" if i % 2 == 0 else "assistant",
                            " ".join(rng.choices(WORDS, k=rng.randint(8, 60))),
                            1.7e9 + s + i,
                        )
                        for i in range(10)
                    ],
                )
            ids = [r[0] for r in db.execute("SELECT id FROM messages ORDER BY id")]
            for start in range(0, len(ids), 10_000):
                part = ids[start : start + 10_000]
                vecs = nrng.standard_normal((len(part), dims)).astype(np.float32)
                vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
                db.executemany(
                    "INSERT INTO chunks(message, model, piece, start, end, vector)"
                    " VALUES (?, ?, 0, 0, 0, ?)",
                    [(m, model, vecs[k].tobytes()) for k, m in enumerate(part)],
                )
                db.executemany(
                    "INSERT INTO embedded(model, message) VALUES (?, ?)", [(model, m) for m in part]
                )
        t0 = time.perf_counter()
        build(store.conn, model, dims)
        print(f"  index build for {n} chunks: {time.perf_counter() - t0:.1f} s", file=sys.stderr)


def bench_latency(n: int, queries: int) -> dict[str, list[float]]:
    from recall.search import Filters
    from recall.semantic.modes import run
    from recall.semantic.provider import get_encoder
    from recall.store import open_reader

    enc = get_encoder()
    home = Path(tempfile.mkdtemp(prefix=f"recall-sem-{n}-"))
    make_db(home, n, enc.dims, enc.model_id)
    times: dict[str, list[float]] = {"keyword": [], "semantic": [], "hybrid": []}
    with open_reader() as reader:
        for mode in times:
            run(reader.conn, QUERIES[0], Filters(), 10, mode)  # warm caches
        for q in range(queries):
            text = QUERIES[q % len(QUERIES)]
            for mode in times:
                t0 = time.perf_counter()
                out = run(reader.conn, text, Filters(), 10, mode)
                times[mode].append(time.perf_counter() - t0)
                assert out.mode == mode, (out.mode, out.note)
    import shutil

    shutil.rmtree(home, ignore_errors=True)
    return times


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
    p.add_argument("--texts", type=int, default=384, help="turns embedded for throughput")
    p.add_argument("--queries", type=int, default=40)
    p.add_argument("--real", type=int, default=4000, help="real turns for HNSW recall")
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
    print("2. query latency, in-process, query embedding included")
    for n in args.sizes:
        t = bench_latency(n, args.queries)
        row = ", ".join(f"{m} p50 {ms(pct(v, 0.5))} p95 {ms(pct(v, 0.95))}" for m, v in t.items())
        ratio = statistics.median(t["hybrid"]) / statistics.median(t["keyword"])
        print(f"   {n} chunks: {row}; hybrid/keyword p50 {ratio:.1f}x")
    print("3. HNSW recall@10 against exact search")
    rng = np.random.default_rng(11)
    for n in args.sizes:
        vecs = rng.standard_normal((n, enc.dims)).astype(np.float32)
        vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
        qs = rng.standard_normal((200, enc.dims)).astype(np.float32)
        qs /= np.linalg.norm(qs, axis=1, keepdims=True)
        r = hnsw_vs_exact(vecs, qs)
        print(
            f"   random unit vectors, {n}: recall@10 {r['recall@10']:.3f}; "
            f"hnsw {r['hnsw_ms']:.2f} ms, exact {r['exact_ms']:.2f} ms per query"
        )
    from recall.semantic.cache import VectorCache
    from recall.semantic.embedjob import _embed

    cache = VectorCache(Path(tempfile.gettempdir()) / "recall-eval-cache" / "vectors.db")
    texts = real_texts(args.real)
    chunks = [t[s:e] for t in texts for s, e in enc.split(t)]
    real, _ = _embed(enc, chunks, cache)
    cache.close()
    qs = enc.embed(QUERIES * 25)
    qs += np.random.default_rng(5).standard_normal(qs.shape).astype(np.float32) * 0.02
    qs /= np.linalg.norm(qs, axis=1, keepdims=True)
    r = hnsw_vs_exact(real, qs)
    print(
        f"   real turn embeddings, {len(real)}: recall@10 {r['recall@10']:.3f}; "
        f"hnsw {r['hnsw_ms']:.2f} ms, exact {r['exact_ms']:.2f} ms per query"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
