"""Throughput of the ranking core: tokenize, BM25 and dedup, Rust against the Python twin.

    python bench/rank_bench.py                  # 2000 candidates, 5 rounds
    python bench/rank_bench.py --docs 500 --rounds 9

Candidates are messages written by the benchmark corpus' generator
(`corpus_text.Writer`: technical prose with ticket ids, paths, flags), a tenth of
them with Japanese and accented text, a fifth near-copies of another (the
same text pasted again, recased or with a word added) so dedup has work.
Both cores run in the same process, alternating round by round, on the same
inputs; each figure is the median of the rounds in docs/s, and the ratio is
Rust over Python measured in this run (SPEC §8: only ratios compare across
runs). Outputs are checked equal before anything is timed.
"""

from __future__ import annotations

import argparse
import platform
import random
import statistics
import time
from collections.abc import Callable

import corpus_text
from recall import _accel, _core  # type: ignore[attr-defined,unused-ignore]

TWIN = _accel.twin()

CORES = (("rust", _core), ("python", TWIN))
QUERIES = ("retry backoff", "deadlock in the worker", "PAY-1234 migration", "設定 cache")


def candidates(n: int, seed: int = 7) -> list[str]:
    rng = random.Random(seed)
    vocab = corpus_text.Vocab(seed)
    projects = corpus_text.make_projects(seed)
    docs: list[str] = []
    while len(docs) < n:
        writer = corpus_text.Writer(rng, vocab, corpus_text.Topic(rng, vocab, rng.choice(projects)))
        r = rng.random()
        if docs and r < 0.2:
            base = rng.choice(docs)
            docs.append(base.upper() if r < 0.05 else base + " " + writer.sentence(1, 2))
        elif r < 0.3:
            docs.append(f"日本語の説明: {writer.sentence()} naïve café — 設定を確認しました。")
        else:
            docs.append(writer.prompt() if r < 0.6 else writer.paragraph(rng.randint(1, 6)))
    return docs


def timed(fn: Callable[[object], object], core: object) -> float:
    start = time.perf_counter()
    fn(core)
    return time.perf_counter() - start


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--docs", type=int, default=2000)
    p.add_argument("--rounds", type=int, default=5)
    args = p.parse_args()
    docs = candidates(args.docs)
    size = sum(len(d.encode()) for d in docs)
    for q in QUERIES:
        assert [x.hex() for x in _core.bm25_scores(q, docs)] == [
            x.hex() for x in TWIN.bm25_scores(q, docs)
        ]
    kept = _core.dedup(docs)
    assert kept == TWIN.dedup(docs)
    print(f"{len(docs)} candidates, {size / 1e6:.2f} MB, {len(docs) - len(kept)} near-duplicates")
    print(f"python {platform.python_version()}, {platform.machine()}, {args.rounds} rounds\n")

    work: dict[str, tuple[int, Callable[[object], object]]] = {
        "tokenize": (len(docs), lambda c: [c.tokenize(d) for d in docs]),  # type: ignore[attr-defined]
        "bm25": (len(docs) * len(QUERIES), lambda c: [c.bm25_scores(q, docs) for q in QUERIES]),  # type: ignore[attr-defined]
        "dedup": (len(docs), lambda c: c.dedup(docs)),  # type: ignore[attr-defined]
    }
    print(f"{'':10}{'rust docs/s':>14}{'python docs/s':>16}{'rust/python':>13}")
    for name, (count, run) in work.items():
        times: dict[str, list[float]] = {core: [] for core, _ in CORES}
        for _ in range(args.rounds):
            for core, module in CORES:
                times[core].append(timed(run, module))
        rate = {core: count / statistics.median(t) for core, t in times.items()}
        ratio = rate["rust"] / rate["python"]
        print(f"{name:10}{rate['rust']:>14,.0f}{rate['python']:>16,.0f}{ratio:>12.1f}x")


if __name__ == "__main__":
    main()
