"""The relevance bar (`search.bar`) for the team's results, on the team's own evidence.

A team result is judged as a local one is, so `weak` and `matched` mean the
same whichever index answered and the merge with local and peer results
(`peers.merge`) treats them alike: a result holding every query word matched
`EVERY`; a keyword hit holding some words is an answer when those words carry
`bar.COVERAGE` of the query's rarity (their idf among the messages this person
may read, from `team.bm25`); a meaning-only hit when its cosine stands
`bar.LIFT` deviations above the query's background, a sample of the team's
chunks (`background`, read through row-level security like everything else).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from recall import _accel
from recall.search import bar
from recall.search.query import Query
from recall.team import schema
from recall.team.bm25 import Weights

if TYPE_CHECKING:
    from recall.team.vectors import VectorBytes

S = schema.SCHEMA
WHOLE_BELOW = 20_000
"""Fewer chunks than this (the planner's estimate): the background is all of them."""


def background(conn: Any, vector: VectorBytes) -> tuple[float, float] | None:
    """The mean and spread of the query's cosine to a fixed sample of the team's chunks
    (whole pages, the same pages for every query: `REPEATABLE`), or None when too few."""
    (estimate,) = conn.execute(
        "SELECT reltuples FROM pg_class WHERE oid = %s::regclass", (f"{S}.chunks",)
    ).fetchone() or (0,)
    sample = ""
    if estimate >= WHOLE_BELOW:
        share = min(100.0, bar.SAMPLE * 300.0 / estimate)  # pages are uneven: read 3x
        sample = f" TABLESAMPLE SYSTEM ({share:.6f}) REPEATABLE (7)"
    row = conn.execute(
        "SELECT avg(s), stddev_pop(s), count(*) FROM (SELECT 1 - (embedding <=> %b) AS s"
        f" FROM {S}.chunks{sample} LIMIT %s) x",
        (vector, bar.SAMPLE if sample else WHOLE_BELOW),
    ).fetchone()
    if row is None or row[2] < bar.MIN_SAMPLE:
        return None
    return float(row[0]), max(float(row[1] or 0.0), 1e-6)


def word_weights(query: Query, w: Weights) -> tuple[list[str], list[float]]:
    """The words a result is judged by (`bar.query_words`) and each one's idf in the team's
    index: its term's rarest stem (an identifier, matched as a substring: the rarest word's)."""
    words = bar.query_words(query)
    top = max(w.idfs, default=1.0)
    by_word: dict[str, float] = {}
    positive = [t for t in query.terms if not t.negated]
    for term in positive:
        stems = [
            i
            for lex, i in zip(w.lexemes, w.idfs, strict=True)
            if any(tok.startswith(lex) or lex.startswith(tok) for tok in _tokens(term.text))
        ]
        for tok in _tokens(term.text):
            by_word[tok] = max(stems, default=top)
    return words, [by_word.get(word, top) for word in words]


def _tokens(text: str) -> list[str]:
    return _accel.tokenize(text.lower()) or [text.lower()]


def legs(
    every: bool,
    worded: bool,
    text: str,
    cosine: float | None,
    words: tuple[list[str], list[float]],
    back: tuple[float, float] | None,
) -> list[tuple[str, float]]:
    """(matched, relevance) of one result from each leg that found it: the words leg's
    first, then meaning's (`bar.combined` makes them one)."""
    out: list[tuple[str, float]] = []
    if worded:
        share = 1.0 if every else bar.coverage(words[0], words[1], text)
        out.append((bar.EVERY if share >= 1.0 else bar.SOME, bar.words_relevance(share)))
    if cosine is not None:
        out.append((bar.MEANING, bar.meaning_relevance(cosine, back)))
    return out
