"""Retrieval quality on LongMemEval through recall's real ingest, embedding and search.

Each question is its own corpus (the official protocol): its haystack
sessions are written in recall's JSONL import format, ingested by
`recall ingest --format jsonl` into a throwaway RECALL_HOME, embedded by the
same job as `recall embed`, and asked through `recall search --json` itself
(`eval_common.search_as_user`) at a user's default flags, once per mode
(`--mode keyword|semantic|hybrid`, `--modes`) and once more with `--messages`;
the flags varied are printed first. Abstention questions (`_abs`) are
skipped. Prints, per question type, recall_all@k and ndcg_any@k over sessions
(as xiaowu0162/LongMemEval src/retrieval/eval_utils.py) and message recall@k
over the turns LongMemEval marks `has_answer` (`search --messages`).

    python bench/eval_longmemeval.py [--per-type N] [--modes keyword] [--roles user,assistant]
        [--variant name:floor=0.3,rrf_k=60] [--calibrate cos.json] [--json out.json]

Vectors are cached by model and text (`--cache`), so a re-run embeds nothing new.
"""

from __future__ import annotations

import argparse
import contextlib
import gzip
import json
import os
import sys
import time
from collections.abc import Iterator, Sequence
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import eval_common as ec

ROOT = Path(__file__).resolve().parent.parent
SHARED = Path(os.environ.get("RECALL_SHARED", ROOT.parent / "shared"))
DATA = SHARED / "eval" / "longmemeval" / "longmemeval_s_dev100.jsonl.gz"
metrics = ec.metrics  # the official definitions (tested)


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
    with ec.throwaway_home() as home:
        ec.ingest(home, import_lines(q))
        yield home


def evidence(conn: Any, q: dict[str, Any]) -> set[ec.Message]:
    """The `has_answer` turns as (session, message index), aligned to what was stored
    (a turn with no text is not stored, which shifts the indexes after it)."""
    out: set[ec.Message] = set()
    for sid, turns in zip(q["haystack_session_ids"], q["haystack_sessions"], strict=True):
        if not any(t.get("has_answer") for t in turns):
            continue
        stored = [
            r[0]
            for r in conn.execute(
                "SELECT m.text FROM messages m JOIN sessions s ON s.id = m.session"
                " WHERE s.session_id = ? ORDER BY m.position",
                (sid,),
            )
        ]
        j = 0
        for turn in turns:
            if j < len(stored) and stored[j].strip() == turn["content"].strip():
                if turn.get("has_answer"):
                    out.add((sid, j))
                j += 1
    return out


def score_question(
    q: dict[str, Any], modes: list[str], variants: list[ec.Variant], extra: Sequence[str] = ()
) -> dict[str, Any]:
    """One question's scores, its haystack being ingested in the current RECALL_HOME."""
    from recall.store import open_reader

    with open_reader() as reader:
        gold_messages = evidence(reader.conn, q)
    scores = ec.search_all(
        q["question"],
        set(q["answer_session_ids"]),
        list(q["haystack_session_ids"]),
        gold_messages,
        variants,
        modes,
        extra,
        ec.PlainBM25.of_index(),
    )
    return {"id": q["question_id"], "type": q["question_type"], "scores": scores}


def run_question(
    q: dict[str, Any], args: argparse.Namespace, cache: Any, variants: list[ec.Variant]
) -> dict[str, Any]:
    from recall.store import open_reader

    modes = ec.modes_of(args)
    with haystack(q):
        if ec.needs_vectors(modes):
            ec.embed(args, cache)
        row = score_question(q, modes, variants, ec.extra_flags(args))
        if args.calibrate:
            with open_reader() as reader:
                ids = ec.message_map(reader.conn)
                gold_messages = evidence(reader.conn, q)
                row["cosines"] = ec.similarities(
                    reader.conn,
                    q["question"],
                    set(q["answer_session_ids"]),
                    {ids[m] for m in gold_messages},
                )
        return row


def load(path: Path = DATA) -> list[dict[str, Any]]:
    """The questions of the dev set, abstention questions left out (the official protocol)."""
    with gzip.open(path, "rt", encoding="utf-8") as fh:
        questions = [json.loads(line) for line in fh if line.strip()]
    return [q for q in questions if "_abs" not in q["question_id"]]


def select(questions: list[dict[str, Any]], per_type: int, first: int) -> list[dict[str, Any]]:
    """The first `per_type` questions of each type (0: all), then the first `first` (0: all)."""
    if per_type:
        seen: dict[str, int] = {}
        kept = []
        for q in questions:
            seen[q["question_type"]] = seen.get(q["question_type"], 0) + 1
            if seen[q["question_type"]] <= per_type:
                kept.append(q)
        questions = kept
    return questions[:first] if first else questions


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--data", type=Path, default=DATA)
    p.add_argument("--questions", type=int, default=0, help="only the first N (0: all)")
    p.add_argument("--per-type", type=int, default=0, help="only the first N of each type")
    ec.add_arguments(p)
    args = p.parse_args(argv)
    from recall.semantic.cache import VectorCache

    ec.use_model(args.model)

    questions = select(load(args.data), args.per_type, args.questions)
    variants = [ec.Variant("default:")] + [ec.Variant(v) for v in args.variant]
    print(ec.flags_line(ec.modes_of(args), variants, ec.extra_flags(args)))
    cache = VectorCache(args.cache)
    rows = []
    started = time.perf_counter()
    try:
        for n, q in enumerate(questions, 1):
            rows.append(run_question(q, args, cache, variants))
            elapsed = time.perf_counter() - started
            print(f"[{n}/{len(questions)}] {q['question_id']} {elapsed:.0f}s", file=sys.stderr)
    finally:
        cache.close()
    ec.report(rows, args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
