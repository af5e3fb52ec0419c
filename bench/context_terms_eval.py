"""Which words of a prompt `recall context` should search for, judged on LongMemEval.

    python bench/context_terms_eval.py [--questions N]

A hook must answer fast, and a long prompt's any-word query costs in
proportion to its terms, so `recall.context.gather.prompt_query` keeps a few.
Two data sets, each question's haystack ingested as `bench/eval_longmemeval.py`
does: (1) the LongMemEval questions as prompts; (2) the same questions inside
a long prompt (a generic preamble before and a request after, as people
write them). For each, keyword message search as the hook runs it, asked
through `recall search --json` itself (`eval_common.search_as_user` with
`--mode keyword --messages --limit 5`, every other flag at its default) with
the whole prompt, the first N words, and the N longest words; prints
recall_any@5 (a gold session among the sessions of the top 5 messages) and
the mean search time.
"""

from __future__ import annotations

import argparse
import gzip
import json
import sys
import time

from eval_common import search_as_user
from eval_longmemeval import DATA, haystack

FLAGS = ("--mode", "keyword", "--messages", "--limit", "5")

PREAMBLE = (
    "Hi again, I hope you are doing well today. I have been thinking about something we "
    "talked about a while ago and I would really appreciate your help remembering the details. "
)
REQUEST = (
    " Please take your time, check everything we discussed before, and give me a short, "
    "practical answer with any numbers or names you can find."
)
CAPS = (8, 16, 24)


def variants() -> dict[str, object]:
    from recall.context.gather import prompt_query

    out: dict[str, object] = {"whole prompt": lambda p: p}
    for n in CAPS:
        out[f"first {n}"] = lambda p, n=n: prompt_query(p, n, longest=False)
        out[f"longest {n}"] = lambda p, n=n: prompt_query(p, n, longest=True)
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--questions", type=int, default=0, help="only the first N (0: all)")
    args = p.parse_args(argv)
    with gzip.open(DATA, "rt", encoding="utf-8") as fh:
        questions = [json.loads(line) for line in fh if line.strip()]
    questions = [q for q in questions if "_abs" not in q["question_id"]]
    questions = questions[: args.questions] if args.questions else questions
    shapes = {"questions": lambda q: q, "long prompts": lambda q: PREAMBLE + q + REQUEST}
    ways = variants()
    hits = {(s, w): 0 for s in shapes for w in ways}
    spent = {(s, w): 0.0 for s in shapes for w in ways}
    for n, q in enumerate(questions, 1):
        with haystack(q):
            gold = set(q["answer_session_ids"])
            for shape, make in shapes.items():
                prompt = make(q["question"])
                for way, pick in ways.items():
                    text = pick(prompt)  # type: ignore[operator]
                    start = time.perf_counter()
                    out = search_as_user(text, *FLAGS)
                    spent[shape, way] += time.perf_counter() - start
                    found = {r["session_id"] for r in out}
                    hits[shape, way] += bool(found & gold)
        print(f"[{n}/{len(questions)}]", file=sys.stderr, end="\r")
    print("searched as: recall search TEXT --json " + " ".join(FLAGS))
    print(f"\n{len(questions)} questions; recall_any@5 over message results; mean search ms")
    for shape in shapes:
        print(f"\n{shape}:")
        for way in ways:
            share = hits[shape, way] / len(questions)
            ms = spent[shape, way] / len(questions) * 1000
            print(f"  {way:<14} {share:.3f}   {ms:6.1f} ms")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
