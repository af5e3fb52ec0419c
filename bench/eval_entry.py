"""The one way every evaluation searches, what it scores, and the baseline beside it.

`search_as_user` is `recall search QUESTION --json FLAGS...` run in-process:
the entry, parsing, defaults, typo correction and merge a user gets. Every
`bench/eval_*` and the quality gate ask through it (tests/bench/
test_eval_entry.py holds them to it), so pointing it at another entry moves
every evaluation. `PlainBM25` is the baseline each run measures beside recall.
"""

from __future__ import annotations

import contextlib
import io
import math
from collections.abc import Hashable, Iterable
from typing import Any

KS = (1, 3, 5, 10)
MSG_KS = (1, 5, 10)

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
