"""Retrieval quality on agent sessions: what was asked and decided (bench/eval_data/).

The second evaluation set beside LongMemEval (docs/semantic.md): 42 coding-
agent sessions written for recall, where most answers sit in the assistant's
reply, plus the real fixture transcripts (../shared/fixtures/transcripts) as
distractors, all in one index as a user's history would be. Each of the 50
questions names its evidence messages. Everything goes through recall's real
ingest and embedding, and every question is asked through `recall search
--json` itself (`eval_common.search_as_user`) at a user's default flags, per
mode (`--mode M`) and with `--messages`; the flags varied are printed first.
The same metrics are reported: session recall_all@k and ndcg_any@k, message
recall@k.

    python bench/eval_decisions.py [--modes keyword] [--variant ...] [--json out.json]

`--as-i` asks every question with "I" and "my" for "we" and "our" ("how did I fix
the slow products API endpoint?"): coding-agent users say "I" for what the agent
did, and the answers stay the assistant's (docs/search-quality.md, "Whose words a
question is about").
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import eval_common as ec

ROOT = Path(__file__).resolve().parent.parent
SHARED = Path(os.environ.get("RECALL_SHARED", ROOT.parent / "shared"))
DATA = Path(__file__).resolve().parent / "eval_data" / "agent_decisions.txt"
FIXTURES = SHARED / "fixtures" / "transcripts"
DISTRACTORS = ("claude", "codex", "gemini")
"""Fixture folders ingested beside the sessions (the agents recall reads)."""

_SESSION = re.compile(r"^## (\S+) \| (\S+) \| (\d{4}-\d{2}-\d{2})\s*$")
_TURN = re.compile(r"^([UA]): (?:\[([\w,]+)\] )?(.*)$")
_QUESTION = re.compile(r"^Q (\S+) \| (.+)$")


class Corpus:
    """The parsed set: sessions with their turns, and questions with their evidence."""

    def __init__(self, text: str) -> None:
        self.sessions: dict[str, dict[str, Any]] = {}
        self.questions: dict[str, str] = {}
        self.evidence: dict[str, set[tuple[str, int]]] = {}
        current: dict[str, Any] | None = None
        for line in text.splitlines():
            if line.startswith("#") and not line.startswith("## "):
                continue
            if m := _SESSION.match(line):
                current = {"project": m[2], "date": m[3], "turns": []}
                self.sessions[m[1]] = current
            elif m := _QUESTION.match(line):
                self.questions[m[1]] = m[2].strip()
            elif (m := _TURN.match(line)) and current is not None:
                sid = next(reversed(self.sessions))
                for q in (m[2] or "").split(","):
                    if q:
                        self.evidence.setdefault(q, set()).add((sid, len(current["turns"])))
                current["turns"].append(["user" if m[1] == "U" else "assistant", m[3]])
            elif line.strip() and current is not None and current["turns"]:
                current["turns"][-1][1] += "\n" + line
        missing = set(self.questions) ^ set(self.evidence)
        if missing:
            raise SystemExit(f"questions and evidence do not match: {sorted(missing)}")

    def import_lines(self) -> str:
        lines = []
        for sid, s in self.sessions.items():
            for n, (role, text) in enumerate(s["turns"]):
                rec = {
                    "session": sid,
                    "role": role,
                    "text": text.strip(),
                    "timestamp": f"{s['date']}T10:{n // 60:02d}:{n % 60:02d}+00:00",
                    "agent": "decisions",
                    "project": f"/home/dev/{s['project']}",
                }
                lines.append(json.dumps(rec, ensure_ascii=False))
        return "\n".join(lines) + "\n"


def first_person(question: str) -> str:
    """`question` asked by one person: "we" as "I", "our" as "my", "us" as "me"."""
    for plural, singular in (("we", "I"), ("our", "my"), ("us", "me")):
        question = re.sub(rf"\b{plural}\b", singular, question)
    return question


def score_all(
    corpus: Corpus,
    modes: list[str],
    variants: list[ec.Variant],
    calibrate: bool = False,
    extra: Sequence[str] = (),
) -> list[dict[str, Any]]:
    """Every question's scores, the corpus being ingested in the current RECALL_HOME."""
    from recall.store import open_reader

    with open_reader() as reader:
        every = [r[0] for r in reader.conn.execute("SELECT session_id FROM sessions")]
        ids = ec.message_map(reader.conn)
    baseline = ec.PlainBM25.of_index()
    rows: list[dict[str, Any]] = []
    for qid, question in corpus.questions.items():
        gold_messages = corpus.evidence[qid]
        gold = {sid for sid, _ in gold_messages}
        scores = ec.search_all(
            question, gold, every, gold_messages, variants, modes, extra, baseline
        )
        kind = "multi-session" if len(gold) > 1 else "single-session"
        row: dict[str, Any] = {"id": qid, "type": kind, "scores": scores}
        if calibrate:
            with open_reader() as reader:
                row["cosines"] = ec.similarities(
                    reader.conn, question, gold, {ids[m] for m in gold_messages}
                )
        rows.append(row)
    return rows


def ingest(home: Path, corpus: Corpus, distractors: bool = True) -> None:
    """The sessions, and the fixture transcripts beside them, through `recall ingest`."""
    extra = [(a, FIXTURES / a) for a in DISTRACTORS] if distractors else []
    ec.ingest(home, corpus.import_lines(), extra)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--data", type=Path, default=DATA)
    p.add_argument("--no-distractors", action="store_true", help="leave the fixtures out")
    p.add_argument("--as-i", action="store_true", help='ask with "I"/"my" for "we"/"our"')
    ec.add_arguments(p)
    args = p.parse_args(argv)
    from recall.semantic.cache import VectorCache

    ec.use_model(args.model)
    corpus = Corpus(args.data.read_text(encoding="utf-8"))
    if args.as_i:
        corpus.questions = {q: first_person(text) for q, text in corpus.questions.items()}
    modes = ec.modes_of(args)
    variants = [ec.Variant("default:")] + [ec.Variant(v) for v in args.variant]
    extra = ec.extra_flags(args)
    print(ec.flags_line(modes, variants, extra))
    cache = VectorCache(args.cache)
    started = time.perf_counter()
    try:
        with ec.throwaway_home() as home:
            ingest(home, corpus, not args.no_distractors)
            if ec.needs_vectors(modes):
                report = ec.embed(args, cache)
                print(f"embedded {report.chunks} chunks in {report.seconds:.0f}s", file=sys.stderr)
            rows = score_all(corpus, modes, variants, bool(args.calibrate), extra)
    finally:
        cache.close()
    print(f"{len(rows)} questions, {time.perf_counter() - started:.0f}s", file=sys.stderr)
    ec.report(rows, args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
