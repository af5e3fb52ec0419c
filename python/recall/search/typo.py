"""Typo tolerance for keyword search: "prefernces" finds "preferences".

A query word that matches no message is replaced by the closest indexed term.
The FTS index stores porter stems ("prefer" for "preferences"), and a stem is
usually a prefix of its words, so a candidate is scored by the edit distance
between it and the typed word's prefix of about the same length. The
vocabulary is read through a `temp` fts5vocab table, which a read-only
connection may create.
"""

from __future__ import annotations

import sqlite3
import string

from recall.search.query import Query, Term

MAX_CANDIDATES = 5000


def _osa(a: str, b: str) -> int:
    """Optimal string alignment distance (Levenshtein plus adjacent transpositions)."""
    prev2: list[int] = []
    prev = list(range(len(b) + 1))
    for i in range(1, len(a) + 1):
        cur = [i] + [0] * len(b)
        for j in range(1, len(b) + 1):
            cost = 0 if a[i - 1] == b[j - 1] else 1
            cur[j] = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost)
            if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                cur[j] = min(cur[j], prev2[j - 2] + 1)
        prev2, prev = prev, cur
    return prev[-1]


def _distance(word: str, stem: str) -> int:
    """How far `word` is from being a word whose stem is `stem`."""
    best = len(word) + len(stem)
    for length in (len(stem) - 1, len(stem), len(stem) + 1):
        if 0 < length <= len(word) and len(word) - length <= 4:
            best = min(best, _osa(word[:length], stem))
    return best


def _has_hits(db: sqlite3.Connection, word: str) -> bool:
    quoted = '"' + word.replace('"', '""') + '"'
    try:
        return (
            db.execute(
                "SELECT 1 FROM messages_fts WHERE messages_fts MATCH ? LIMIT 1", (quoted,)
            ).fetchone()
            is not None
        )
    except sqlite3.OperationalError:
        return True  # not a word FTS can look up: leave it alone


def _vocab(db: sqlite3.Connection) -> None:
    db.execute(
        "CREATE VIRTUAL TABLE IF NOT EXISTS temp.recall_vocab"
        " USING fts5vocab(main, messages_fts, row)"
    )


def closest(db: sqlite3.Connection, word: str) -> str | None:
    """The indexed term nearest to `word`, if one is close enough to be a typo of it."""
    word = word.lower().strip(string.punctuation)
    if len(word) < 4 or not word.isalpha():
        return None
    _vocab(db)
    allowed = 1 if len(word) <= 5 else 2
    rows = db.execute(
        "SELECT term, doc FROM temp.recall_vocab WHERE term >= ? AND term < ? LIMIT ?",
        (word[:1], word[:1] + "\U0010ffff", MAX_CANDIDATES),
    ).fetchall()
    best: tuple[int, int, int, str] | None = None
    for term, docs in rows:
        if abs(len(term) - len(word)) > 5 or len(term) < 3:
            continue
        d = _distance(word, term)
        if d <= allowed:
            key = (d, -len(term), -int(docs), term)
            if best is None or key < best:
                best = key
    return best[3] if best else None


def correct(db: sqlite3.Connection, terms: list[Term]) -> Query | None:
    """The query with each word that matches nothing replaced by its closest term, or None."""
    changed = False
    fixed: list[Term] = []
    for term in terms:
        text = term.text
        if not term.negated and not term.phrase and not term.prefix and not _has_hits(db, text):
            close = closest(db, text)
            if close and close != text.lower():
                text, changed = close, True
        fixed.append(Term(text, phrase=term.phrase, prefix=term.prefix, negated=term.negated))
    if not changed:
        return None
    shown = " ".join(("-" if t.negated else "") + t.text + ("*" if t.prefix else "") for t in fixed)
    return Query(shown, fixed)
