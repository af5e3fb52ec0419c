"""Calibrating the semantic similarity floor on both evaluation sets.

A semantic-only hit must clear a cosine floor (`recall.semantic.nearest.
FLOOR`). This measures, with the configured model and roles:

- relevant: each question's cosine to the best chunk of each evidence message,
  on the agent-decisions set and on LongMemEval haystacks;
- off-topic: each question's best chunk in the *other* set's corpus (coding
  questions against personal chats and back: real queries with no answer);
- nonsense: gibberish queries' best chunk in each corpus, and whether the
  model knows any of their words (`meaning.model_knows`, the gate before the
  floor);

then, for candidate floors, the share of each that clears it. It ranks
nothing, so it asks no search (the evaluations that rank go through
`eval_common.search_as_user`, the `recall search` a user runs).

    python bench/eval_floor.py [--per-type 2] [--roles user,assistant]
"""

from __future__ import annotations

import argparse
import gzip
import json
import random
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import eval_common as ec
import eval_decisions as dec
import eval_longmemeval as lme

FLOORS = (0.15, 0.2, 0.25, 0.3, 0.325, 0.35, 0.375, 0.4)


def gibberish(n: int, seed: int = 7) -> list[str]:
    """`n` made-up queries of one to three letter strings, plus the issue's two."""
    rng = random.Random(seed)
    letters = "abcdefghijklmnopqrstuvwxyz"
    out = ["zzzqqqxx", "asdkjhqwe zzxq"]
    while len(out) < n:
        words = ["".join(rng.choice(letters) for _ in range(rng.randint(4, 10)))]
        words += ["".join(rng.choice(letters) for _ in range(rng.randint(3, 8)))] * rng.randint(
            0, 2
        )
        out.append(" ".join(words))
    return out


def chunks(conn: Any, model: str) -> tuple[Any, list[int]]:
    """Every chunk vector of the index, and its message id."""
    import numpy as np

    rows = conn.execute("SELECT message, vector FROM chunks WHERE model = ?", (model,)).fetchall()
    mat = np.frombuffer(b"".join(r[1] for r in rows), dtype="<f4").reshape(len(rows), -1)
    return mat, [int(r[0]) for r in rows]


def relevant(conn: Any, enc: Any, questions: list[tuple[str, set[int]]]) -> list[float]:
    """Each (question, evidence message) pair's best chunk cosine."""
    mat, owners = chunks(conn, enc.model_id)
    qv = enc.embed([q for q, _ in questions])
    out: list[float] = []
    for v, (_, evidence) in zip(qv, questions, strict=True):
        sims = mat @ v
        best: dict[int, float] = {}
        for msg, s in zip(owners, sims, strict=True):
            if msg in evidence:
                best[msg] = max(best.get(msg, -1.0), float(s))
        out.extend(best.values())
    return out


def best_of(conn: Any, enc: Any, queries: list[str]) -> list[float]:
    mat, _ = chunks(conn, enc.model_id)
    return [float((mat @ v).max()) for v in enc.embed(queries)]


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--per-type", type=int, default=2, help="LongMemEval questions per type")
    p.add_argument("--gibberish", type=int, default=40)
    ec.add_arguments(p)
    args = p.parse_args(argv)
    from recall.semantic.cache import VectorCache
    from recall.semantic.meaning import model_knows
    from recall.semantic.provider import get_encoder
    from recall.store import open_reader

    enc = get_encoder()
    corpus = dec.Corpus(dec.DATA.read_text(encoding="utf-8"))
    with gzip.open(lme.DATA, "rt", encoding="utf-8") as fh:
        qs = [json.loads(line) for line in fh if line.strip()]
    qs = lme.select([q for q in qs if "_abs" not in q["question_id"]], args.per_type, 0)
    nonsense = gibberish(args.gibberish)
    cache = VectorCache(args.cache)
    res: dict[str, list[float]] = {}
    try:
        with ec.throwaway_home() as home:
            ec.ingest(home, corpus.import_lines(), [(a, dec.FIXTURES / a) for a in dec.DISTRACTORS])
            ec.embed(args, cache)
            with open_reader() as r:
                ids = ec.message_map(r.conn)
                pairs = [
                    (q, {ids[m] for m in corpus.evidence[qid]})
                    for qid, q in corpus.questions.items()
                ]
                res["relevant, decisions"] = relevant(r.conn, enc, pairs)
                res["off-topic: LongMemEval questions"] = best_of(
                    r.conn, enc, [q["question"] for q in qs]
                )
                res["nonsense, decisions corpus"] = best_of(r.conn, enc, nonsense)
        rel: list[float] = []
        off: list[float] = []
        non: list[float] = []
        for q in qs:
            with ec.throwaway_home() as home:
                ec.ingest(home, lme.import_lines(q))
                ec.embed(args, cache)
                with open_reader() as r:
                    ids = ec.message_map(r.conn)
                    ev = {ids[m] for m in lme.evidence(r.conn, q)}
                    rel += relevant(r.conn, enc, [(q["question"], ev)])
                    off += best_of(r.conn, enc, list(corpus.questions.values()))
                    non += best_of(r.conn, enc, nonsense)
        res["relevant, LongMemEval"] = rel
        res["off-topic: decisions questions"] = off
        res["nonsense, LongMemEval haystacks"] = non
    finally:
        cache.close()
    print(report(res))
    known = sum(model_knows(enc, q) for q in nonsense)
    print(f"\nnonsense queries with a word the model knows: {known} of {len(nonsense)}")
    if args.json:
        args.json.write_text(json.dumps(res), encoding="utf-8")
    return 0


def report(res: dict[str, list[float]]) -> str:
    import numpy as np

    heads = ["p5", "p25", "p50", "p75", "p95", "max"] + [f">={f}" for f in FLOORS]
    out = [f"{'pairs':<34} {'n':>5} " + " ".join(f"{h:>6}" for h in heads)]
    for name, vals in res.items():
        arr = np.array(vals)
        ps = list(np.percentile(arr, [5, 25, 50, 75, 95, 100]))
        shares = [float((arr >= f).mean()) for f in FLOORS]
        out.append(f"{name:<34} {len(arr):>5} " + " ".join(f"{v:>6.3f}" for v in ps + shares))
    return "\n".join(out)


if __name__ == "__main__":
    sys.exit(main())
