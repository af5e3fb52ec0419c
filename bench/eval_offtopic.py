"""An honest "nothing": how often a search answers a question its history cannot answer.

Two corpora, each asked its own questions and questions from elsewhere, through
`recall search --json` itself (`eval_common.search_as_user`) at default flags
and per mode (`--mode M`):

- the agent-decisions sessions with the fixture transcripts (coding work),
  asked LoCoMo's questions about two friends' lives, and `WRITTEN` (things no
  session mentions);
- one LoCoMo conversation, asked the agent-decisions questions and `WRITTEN`.

A question is *answered* when any result is not marked `weak` (`search.bar`).
For the corpus's own questions it reports the share answered, and session
recall_all@5 twice: over every result (the ranking, which the bar never
changes) and over the answers alone (what the bar costs a reader who stops at
the weaker-matches line).

    python bench/eval_offtopic.py [--modes keyword,hybrid] [--off 60]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import eval_common as ec
import eval_decisions as dec
import eval_locomo as loc

WRITTEN = [
    "pinning a Cargo workspace to an older rustc toolchain",
    "React useEffect fires twice on mount in development",
    "how do I center a div with flexbox",
    "terraform state lock stuck in dynamodb",
    "best sourdough starter hydration",
    "iOS push notification certificate expired",
    "Unity prefab lost its material after import",
    "configure nginx reverse proxy websocket upgrade",
    "why is my espresso sour",
    "Jenkins pipeline stuck waiting for an executor",
    "GraphQL subscription over websockets drops",
    "Spring Boot bean circular dependency",
    "android gradle build fails with AAPT2 error",
    "what is the capital of Mongolia",
    "Kafka consumer group rebalancing storm",
    "figma auto layout padding",
    "Elixir GenServer timeout on call",
    "train a resnet on imagenet with mixed precision",
    "vue pinia store not reactive",
    "migrating a WordPress site to a new host",
]
"""Questions about things no session of either corpus mentions. Three first drafts were
replaced when the agent-decisions set turned out to answer them (it moves an app to
Kubernetes with Helm charts, and renders invoices from a template)."""


def answered(results: list[dict[str, Any]]) -> bool:
    return any(not r.get("weak") for r in results)


def ask(questions: list[str], mode: str) -> tuple[float, float]:
    """The share of `questions` that get any result (all a search gave before the bar),
    and the share that get an answer (a result not marked weak)."""
    if not questions:
        return 0.0, 0.0
    anything = hits = 0
    for q in questions:
        with ec.querying():
            out = ec.search_as_user(q, *ec.mode_flags(mode))
        anything += bool(out)
        hits += answered(out)
    return anything / len(questions), hits / len(questions)


def own(questions: list[tuple[str, set[str]]], mode: str) -> dict[str, float]:
    """Answered share and session recall_all@5 (all results; answers only)."""
    n = len(questions)
    got = r_all = r_answers = 0.0
    for q, gold in questions:
        with ec.querying():
            out = ec.search_as_user(q, *ec.mode_flags(mode))
        got += answered(out)
        top = [ec.result_id(r) for r in out[:5]]
        r_all += gold <= set(top)
        r_answers += gold <= {ec.result_id(r) for r in out[:5] if not r.get("weak")}
    return {"answered": got / n, "R_all@5": r_all / n, "R_all@5 answers": r_answers / n}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--off", type=int, default=60, help="questions from the other set")
    p.add_argument("--conv", default="conv-26", help="the LoCoMo conversation")
    p.add_argument("--bars", default="", help="COVERAGE/LIFT[/BOTH] to try, e.g. 0.5/4,0.4/3/0.5")
    ec.add_arguments(p)
    args = p.parse_args(argv)
    from recall.search import bar
    from recall.semantic.cache import VectorCache

    modes = ec.modes_of(args)
    bars = [tuple(float(x) for x in b.split("/")) for b in args.bars.split(",") if b] or [
        (bar.COVERAGE, bar.LIFT, bar.BOTH)
    ]
    print(f"recall search Q --json {{{', '.join(ec.mode_flags(m)[-1] for m in modes)}}}")
    decisions = dec.Corpus(dec.DATA.read_text(encoding="utf-8"))
    (conv,) = loc.load(loc.DATA, [args.conv])
    convs = loc.load(loc.DATA)
    life = [q["question"] for c in convs for q, _ in loc.questions(c)]
    life = life[:: max(1, len(life) // args.off)][: args.off]
    coding = list(decisions.questions.values())
    coding_own = [
        (q, {sid for sid, _ in decisions.evidence[qid]}) for qid, q in decisions.questions.items()
    ]
    conv_own = [
        (q["question"], {loc.session_id(conv, s) for s, _ in ev}) for q, ev in loc.questions(conv)
    ][: args.off]
    cache = VectorCache(args.cache)
    rows: list[tuple[str, str, dict[str, float]]] = []
    started = time.perf_counter()
    try:
        for name, lines, extra, off, own_qs in (
            ("agent decisions", decisions.import_lines(), dec.DISTRACTORS, life, coding_own),
            (f"LoCoMo {args.conv}", loc.import_lines(conv), (), coding, conv_own),
        ):
            with ec.throwaway_home() as home:
                ec.ingest(home, lines, [(a, dec.FIXTURES / a) for a in extra])
                if ec.needs_vectors(modes):
                    ec.embed(args, cache)
                for mode, bar_ in [(m, b) for m in modes for b in bars]:
                    bar.COVERAGE, bar.LIFT, bar.BOTH = (*bar_, bar.BOTH)[:3]
                    off_any, off_answered = ask(off, mode)
                    written_any, written_answered = ask(WRITTEN, mode)
                    figures = {
                        "off-topic any": off_any,
                        "off-topic answered": off_answered,
                        "written any": written_any,
                        "written answered": written_answered,
                    } | own(own_qs, mode)
                    mode_name = f"{mode} {'/'.join(map(str, bar_))}" if args.bars else mode
                    rows.append((name, mode_name, figures))
                    print(name, mode_name, {k: round(v, 3) for k, v in figures.items()}, flush=True)
    finally:
        cache.close()
    print(f"{time.perf_counter() - started:.0f}s", file=sys.stderr)
    cols = ["off-topic any", "off-topic answered", "written any", "written answered"]
    cols += ["answered", "R_all@5", "R_all@5 answers"]
    print("| corpus | mode | " + " | ".join(cols) + " |")
    print("| --- | --- |" + " --- |" * len(cols))
    for name, mode, figures in rows:
        print(f"| {name} | {mode} | " + " | ".join(f"{figures[c]:.3f}" for c in cols) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
