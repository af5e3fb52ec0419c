"""How to merge several computers' rankings: reciprocal-rank fusion or re-scored BM25?

LongMemEval (the same questions as eval_longmemeval.py): each question's
haystack is split across three "computers" (three RECALL_HOMEs), each
searched by `recall search`'s own engine (`search.engine.search`), and the
three lists are merged by `recall.peers.merge` with each method. The
reference is the same search over one index holding the whole haystack: the
ranking a user would get if every session were on one machine. Two splits
are measured: round-robin (sessions interleaved across machines) and by date
(contiguous thirds: the laptop in March, the desktop in April, …).

    python bench/merge_eval.py [--questions N] [--mode keyword|hybrid]

Prints recall_all@k and ndcg_any@k for k = 5, 10 for each split and method.
"""

from __future__ import annotations

import argparse
import contextlib
import gzip
import io
import json
import os
import shutil
import sys
import tempfile
from collections import defaultdict
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from eval_longmemeval import DATA, import_lines, metrics

SPLITS = ("round-robin", "by-date")
METHODS = ("single index", "rrf", "bm25", "both", "tiered")
KS = (5, 10)


def _split(q: dict[str, Any], how: str) -> list[dict[str, Any]]:
    n = len(q["haystack_session_ids"])
    order = list(range(n))
    if how == "by-date":
        order.sort(key=lambda i: q["haystack_dates"][i])
        groups = [order[i * n // 3 : (i + 1) * n // 3] for i in range(3)]
    else:
        groups = [order[i::3] for i in range(3)]
    keys = ("haystack_session_ids", "haystack_dates", "haystack_sessions")
    return [{k: [q[k][i] for i in g] for k in keys} for g in groups]


def _index(home: Path, part: dict[str, Any], embed: bool, cache: Any) -> None:
    from recall.cli import main as recall_main

    os.environ["RECALL_HOME"] = str(home)
    home.mkdir(parents=True)
    src = home / "haystack.jsonl"
    src.write_text(import_lines(part), encoding="utf-8")
    with contextlib.redirect_stdout(io.StringIO()):
        if recall_main(["ingest", "--format", "jsonl", str(src)]) != 0:
            raise SystemExit("ingest failed")
    if embed:
        from recall.config import load_config
        from recall.semantic.embedjob import embed_pending
        from recall.semantic.provider import get_encoder
        from recall.store import open_writer

        with open_writer() as store:
            embed_pending(store, get_encoder(), load_config().embed_roles, cache=cache)


def _search(home: Path, question: str, mode: str) -> list[Any]:
    from recall.search.engine import search
    from recall.search.request import SearchRequest

    os.environ["RECALL_HOME"] = str(home)
    outcome, _ = search(SearchRequest(text=question, limit=10, mode=mode))
    return outcome.output.results


def run_question(
    q: dict[str, Any], mode: str, cache: Any
) -> dict[str, dict[str, dict[str, float]]]:
    from recall.peers.merge import merge

    root = Path(tempfile.mkdtemp(prefix="recall-merge-"))
    gold, corpus = set(q["answer_session_ids"]), list(q["haystack_session_ids"])
    out: dict[str, dict[str, dict[str, float]]] = {}
    try:
        _index(root / "whole", q, mode != "keyword", cache)
        single = [r.session_id for r in _search(root / "whole", q["question"], mode)]
        for how in SPLITS:
            lists = []
            for n, part in enumerate(_split(q, how)):
                home = root / f"{how}-{n}"
                _index(home, part, mode != "keyword", cache)
                lists.append(_search(home, q["question"], mode))
            out[how] = {"single index": metrics(single, gold, corpus)}
            for method in METHODS[1:]:
                fresh = [[r for r in rs] for rs in lists]
                merged = merge(q["question"], fresh, 10, method)
                out[how][method] = metrics([r.session_id for r in merged], gold, corpus)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--questions", type=int, default=0, help="only the first N (0: all)")
    p.add_argument("--mode", choices=("keyword", "hybrid"), default="keyword")
    p.add_argument(
        "--cache",
        type=Path,
        default=Path(tempfile.gettempdir()) / "recall-eval-cache" / "vectors.db",
        help="vector cache shared with eval_longmemeval.py (hybrid only)",
    )
    args = p.parse_args(argv)
    with gzip.open(DATA, "rt", encoding="utf-8") as fh:
        questions = [json.loads(line) for line in fh if line.strip()]
    questions = [q for q in questions if "_abs" not in q["question_id"]]
    if args.questions:
        questions = questions[: args.questions]
    cache = None
    if args.mode != "keyword":
        from recall.semantic.cache import VectorCache

        cache = VectorCache(args.cache)
    saved = os.environ.get("RECALL_HOME")
    sums: dict[tuple[str, str], dict[str, float]] = defaultdict(lambda: defaultdict(float))
    try:
        for n, q in enumerate(questions, 1):
            for how, by_method in run_question(q, args.mode, cache).items():
                for method, scores in by_method.items():
                    for metric, value in scores.items():
                        sums[how, method][metric] += value
            print(f"[{n}/{len(questions)}] {q['question_id']}", file=sys.stderr)
    finally:
        if cache is not None:
            cache.close()
        if saved is None:
            os.environ.pop("RECALL_HOME", None)
        else:
            os.environ["RECALL_HOME"] = saved
    cols = [f"recall_all@{k}" for k in KS] + [f"ndcg_any@{k}" for k in KS]
    print(f"{len(questions)} questions, {args.mode} search on each computer, 3 computers")
    print(f"{'split':<12} {'merge':<13} " + " ".join(f"{c:>13}" for c in cols))
    for how in SPLITS:
        for method in METHODS:
            vals = [sums[how, method][c] / len(questions) for c in cols]
            print(f"{how:<12} {method:<13} " + " ".join(f"{v:>13.3f}" for v in vals))
    return 0


if __name__ == "__main__":
    sys.exit(main())
