"""Retrieval quality on LongMemEval through recall's real ingest, embedding and search.

Each question is its own corpus (the official protocol): its haystack
sessions are written in recall's JSONL import format, ingested by
`recall ingest --format jsonl` into a throwaway RECALL_HOME, embedded by the
same job as `recall embed`, and searched by the same code as `recall search`
in keyword, semantic and hybrid mode. Abstention questions (`_abs`) are
skipped. Prints recall_all@k and ndcg_any@k for k = 1, 3, 5, 10 per question
type, computed as in xiaowu0162/LongMemEval src/retrieval/eval_utils.py.

    python bench/eval_longmemeval.py [--questions N] [--json out.json]

Vectors are cached by text (`--cache`), so a re-run embeds nothing new.
"""

from __future__ import annotations

import argparse
import contextlib
import gzip
import io
import json
import math
import os
import shutil
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Iterator
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
SHARED = Path(os.environ.get("RECALL_SHARED", ROOT.parent / "shared"))
DATA = SHARED / "eval" / "longmemeval" / "longmemeval_s_dev100.jsonl.gz"
KS = (1, 3, 5, 10)
MODES = ("keyword", "semantic", "hybrid")


def dcg(rels: list[float], k: int) -> float:
    rels = rels[:k]
    if not rels:
        return 0.0
    return rels[0] + sum(r / math.log2(i) for i, r in enumerate(rels[1:], start=2))


def metrics(ranked: list[str], gold: set[str], corpus: list[str]) -> dict[str, float]:
    """recall_all@k and ndcg_any@k of one ranking (the official definitions)."""
    out: dict[str, float] = {}
    ideal = sorted((1.0 if c in gold else 0.0 for c in corpus), reverse=True)
    for k in KS:
        top = ranked[:k]
        out[f"recall_all@{k}"] = float(all(g in top for g in gold))
        actual = [1.0 if d in gold else 0.0 for d in top]
        best = dcg(ideal, k)
        out[f"ndcg_any@{k}"] = dcg(actual, k) / best if best else 0.0
    return out


def iso(date: str, offset_s: int) -> str:
    """LongMemEval's '2023/05/20 (Sat) 02:21' as ISO-8601 UTC, plus `offset_s` seconds."""
    dt = datetime.strptime(date.split(" (")[0] + " " + date.split(") ")[-1], "%Y/%m/%d %H:%M")
    return (dt + timedelta(seconds=offset_s)).isoformat() + "+00:00"


def import_lines(q: dict[str, Any]) -> str:
    lines = []
    for sid, date, turns in zip(
        q["haystack_session_ids"], q["haystack_dates"], q["haystack_sessions"], strict=True
    ):
        for n, turn in enumerate(turns):
            rec = {
                "session": sid,
                "role": turn["role"],
                "text": turn["content"],
                "timestamp": iso(date, n),
                "agent": "longmemeval",
            }
            lines.append(json.dumps(rec, ensure_ascii=False))
    return "\n".join(lines) + "\n"


@contextlib.contextmanager
def haystack(q: dict[str, Any]) -> Iterator[Path]:
    """A throwaway RECALL_HOME holding this question's haystack, ingested as a user would."""
    from recall.cli import main as recall_main

    home = Path(tempfile.mkdtemp(prefix="recall-lme-"))
    os.environ["RECALL_HOME"] = str(home)
    try:
        src = home / "haystack.jsonl"
        src.write_text(import_lines(q), encoding="utf-8")
        with contextlib.redirect_stdout(io.StringIO()):
            if recall_main(["ingest", "--format", "jsonl", str(src)]) != 0:
                raise SystemExit(f"ingest failed for {q['question_id']}")
        yield home
    finally:
        shutil.rmtree(home, ignore_errors=True)


def run_question(q: dict[str, Any], args: argparse.Namespace, cache: Any) -> dict[str, Any]:
    from recall.config import load_config
    from recall.search.modes import run
    from recall.search.results import Filters
    from recall.semantic.embedjob import embed_pending
    from recall.semantic.provider import get_encoder
    from recall.store import open_reader, open_writer

    with haystack(q):
        with open_writer() as store:
            embed_pending(store, get_encoder(), load_config().embed_roles, cache=cache)
        gold = set(q["answer_session_ids"])
        corpus = list(q["haystack_session_ids"])
        scores = {}
        with open_reader() as reader:
            for mode in MODES:
                out = run(reader.conn, q["question"], Filters(), 10, mode, args.fusion).output
                ranked = [r.session_id for r in out.results]
                scores[mode] = metrics(ranked, gold, corpus)
        return {"id": q["question_id"], "type": q["question_type"], "scores": scores}


def table(rows: list[dict[str, Any]]) -> str:
    groups: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for r in rows:
        groups[r["type"]].append(r)
        groups["ALL"].append(r)
    cols = [f"R_all@{k}" for k in KS] + [f"NDCG@{k}" for k in KS]
    out = [f"{'type':<26} {'n':>3} {'mode':<8} " + " ".join(f"{c:>9}" for c in cols)]
    for name in sorted(groups, key=lambda g: (g == "ALL", g)):
        members = groups[name]
        for mode in MODES:
            vals = []
            for metric in [f"recall_all@{k}" for k in KS] + [f"ndcg_any@{k}" for k in KS]:
                vals.append(sum(r["scores"][mode][metric] for r in members) / len(members))
            out.append(
                f"{name:<26} {len(members):>3} {mode:<8} " + " ".join(f"{v:>9.3f}" for v in vals)
            )
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--data", type=Path, default=DATA)
    p.add_argument("--questions", type=int, default=0, help="only the first N (0: all)")
    p.add_argument("--fusion", default="rrf", help="rrf, weighted, 0.4/0.6, 0.3/0.7")
    p.add_argument(
        "--cache",
        type=Path,
        default=Path(tempfile.gettempdir()) / "recall-eval-cache" / "vectors.db",
        help="vector cache shared across runs",
    )
    p.add_argument("--json", type=Path, help="write per-question scores here")
    args = p.parse_args(argv)
    from recall.semantic.cache import VectorCache

    with gzip.open(args.data, "rt", encoding="utf-8") as fh:
        questions = [json.loads(line) for line in fh if line.strip()]
    questions = [q for q in questions if "_abs" not in q["question_id"]]
    if args.questions:
        questions = questions[: args.questions]
    cache = VectorCache(args.cache)
    saved_home = os.environ.get("RECALL_HOME")
    rows = []
    started = time.perf_counter()
    try:
        for n, q in enumerate(questions, 1):
            rows.append(run_question(q, args, cache))
            elapsed = time.perf_counter() - started
            print(f"[{n}/{len(questions)}] {q['question_id']} {elapsed:.0f}s", file=sys.stderr)
    finally:
        cache.close()
        if saved_home is None:
            os.environ.pop("RECALL_HOME", None)
        else:
            os.environ["RECALL_HOME"] = saved_home
    print(table(rows))
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
