"""The retrieval quality gate's measurement: keyword search over fixed slices of the dev sets.

`tests/search/test_quality_gate.py` fails when a figure measured here drops
more than GATE_MARGIN below the one recorded in its table. Each slice is
ingested through `recall ingest` into a throwaway RECALL_HOME and every
question asked through `recall search --json` itself
(`eval_common.search_as_user`) with `--mode keyword` (no model: the same
answer on every machine, in seconds) and otherwise a user's default flags,
once for sessions and once with `--messages`.

Slices (fixed, so figures compare across commits):
- LongMemEval dev: the first 3 questions of each of the 6 types (18);
- agent decisions: all 50 questions, fixture transcripts as distractors;
- LoCoMo dev: every question (categories 1–4) of conv-26 and conv-30 (231);
- mixed sources (`eval_data/mixed_sources.txt`, all 31 questions): the share
  whose right answer (a memory, a file section or a session) comes first, and
  within the first three, at the default scope and weights.

    python bench/quality_gate.py            # print the figures
    python bench/quality_gate.py --record   # and write them into the test's table
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import eval_common as ec
import eval_decisions as dec
import eval_locomo as loc
import eval_longmemeval as lme
import eval_sources as es

FLAGS = ("--mode", "keyword")
LME_PER_TYPE = 3
LOCOMO = ("conv-26", "conv-30")
LOCOMO_QUESTIONS = 0  # all
METRICS = ("session_recall@5", "message_recall@5")
SOURCE_METRICS = ("answer_top1", "answer_top3")
TEST = Path(__file__).resolve().parent.parent / "tests" / "search" / "test_quality_gate.py"

Figures = dict[str, float]


def _mean(rows: list[dict[str, float]]) -> Figures:
    return {m: round(sum(r[m] for r in rows) / len(rows), 4) for m in METRICS}


def longmemeval() -> Figures:
    variants = [ec.Variant("default:")]
    rows = []
    for q in lme.select(lme.load(), LME_PER_TYPE, 0):
        with lme.haystack(q):
            s = lme.score_question(q, ["keyword"], variants)["scores"]["keyword"]
        rows.append({"session_recall@5": s["recall_all@5"], "message_recall@5": s["msg_recall@5"]})
    return _mean(rows)


def decisions() -> Figures:
    corpus = dec.Corpus(dec.DATA.read_text(encoding="utf-8"))
    with ec.throwaway_home() as home:
        dec.ingest(home, corpus)
        scored = dec.score_all(corpus, ["keyword"], [ec.Variant("default:")])
    rows = [
        {
            "session_recall@5": r["scores"]["keyword"]["recall_all@5"],
            "message_recall@5": r["scores"]["keyword"]["msg_recall@5"],
        }
        for r in scored
    ]
    return _mean(rows)


def locomo() -> Figures:
    convs = loc.load(loc.DATA, LOCOMO)
    with ec.throwaway_home() as home:
        ec.ingest(home, "".join(loc.import_lines(c) for c in convs))
        scored: list[dict[str, Any]] = []
        for conv in convs:
            scored += loc.score_conversation(conv, {"keyword": FLAGS}, LOCOMO_QUESTIONS)
    rows = [
        {
            "session_recall@5": r["scores"]["keyword"]["R_all@5"],
            "message_recall@5": r["scores"]["keyword"]["turn_R@5"],
        }
        for r in scored
    ]
    return _mean(rows)


def sources() -> Figures:
    mixed = es.MixedSet(es.DATA.read_text(encoding="utf-8"))
    with ec.throwaway_home() as home:
        ids = es.build(home, mixed, embed=False)
        found = es.summary(mixed, es.score(mixed, ids, FLAGS))
    return {"answer_top1": round(found["all@1"], 4), "answer_top3": round(found["all@3"], 4)}


SETS = {"longmemeval": longmemeval, "decisions": decisions, "locomo": locomo, "sources": sources}


def metrics_of(name: str) -> tuple[str, ...]:
    """The figures the gate holds for set `name`."""
    return SOURCE_METRICS if name == "sources" else METRICS


def measure(name: str) -> Figures:
    """One set's figures, measured now."""
    return SETS[name]()


def recorded_table(figures: dict[str, Figures]) -> str:
    """The test's table as Python source."""
    lines = ["RECORDED = {"]
    for name, vals in figures.items():
        inner = ", ".join(f'"{m}": {vals[m]:.4f}' for m in metrics_of(name))
        lines.append(f'    "{name}": {{{inner}}},')
    return "\n".join([*lines, "}"])


def record(figures: dict[str, Figures], test: Path = TEST) -> None:
    """Replace the `RECORDED = {...}` table in the test with `figures`."""
    text = test.read_text(encoding="utf-8")
    new, n = re.subn(
        r"^RECORDED = \{\n.*?^\}$", recorded_table(figures), text, count=1, flags=re.M | re.S
    )
    if n != 1:
        raise SystemExit(f"no RECORDED table found in {test}")
    test.write_text(new, encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--record", action="store_true", help=f"write the figures into {TEST.name}")
    args = p.parse_args(argv)
    print(f"searched as: recall search Q --json {' '.join(FLAGS)} (and --messages)")
    figures = {name: measure(name) for name in SETS}
    print(recorded_table(figures))
    if args.record:
        record(figures)
        print(f"written to {TEST}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
