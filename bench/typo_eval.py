"""Typo correction a person would trust: the share of typos fixed, and corrections of
correct words (target 0), through the engine at default keyword flags.

The index is the agent-decisions set (bench/eval_data/agent_decisions.txt) with the
fixture transcripts beside it. The typo set (bench/eval_data/typos.txt) holds each
question's words with one word misspelt (`T typed | meant`), and controls asked as
typed (`C query`): every question spelt right, and English words no session holds
("deployment", "helm chart": the issue's failures). `--write` rebuilds the typo set:
for each question, its two longest indexed words of 5 letters or more, each misspelt by
one edit (a swap of two inner letters, a dropped, doubled or replaced inner letter, in
turn) that is neither an English word nor in the index.

    python bench/typo_eval.py [--write]
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import eval_common as ec
import eval_decisions as ed

DATA = Path(__file__).resolve().parent / "eval_data" / "typos.txt"
HEADER = """\
# Typo set for recall's typo correction (bench/typo_eval.py; written by `--write`).
# T <query with one word misspelt> | <the query meant>   (fixed: corrected to the meant)
# C <query spelt right>                                   (must not be corrected)
# Queries are the agent-decisions questions' words (bench/eval_data/agent_decisions.txt).
"""
EXTRA_CONTROLS = [
    "deployment",
    "invoice",
    "helm chart",
    "kubernetes ingress controller",
    "quarterly invoice reminders",
    "terraform state locking",
    "mathematics printer",
    "spreadsheet formulas",
    "vacation schedule",
    "mortgage calculator",
]
"""Correct words no session holds: before, "deployment" became "delop"."""


def words(question: str) -> list[str]:
    from recall.search.query import STOPWORDS

    return [w for w in re.findall(r"[A-Za-z]+", question) if w.lower() not in STOPWORDS]


def misspell(word: str, turn: int) -> str:
    """`word` with one inner edit, the kind chosen by `turn`."""
    i = 1 + turn % max(1, len(word) - 3)
    kind = turn % 4
    if kind == 0:
        return word[:i] + word[i + 1] + word[i] + word[i + 2 :]
    if kind == 1:
        return word[:i] + word[i + 1 :]
    if kind == 2:
        return word[:i] + word[i] + word[i:]
    near = {"a": "s", "e": "r", "i": "o", "o": "i", "u": "y", "n": "m", "r": "t", "t": "r"}
    return word[:i] + near.get(word[i], "e" if word[i] != "e" else "a") + word[i + 1 :]


def write(corpus: ed.Corpus) -> None:
    from recall.search.typo import found_anywhere, is_english
    from recall.store import open_reader

    lines = [HEADER]
    turn = 0
    with open_reader() as store:
        for question in corpus.questions.values():
            ws = words(question)
            picked = sorted(
                {w for w in ws if len(w) >= 5 and found_anywhere(store.conn, w)},
                key=lambda w: (-len(w), w),
            )[:2]
            for w in picked:
                for _ in range(4):
                    typo = misspell(w, turn)
                    turn += 1
                    if not is_english(typo) and not found_anywhere(store.conn, typo):
                        typed = " ".join(typo if x == w else x for x in ws)
                        lines.append(f"T {typed} | {' '.join(ws)}")
                        break
        lines += [f"C {' '.join(words(q))}" for q in corpus.questions.values()]
        lines += [f"C {c}" for c in EXTRA_CONTROLS]
    DATA.write_text("\n".join(lines) + "\n", encoding="utf-8")


def corrected(query: str) -> str | None:
    from recall.search.engine import search
    from recall.search.request import SearchRequest

    outcome, _ = search(SearchRequest(text=query, mode="keyword"))
    return outcome.output.corrected


def same_stems(a: str, b: str) -> bool:
    """Whether two queries search the same stems ("invalidate" for "invalidated")."""
    from recall.search.typo import stem
    from recall.store import open_reader

    with open_reader() as store:
        return [stem(store.conn, w) for w in a.split()] == [stem(store.conn, w) for w in b.split()]


def evaluate() -> int:
    typos, controls = [], []
    for line in DATA.read_text(encoding="utf-8").splitlines():
        if line.startswith("T "):
            typed, meant = line[2:].split(" | ")
            typos.append((typed, meant))
        elif line.startswith("C "):
            controls.append(line[2:])
    fixed, stemmed, wrong = 0, 0, []
    for typed, meant in typos:
        got = corrected(typed)
        if got is not None and got.lower() == meant.lower():
            fixed += 1
        elif got is not None and same_stems(got, meant):
            stemmed += 1
        else:
            wrong.append(f"  {typed!r} -> {got!r} (meant {meant!r})")
    spoilt = [f"  {c!r} -> {got!r}" for c in controls if (got := corrected(c)) is not None]
    n = max(1, len(typos))
    print(f"typos fixed: {fixed}/{len(typos)} = {fixed / n:.3f} to the word meant;")
    both = fixed + stemmed
    print(f"  {both}/{len(typos)} = {both / n:.3f} counting a word of its stem")
    print(f"correct queries corrected: {len(spoilt)}/{len(controls)}")
    if wrong:
        print("not fixed:\n" + "\n".join(wrong))
    if spoilt:
        print("corrected though spelt right:\n" + "\n".join(spoilt))
    return 0


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--write", action="store_true", help="rebuild the typo set first")
    args = p.parse_args(argv)
    corpus = ed.Corpus(ed.DATA.read_text(encoding="utf-8"))
    with ec.throwaway_home() as home:
        ed.ingest(home, corpus)
        if args.write:
            write(corpus)
        return evaluate()


if __name__ == "__main__":
    sys.exit(main())
