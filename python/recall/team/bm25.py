"""BM25 for the team's full text, as SQLite's FTS5 ranks the local index.

Postgres ranks full text with `ts_rank`, which knows no inverse document
frequency: on prose questions ("when did Caroline go to the support group?")
its order was far from local search's (38 % of the top five differed on a
LoCoMo conversation). So the team's search ranks with BM25 (k1 = 1.2,
b = 0.75, FTS5's idf floor), computed in SQL by `recall.bm25` over each
candidate's tsvector, with the idfs found here first: one statement counts,
for each query lexeme, the messages holding it (capped, as local search caps
its any-word fallback: a word found in more than a tenth of the messages,
and at least 2000 of them, is left out of the fallback, `search.keyword`).
Counts and lengths are of the rows this person may read.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from recall.record import Record, field
from recall.search.keyword import COMMON_FLOOR, COMMON_SHARE
from recall.search.query import Term
from recall.team import schema
from recall.team.terms import CONFIG

if TYPE_CHECKING:
    import psycopg

S = schema.SCHEMA
SAMPLE_FROM = 20_000
"""Past this many messages (the planner's estimate), the mean length is sampled."""
SAMPLE_ROWS = 5_000
"""About how many messages the sample reads (whole pages of them, `TABLESAMPLE SYSTEM`)."""


class Weights(Record):
    """What `recall.bm25` is handed: the query's lexemes and their idfs."""

    lexemes: list[str] = field(default_factory=list)
    idfs: list[float] = field(default_factory=list)
    prefixes: list[bool] = field(default_factory=list)
    avgdl: float = 1.0
    common: list[Term] = field(default_factory=list)
    """Positive terms too common for the any-word fallback."""

    def args(self) -> list[object]:
        return [self.lexemes, self.idfs, self.prefixes]


def idf(n: int, df: int) -> float:
    """FTS5's idf: log((N - df + 0.5) / (df + 0.5)), floored at 1e-6."""
    value = math.log((n - df + 0.5) / (df + 0.5)) if n else 0.0
    return value if value > 0 else 1e-6


def weights(conn: psycopg.Connection[Any], terms: list[Term]) -> Weights:
    positive = [t for t in terms if not t.negated]
    if not positive:
        return Weights()
    by_term: dict[int, list[str]] = {}
    for i, lexeme in conn.execute(
        f"SELECT t.i, x.lexeme FROM unnest(%s::text[]) WITH ORDINALITY t(term, i),"
        f" unnest(to_tsvector('{CONFIG}', t.term)) x",
        ([t.text for t in positive],),
    ):
        by_term.setdefault(int(i) - 1, []).append(str(lexeme))
    n, avgdl = _size(conn)
    cap = max(COMMON_FLOOR, int(n * COMMON_SHARE))
    pairs = sorted({(lex, positive[i].prefix) for i, lexes in by_term.items() for lex in lexes})
    counts: dict[tuple[str, bool], int] = {}
    if pairs:
        probes = ", ".join(
            f"(SELECT count(*) FROM (SELECT 1 FROM {S}.messages WHERE tsv @@ %s::tsquery"
            " LIMIT %s) x)"
            for _ in pairs
        )
        args: list[object] = []
        for lex, prefix in pairs:
            args += ["'" + lex.replace("'", "''") + "'" + (":*" if prefix else ""), cap]
        row = conn.execute(f"SELECT {probes}", args).fetchone() or ()
        counts = {pair: int(c) for pair, c in zip(pairs, row, strict=True)}
    common = [
        positive[i]
        for i, lexes in by_term.items()
        if len(positive) >= 2
        and lexes
        and all(counts[(x, positive[i].prefix)] >= cap for x in lexes)
    ]
    return Weights(
        lexemes=[lex for lex, _ in pairs],
        idfs=[idf(n, counts[p]) for p in pairs],
        prefixes=[prefix for _, prefix in pairs],
        avgdl=avgdl,
        common=common,
    )


def _size(conn: psycopg.Connection[Any]) -> tuple[int, float]:
    """(messages, their mean length in words) that this person may read."""
    (estimate,) = conn.execute(
        "SELECT reltuples FROM pg_class WHERE oid = %s::regclass", (f"{S}.messages",)
    ).fetchone() or (0,)
    if estimate < SAMPLE_FROM:
        n, mean = conn.execute(f"SELECT count(*), avg(words) FROM {S}.messages").fetchone() or (
            0,
            0,
        )
        return int(n), float(mean or 1.0) or 1.0
    share = min(100.0, SAMPLE_ROWS * 100.0 / estimate)
    (mean,) = conn.execute(
        f"SELECT avg(words) FROM {S}.messages TABLESAMPLE SYSTEM (%s)", (share,)
    ).fetchone() or (None,)
    return int(estimate), float(mean or 1.0) or 1.0
