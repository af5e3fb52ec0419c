"""Retrieval quality on LoCoMo's long conversations, beside plain FTS5 BM25 in the same run.

The third evaluation set (../shared/eval/locomo, protocol in its README):
each conversation is one project, each of its sessions one recall session
(title "conv-NN session K", time from `session_K_date_time`), each turn one
message `"<speaker>: <text>"` (plus ` [shares <caption>]`), speaker_a as
`user`, speaker_b as `assistant`, all ingested by `recall ingest --format
jsonl` into one throwaway RECALL_HOME. Every question (category 5, which has
no answer, skipped) is asked through `recall search --json` itself
(`eval_common.search_as_user`) with `--project <conversation>` and otherwise
a user's default flags, once per mode (`--mode M`) and with `--messages`;
`--also` adds rows with other flags (e.g. `--scope sessions`).

Reports session recall_all@5 and @10 (every evidence session among the top
k distinct sessions) and turn recall@5 (the share of evidence turns among the
first five `--messages` results), per category, and each figure as a ratio to
the baseline measured in the same run: plain SQLite FTS5 BM25 (porter, an OR
of the question's words, a session ranked by its best turn).

    python bench/eval_locomo.py [--modes keyword] [--conversations conv-26,conv-30]
        [--questions N] [--also "--scope sessions"] [--variant cr:cal=0] [--json out.json]

A `--variant` (search settings, `eval_common.Variant`) adds a row per hybrid row.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shlex
import sys
import time
from collections import defaultdict
from collections.abc import Sequence
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import eval_common as ec

ROOT = Path(__file__).resolve().parent.parent
SHARED = Path(os.environ.get("RECALL_SHARED", ROOT.parent / "shared"))
DATA = SHARED / "eval" / "locomo" / "locomo_dev5.json"
CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop"}
BASELINE = ec.BASELINE
COLUMNS = ("R_all@5", "R_all@10", "turn_R@5")

Turn = tuple[int, int]
"""(session number, turn number) as LoCoMo's `D<session>:<turn>` names it."""

_SESSION_KEY = re.compile(r"^session_(\d+)$")
_DIA = re.compile(r"^D:?(\d+):(\d+)$")


def sessions(conv: dict[str, Any]) -> list[tuple[int, str, list[dict[str, Any]]]]:
    """(number, date text, turns) of each session, in order."""
    body = conv["conversation"]
    found = []
    for key, turns in body.items():
        if m := _SESSION_KEY.match(key):
            found.append((int(m[1]), body[f"{key}_date_time"], turns))
    return sorted(found, key=lambda s: s[0])


def turn_text(turn: dict[str, Any]) -> str:
    text = f"{turn['speaker']}: {turn['text']}"
    return text + (f" [shares {turn['blip_caption']}]" if turn.get("blip_caption") else "")


def turn_id(turn: dict[str, Any]) -> Turn:
    m = _DIA.match(turn["dia_id"])
    if m is None:
        raise SystemExit(f"unexpected dia_id {turn['dia_id']!r}")
    return int(m[1]), int(m[2])


def when(text: str) -> datetime:
    """LoCoMo's '1:56 pm on 8 May, 2023' (spacing varies)."""
    return datetime.strptime(" ".join(text.split()), "%I:%M %p on %d %B, %Y")


def session_id(conv: dict[str, Any], number: int) -> str:
    return f"{conv['sample_id']}-s{number}"


def import_lines(conv: dict[str, Any]) -> str:
    """The conversation in recall's JSONL import format, as the protocol says."""
    name = conv["sample_id"]
    speaker_a = conv["conversation"]["speaker_a"]
    lines = []
    for number, date, turns in sessions(conv):
        start = when(date)
        for n, turn in enumerate(turns):
            rec = {
                "session": session_id(conv, number),
                "title": f"{name} session {number}",
                "role": "user" if turn["speaker"] == speaker_a else "assistant",
                "text": turn_text(turn),
                "timestamp": (start + timedelta(seconds=n)).isoformat() + "+00:00",
                "agent": "locomo",
                "project": f"/eval/locomo/{name}",
            }
            lines.append(json.dumps(rec, ensure_ascii=False))
    return "\n".join(lines) + "\n"


def evidence(q: dict[str, Any], known: set[Turn]) -> set[Turn]:
    """The question's evidence turns; the set's few malformed ids ('D8:6; D9:17', 'D:11:26')
    are read as meant, and ids naming no turn are dropped."""
    out: set[Turn] = set()
    for item in q.get("evidence") or []:
        for part in str(item).split(";"):
            if (m := _DIA.match(part.strip())) and (int(m[1]), int(m[2])) in known:
                out.add((int(m[1]), int(m[2])))
    return out


def questions(conv: dict[str, Any], first: int = 0) -> list[tuple[dict[str, Any], set[Turn]]]:
    """Questions of categories 1–4 that have evidence, with it (the first `first`; 0: all)."""
    known = {turn_id(t) for _, _, turns in sessions(conv) for t in turns}
    kept = [
        (q, ev)
        for q in conv["qa"]
        if q.get("category") in CATEGORIES and (ev := evidence(q, known))
    ]
    return kept[:first] if first else kept


def load(path: Path = DATA, names: Sequence[str] = ()) -> list[dict[str, Any]]:
    convs: list[dict[str, Any]] = json.loads(path.read_text(encoding="utf-8"))
    if names:
        missing = set(names) - {c["sample_id"] for c in convs}
        if missing:
            raise SystemExit(f"no such conversation: {', '.join(sorted(missing))}")
        convs = [c for c in convs if c["sample_id"] in names]
    return convs


def baseline(conv: dict[str, Any]) -> ec.PlainBM25:
    """Plain FTS5 BM25 over the conversation's turns, keyed by LoCoMo turn."""
    return ec.PlainBM25((turn_id(t), turn_text(t)) for _, _, turns in sessions(conv) for t in turns)


def scores(
    sessions_ranked: list[int], turns_ranked: list[Turn], gold: set[Turn]
) -> dict[str, float]:
    """Session recall_all@5 and @10 over distinct sessions, turn recall@5."""
    distinct: list[int] = []
    for s in sessions_ranked:
        if s not in distinct:
            distinct.append(s)
    gold_sessions = {s for s, _ in gold}
    return {
        "R_all@5": float(gold_sessions <= set(distinct[:5])),
        "R_all@10": float(gold_sessions <= set(distinct[:10])),
        "turn_R@5": len(gold & set(turns_ranked[:5])) / len(gold),
    }


def turn_map(conv: dict[str, Any]) -> dict[tuple[str, int], Turn]:
    """(recall session id, message index) → LoCoMo turn; checks every turn was stored."""
    from recall.store import open_reader

    out: dict[tuple[str, int], Turn] = {}
    with open_reader() as reader:
        for number, _, turns in sessions(conv):
            sid = session_id(conv, number)
            (stored,) = reader.conn.execute(
                "SELECT count(*) FROM messages m JOIN sessions s ON s.id = m.session"
                " WHERE s.session_id = ?",
                (sid,),
            ).fetchone()
            if stored != len(turns):
                raise SystemExit(f"{sid}: {stored} messages stored of {len(turns)} turns")
            for n, t in enumerate(turns):
                out[sid, n] = turn_id(t)
    return out


def score_conversation(
    conv: dict[str, Any],
    rows: dict[str, tuple[str, ...]],
    first: int = 0,
    variants: Sequence[ec.Variant] = (),
) -> list[dict[str, Any]]:
    """Each question's scores, per row of flags and for the baseline; the conversation
    being ingested in the current RECALL_HOME."""
    turns = turn_map(conv)
    number = {session_id(conv, n): n for n, _, _ in sessions(conv)}
    base = baseline(conv)
    project = ("--project", conv["sample_id"])
    out = []
    for q, gold in questions(conv, first):
        question = str(q["question"])
        ranked = base.ranked(question)
        per = {BASELINE: scores([s for s, _ in ranked], ranked, gold)}
        for variant in variants or (ec.Variant("default"),):
            with variant.applied():
                for name, flags in rows.items():
                    if variant.name != "default":
                        if "hybrid" not in name:
                            continue
                        name = f"{name}/{variant.name}"
                    found = ec.search_as_user(question, *flags, *variant.flags, *project)
                    msgs = ec.search_as_user(
                        question, *flags, *variant.flags, *project, "--messages"
                    )
                    per[name] = scores(
                        [number.get(ec.result_id(r), -1) for r in found],
                        [turns.get(ec.message_id(r), (-1, -1)) for r in msgs],
                        gold,
                    )
        out.append(
            {
                "conversation": conv["sample_id"],
                "question": question,
                "type": CATEGORIES[q["category"]],
                "scores": per,
            }
        )
    return out


def means(rows: list[dict[str, Any]], name: str) -> dict[str, float]:
    return {c: sum(r["scores"][name][c] for r in rows) / len(rows) for c in COLUMNS}


def table(rows: list[dict[str, Any]]) -> str:
    """Means per category and row, and each as a ratio to the baseline's."""
    groups: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for r in rows:
        groups[r["type"]].append(r)
        groups["ALL"].append(r)
    names = list(rows[0]["scores"]) if rows else []
    head = f"{'category':<12} {'n':>4} {'search':<30} " + " ".join(f"{c:>9}" for c in COLUMNS)
    out = [head + "   " + " ".join(f"{c + '/bl':>12}" for c in COLUMNS)]
    for group in sorted(groups, key=lambda g: (g == "ALL", g)):
        members = groups[group]
        base = means(members, BASELINE)
        for name in names:
            vals = means(members, name)
            ratios = [vals[c] / base[c] if base[c] else float("nan") for c in COLUMNS]
            out.append(
                f"{group:<12} {len(members):>4} {name:<30} "
                + " ".join(f"{vals[c]:>9.3f}" for c in COLUMNS)
                + "   "
                + " ".join(f"{x:>12.3f}" for x in ratios)
            )
    return "\n".join(out)


def search_rows(modes: list[str], also: list[str]) -> dict[str, tuple[str, ...]]:
    """Row name → the flags it adds to `recall search Q --json --project CONV`."""
    rows = {f"recall {m}": ec.mode_flags(m) for m in modes}
    for extra in also:
        rows[f"recall keyword {extra}"] = ("--mode", "keyword", *shlex.split(extra))
    return rows


def default_modes() -> str:
    """Every mode when the model is installed, else keyword alone."""
    try:
        import recall.semantic  # noqa: F401
    except ImportError:
        return "keyword"
    return ",".join(ec.MODES)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--data", type=Path, default=DATA)
    p.add_argument("--conversations", default="", help="comma-separated sample ids (default all)")
    p.add_argument("--questions", type=int, default=0, help="the first N of each conversation")
    p.add_argument(
        "--also",
        action="append",
        default=[],
        help='another keyword row\'s flags, e.g. "--scope sessions"',
    )
    ec.add_arguments(p)
    p.set_defaults(modes=default_modes())
    args = p.parse_args(argv)
    from recall.semantic.cache import VectorCache

    ec.use_model(args.model)
    modes = ec.modes_of(args)
    rows = search_rows(modes, args.also)
    variants = [ec.Variant("default"), *(ec.Variant(v) for v in args.variant)]
    names = [n for n in args.conversations.split(",") if n]
    convs = load(args.data, names)
    for name, flags in rows.items():
        print(f"{name}: recall search Q --json {' '.join(flags)} --project CONV (and --messages)")
    started = time.perf_counter()
    scored: list[dict[str, Any]] = []
    cache = VectorCache(args.cache) if ec.needs_vectors(modes) else None
    try:
        with ec.throwaway_home() as home:
            ec.ingest(home, "".join(import_lines(c) for c in convs))
            if cache is not None:
                report = ec.embed(args, cache)
                print(f"embedded {report.chunks} chunks in {report.seconds:.0f}s", file=sys.stderr)
            for conv in convs:
                scored += score_conversation(conv, rows, args.questions, variants)
                took = time.perf_counter() - started
                print(f"{conv['sample_id']}: {len(scored)} questions, {took:.0f}s", file=sys.stderr)
    finally:
        if cache is not None:
            cache.close()
    print(table(scored))
    if args.json:
        args.json.write_text(json.dumps(scored, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
