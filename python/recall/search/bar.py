"""The relevance bar: which results are answers, and how each one matched.

A search used to return something for every query: off-topic prose came back
through the any-word fallback, and a meaning-only neighbour came back whenever
it cleared one fixed cosine. Here each result is judged on its own evidence,
so the judgment means the same whatever else the query found (issue 22):

- a result holding every query word (or the quoted phrase) matched `EVERY`;
- a keyword hit holding only some words (`SOME`) is an answer when the words it
  holds carry at least `COVERAGE` of the query's rarity: each word weighted by
  its inverse document frequency in the messages, so holding the one rare word
  of "kubernetes ingress controller" counts, holding "controller" does not;
- a hit found by meaning alone (`MEANING`) is an answer when its cosine stands
  `LIFT` standard deviations above what the query scores against a fixed
  sample of the index's chunks (its own background: most chunks are about
  something else), not above one cosine for every query.

A result below the bar keeps its place in the ranking but is marked `weak`:
`--json` says so, text output lists it after the answers, MCP and context
drop it. Each result carries its `relevance`, how far it clears the bar (1 is
the bar), the same scale for every query; a result found by two legs takes the
stronger leg's, plus `BOTH` times the other's.
"""

from __future__ import annotations

import math
import sqlite3
from collections.abc import Callable
from typing import TYPE_CHECKING

from recall import _accel
from recall.search import porter
from recall.search.query import STOPWORDS, Query, has_cjk
from recall.sqltext import fts_string

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

EVERY, SOME, MEANING = "every word", "some words", "meaning"
"""How a result matched, as `Result.matched` says it."""
COVERAGE = 0.4
"""Share of the query's IDF weight a some-words hit must hold (measured: docs/search-quality.md)."""
LIFT = 5.0
"""Standard deviations above the query's background a meaning-only hit must stand."""
BOTH = 0.0
"""How much a second leg's relevance adds to the first's, for a result found both ways."""
SAMPLE = 400
"""Chunks in the background sample: evenly spaced ids, the same for every query."""
MIN_SAMPLE = 30
"""Fewer chunks than this are no background: meaning is judged by `SMALL_FLOOR`."""
SMALL_FLOOR = 0.45
"""The cosine a meaning-only hit must reach in an index too small to have a background."""
_RANK = {EVERY: 3, SOME: 2, MEANING: 1, "": 0}


def query_words(query: Query) -> list[str]:
    """The words a result is judged by: the positive words less stop words (all of them
    when nothing else is left), lowercased and tokenized as the index does, each once."""
    positive = [w.lower() for t in query.terms if not t.negated for w in t.text.split()]
    meant = [w for w in positive if w not in STOPWORDS] or positive
    tokens = [tok for raw in meant for tok in (_accel.tokenize(raw) or [raw])]
    return list(dict.fromkeys(tokens))


def holds(word: str, tokens: set[str], text: str = "") -> bool:
    """Whether a text's `tokens` hold `word`, or a form of it ("limit", "limits",
    "limiting": one shares the other's first letters, 4 or more, and differs by a
    suffix of at most 3; with `STEMS`, "camped" and "camping", "promoted" and
    "promotion": the same `stem`); a CJK word is held when the text contains it."""
    if word in tokens or (has_cjk(word) and word in text):
        return True
    if len(word) < 4:
        return False
    if any(
        (t.startswith(word) or word.startswith(t)) and len(t) >= 4 and abs(len(t) - len(word)) <= 3
        for t in tokens
    ):
        return True
    if not STEMS:
        return False
    # Porter only rewrites a word's end and keeps at least two letters, so a form of
    # `word` starts as it does: only those tokens are stemmed
    head = word[:2]
    forms = [t for t in tokens if t.startswith(head)]
    root = stem(word)
    if len(root) >= 3 and any(stem(t) == root for t in forms):
        return True
    # the whole stemmer leaves "eyes" and "ages" two letters; their plural and -ed/-ing
    # forms are still one word ("eye", "age")
    first = porter.step1(word)
    return len(first) >= 3 and any(porter.step1(t) == first for t in forms)


STEMS = "full"
"""Whether `holds` counts two forms of one word as the same word, as the index's porter
tokenizer does: "full" as it does ("promoted" and "promotion"), "step1" only plurals,
-ed and -ing ("camped" and "camping"), "" not at all. A hit BM25 ranked first for a word's
other form held "none" of it to the bar, so it was judged weak and sank in hybrid's fusion
(docs/search-quality.md, "Inflections held" and "Stems as the index has them")."""


def stem(word: str) -> str:
    """`word` as the index's porter tokenizer stems it (`STEMS` "full"), or through
    Porter's first step only ("step1": plurals, -ed, -ing, a final y)."""
    return porter.step1(word) if STEMS == "step1" else porter.stem(word)


def rarity(db: sqlite3.Connection, words: list[str], table: str = "messages_fts") -> list[float]:
    """Each word's BM25 inverse document frequency in `table` (1 each when it is empty or
    missing): a word no message holds weighs most."""
    try:
        (total,) = db.execute(f"SELECT count(*) FROM {table}").fetchone()
        if not total:
            return [1.0] * len(words)
        sql = f"SELECT count(*) FROM {table} WHERE {table} MATCH ?"
        counts = [db.execute(sql, (fts_string(w),)).fetchone()[0] for w in words]
    except sqlite3.OperationalError:
        return [1.0] * len(words)
    return [math.log(1 + (total - n + 0.5) / (n + 0.5)) for n in counts]


def coverage(words: list[str], weights: list[float], text: str) -> float:
    """The IDF-weighted share of `words` that `text` holds (1.0 for no words)."""
    total = sum(weights)
    if not words or total <= 0:
        return 1.0
    held = holder(text)
    pairs = zip(words, weights, strict=True)
    return sum(w for word, w in pairs if held(word)) / total


def holder(text: str) -> Callable[[str], bool]:
    """`holds` for one text, its words tokenized once."""
    low = text.lower()
    tokens = set(_accel.tokenize(low))
    return lambda word: holds(word, tokens, low)


def background(
    db: sqlite3.Connection, model: str, vec: npt.NDArray[np.float32]
) -> tuple[float, float] | None:
    """The mean and standard deviation of `vec`'s cosine to a fixed sample of `model`'s
    chunks (evenly spaced ids), or None when the index holds too few to be a background."""
    import numpy as np

    try:
        lo, hi, n = db.execute(
            "SELECT min(id), max(id), count(*) FROM chunks WHERE model = ?", (model,)
        ).fetchone()
    except sqlite3.OperationalError:
        return None
    if not n or n < MIN_SAMPLE:
        return None
    step = max(1, (hi - lo) // SAMPLE)
    ids = list(range(lo, hi + 1, step))[: SAMPLE + 1]
    marks = ",".join("?" * len(ids))
    rows = db.execute(
        f"SELECT vector FROM chunks WHERE model = ? AND id IN ({marks})", (model, *ids)
    ).fetchall()
    if len(rows) < MIN_SAMPLE:
        return None
    mat = np.frombuffer(b"".join(r[0] for r in rows), dtype="<f4").reshape(len(rows), -1)
    if mat.shape[1] != vec.shape[0]:
        return None
    sims = mat @ vec
    return float(sims.mean()), max(float(sims.std()), 1e-6)


def words_relevance(share: float) -> float:
    """A keyword hit's relevance: the share of the query's weight it holds over `COVERAGE`
    (1 is the bar; every word held is 1 / COVERAGE)."""
    return round(share / COVERAGE, 3)


def meaning_relevance(cosine: float, back: tuple[float, float] | None) -> float:
    """A meaning hit's relevance: its deviations above the query's background over `LIFT`
    (1 is the bar); in an index too small for a background, its cosine over `SMALL_FLOOR`."""
    if back is None:
        return round(cosine / SMALL_FLOOR, 3)
    mean, std = back
    return round(max(0.0, (cosine - mean) / std) / LIFT, 3)


def meaning_weak(cosine: float, back: tuple[float, float] | None) -> bool:
    """Whether a meaning-only hit at `cosine` fails to stand out from the background."""
    return meaning_relevance(cosine, back) < 1.0


def combined(judgments: list[tuple[str, float]]) -> tuple[str, float]:
    """One result's (matched, relevance) from what each leg that found it said: the
    strongest leg's way of matching, and its relevance plus `BOTH` times the others'
    (words and meaning agreeing are more evidence than either alone)."""
    ranked = sorted(judgments, key=lambda j: (-j[1], -_RANK.get(j[0], 0)))
    best, rest = ranked[0], ranked[1:]
    return best[0], round(best[1] + BOTH * sum(r for _, r in rest), 3)
