"""Context that helps or stays silent: what `recall context --event prompt-submit` injects
for prompts whose answer is in the history, and for prompts with nothing to look up.

The history is the agent-decisions set (bench/eval_data/agent_decisions.txt) with the
fixture transcripts beside it; the prompts are bench/eval_data/context_prompts.txt.
Each prompt goes through `context.gather.matching`, the hook's own search, as the hook
runs it (5 excerpts, no session skipped). Prints, for the no-history prompts, the share
with nothing injected (target at least 0.9); for the others, the share of injected
excerpts from a session holding the answer (target at least 0.8), and how many prompts
got their answer injected at all.

    python bench/context_eval.py [-v]
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import eval_common as ec
import eval_decisions as ed

DATA = Path(__file__).resolve().parent / "eval_data" / "context_prompts.txt"
MATCHES = 5
_PROMPT = re.compile(r"^[HN] (?:(\S+) )?\| (.+)$")
_SESSION = re.compile(r"\[session (\S+?)(?: #\d+)?\]")


def prompts() -> list[tuple[str | None, str]]:
    out: list[tuple[str | None, str]] = []
    for line in DATA.read_text(encoding="utf-8").splitlines():
        if m := _PROMPT.match(line):
            out.append((m[1] or None, m[2].strip()))
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("-v", "--verbose", action="store_true", help="print every injection")
    p.add_argument("--coverage", type=float, help="the relevance bar (default: recall's)")
    p.add_argument("--relative", type=float, help="share of the best excerpt's coverage")
    args = p.parse_args(argv)
    from recall.context import relevance
    from recall.context.gather import matching

    if args.coverage is not None:
        relevance.COVERAGE = args.coverage
    if args.relative is not None:
        relevance.RELATIVE = args.relative

    corpus = ed.Corpus(ed.DATA.read_text(encoding="utf-8"))
    silent = quiet = injected = relevant = answered = asked = 0
    with ec.throwaway_home() as home:
        ed.ingest(home, corpus)
        for qid, prompt in prompts():
            lines = matching(prompt, MATCHES, None).excerpts
            sessions = [m[1] if (m := _SESSION.search(x)) else "" for x in lines]
            if qid is None:
                quiet += 1
                silent += not lines
            else:
                gold = {sid for sid, _ in corpus.evidence[qid]}
                asked += 1
                injected += len(lines)
                relevant += sum(1 for s in sessions if s in gold)
                answered += any(s in gold for s in sessions)
            if args.verbose:
                print(f"{qid or '-'} | {prompt}")
                for x in lines:
                    print(f"    {x[:200]}")
    print(f"no-history prompts with nothing injected: {silent}/{quiet} = {silent / quiet:.3f}")
    share = relevant / injected if injected else 1.0
    print(f"injected excerpts that are relevant: {relevant}/{injected} = {share:.3f}")
    print(f"history prompts answered: {answered}/{asked} = {answered / asked:.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
