"""How similar must a memory or file chunk be to a query to count as found by meaning?

    python bench/memory_floor.py [--longmemeval 60]

The semantic leg over memories and chunks (`recall.memory.vectors`) compares a
query with every vector; without a floor the nearest ones come back however
unrelated. This measures, on two sets, the cosine of each question to the
texts that answer it (gold) and to the others, and for each candidate floor
the share of gold kept and of others let through:

1. `bench/eval_data/memory_questions.txt`: 30 short memories and a question
   for each, worded apart (seed 003's "coding language" -> "TypeScript").
2. LongMemEval (`shared/eval/longmemeval`): each question against the user
   turns that hold its answer (gold) and 30 other user turns of its haystack.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import random
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
SHARED = Path(os.environ.get("RECALL_SHARED", ROOT.parent / "shared"))
LME = SHARED / "eval" / "longmemeval" / "longmemeval_s_dev100.jsonl.gz"
PAIRS = ROOT / "bench" / "eval_data" / "memory_questions.txt"
FLOORS = (0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4)


def _pairs() -> list[tuple[str, list[str], list[str]]]:
    memories: dict[str, str] = {}
    questions: list[tuple[str, str]] = []
    for line in PAIRS.read_text(encoding="utf-8").splitlines():
        if line.startswith(("M ", "Q ")):
            ident, text = line[2:].split(" | ", 1)
            (
                memories.__setitem__(ident, text)
                if line[0] == "M"
                else questions.append((ident, text))
            )
    return [(q, [memories[i]], [m for j, m in memories.items() if j != i]) for i, q in questions]


def _longmemeval(n: int) -> list[tuple[str, list[str], list[str]]]:
    rng = random.Random(7)
    out = []
    with gzip.open(LME, "rt", encoding="utf-8") as fh:
        for _, line in zip(range(n), fh, strict=False):
            rec = json.loads(line)
            gold: list[str] = []
            other: list[str] = []
            for sess in rec["haystack_sessions"]:
                for turn in sess:
                    if turn["role"] == "user":
                        (gold if turn.get("has_answer") else other).append(turn["content"])
            if gold:
                out.append((rec["question"], gold, rng.sample(other, min(30, len(other)))))
    return out


def _measure(name: str, cases: list[tuple[str, list[str], list[str]]], encoder: object) -> None:
    gold_best: list[float] = []
    others: list[float] = []
    for question, gold, rest in cases:
        vecs = encoder.embed([question, *gold, *rest])  # type: ignore[attr-defined]
        sims = vecs[1:] @ vecs[0]
        gold_best.append(float(np.max(sims[: len(gold)])))
        others.extend(float(s) for s in sims[len(gold) :])
    g, o = np.array(gold_best), np.array(others)
    print(
        f"{name}: {len(cases)} questions; gold cosine p10 {np.percentile(g, 10):.2f} "
        f"median {np.median(g):.2f}; others median {np.median(o):.2f}"
        f" p90 {np.percentile(o, 90):.2f}"
    )
    for floor in FLOORS:
        print(
            f"  floor {floor:.2f}: gold kept {np.mean(g >= floor):.0%},"
            f" others through {np.mean(o >= floor):.0%}"
        )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--longmemeval", type=int, default=60, help="questions of LongMemEval")
    args = parser.parse_args(argv)
    sys.path.insert(0, str(ROOT / "python"))
    from recall.semantic.provider import get_encoder

    encoder = get_encoder()
    _measure("memory questions", _pairs(), encoder)
    _measure("LongMemEval", _longmemeval(args.longmemeval), encoder)
    return 0


if __name__ == "__main__":
    sys.exit(main())
