"""Typo tolerance for keyword search: "prefernces" finds "preferences", and says so.

Only a query word that matches nothing in any source is corrected, and only to an
indexed word of similar length within a small edit distance, the most
frequent first. The FTS index stores porter stems ("prefer" for
"preferences"), so the typed word is stemmed by FTS5's own stemmer (a temp
table) and compared stem to stem. The vocabulary is read through a `temp`
fts5vocab table, which a read-only connection may create. The correction is
shown as a word from the index ("lambdify", not the stem "lambdifi").
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


def _allowed(word: str) -> int:
    """Edits a typo of a word this long may hold: none below 4 letters, one up to 8,
    two from 9."""
    return 0 if len(word) < 4 else 1 if len(word) <= 8 else 2


MESSAGES = "messages_fts"
"""The index corrected by default; memories and file chunks pass their own."""


INDEXES = (MESSAGES, "memories_fts", "file_chunks_fts")
"""Every source's index: a word found in any of them is not a typo."""


def _has_hits(db: sqlite3.Connection, word: str, table: str = MESSAGES) -> bool:
    quoted = '"' + word.replace('"', '""') + '"'
    try:
        return (
            db.execute(f"SELECT 1 FROM {table} WHERE {table} MATCH ? LIMIT 1", (quoted,)).fetchone()
            is not None
        )
    except sqlite3.OperationalError as exc:
        # an index this database lacks holds nothing; a word FTS cannot look up is left alone
        return "no such table" not in str(exc)


def found_anywhere(db: sqlite3.Connection, word: str) -> bool:
    """Whether `word` is in any source: a word the user remembered or wrote is no typo."""
    return any(_has_hits(db, word, table) for table in INDEXES)


def _vocab(db: sqlite3.Connection, table: str = MESSAGES) -> str:
    """The temp fts5vocab table over `table`, created once per connection; its name."""
    name = "recall_vocab" if table == MESSAGES else f"recall_vocab_{table}"
    db.execute(
        f"CREATE VIRTUAL TABLE IF NOT EXISTS temp.{name} USING fts5vocab(main, {table}, row)"
    )
    return name


def stem(db: sqlite3.Connection, word: str) -> str:
    """`word` as the index stores it: FTS5's own porter stemmer, run on a temp table."""
    db.execute(
        "CREATE VIRTUAL TABLE IF NOT EXISTS temp.recall_stem"
        " USING fts5(t, tokenize='porter unicode61 remove_diacritics 2')"
    )
    db.execute(
        "CREATE VIRTUAL TABLE IF NOT EXISTS temp.recall_stem_vocab"
        " USING fts5vocab(temp, recall_stem, row)"
    )
    db.execute("DELETE FROM temp.recall_stem")
    db.execute("INSERT INTO temp.recall_stem(t) VALUES (?)", (word,))
    row = db.execute("SELECT term FROM temp.recall_stem_vocab LIMIT 1").fetchone()
    return str(row[0]) if row else word.lower()


def closest(db: sqlite3.Connection, word: str, table: str = MESSAGES) -> str | None:
    """The indexed stem nearest to `word`'s, if it is close enough to be a typo of it.

    Stems are compared with stems, so length says something: a candidate
    differs by at most as many letters as edits are allowed, a short word
    (under 6 letters) only by substitution or transposition, never by a
    dropped letter ("redis" never becomes "red"), and among equally close
    candidates the one in most messages wins.
    """
    best = _nearest(db, word, table)
    return best[2] if best else None


def _nearest(db: sqlite3.Connection, word: str, table: str) -> tuple[int, int, str] | None:
    """`closest`'s candidate as (edits, -documents, stem), to compare across indexes."""
    word = word.lower().strip(string.punctuation)
    if len(word) < 4 or not word.isalpha():
        return None
    typed = stem(db, word)
    allowed = _allowed(word)
    if not allowed:
        return None
    try:
        vocab = _vocab(db, table)
    except sqlite3.OperationalError:  # an index this database lacks has no words
        return None
    rows = db.execute(
        f"SELECT term, doc FROM temp.{vocab} WHERE term >= ? AND term < ? LIMIT ?",
        (typed[:1], typed[:1] + "\U0010ffff", MAX_CANDIDATES),
    ).fetchall()
    best: tuple[int, int, str] | None = None
    for term, docs in rows:
        if abs(len(term) - len(typed)) > allowed or len(term) < 4:
            continue
        if len(word) < 6 and len(term) != len(typed):
            continue
        d = _osa(typed, term)
        if 0 < d <= allowed:
            key = (d, -int(docs), term)
            if best is None or key < best:
                best = key
    return best


def shown_word(db: sqlite3.Connection, term: str, table: str = MESSAGES) -> str:
    """A word of the index that has `term` as its stem, as a person wrote it (for saying
    "showing results for …"): the first highlighted match, lowercased."""
    quoted = '"' + term.replace('"', '""') + '"'
    row = db.execute(
        f"SELECT highlight({table}, 0, char(2), char(3)) FROM {table}"
        f" WHERE {table} MATCH ? LIMIT 1",
        (quoted,),
    ).fetchone()
    if row and "\x02" in row[0]:
        return str(row[0].split("\x02", 1)[1].split("\x03", 1)[0]).lower()
    return term


def correct(
    db: sqlite3.Connection, terms: list[Term], tables: tuple[str, ...] = INDEXES
) -> Query | None:
    """The query with each word that matches nothing in any source replaced by its
    closest word in `tables` (the nearest, then the most frequent, across them), or None.
    A search runs this once and hands the result to every source (`search.engine`)."""
    changed = False
    fixed: list[Term] = []
    for term in terms:
        text = term.text
        if (
            not term.negated
            and not term.phrase
            and not term.prefix
            and not found_anywhere(db, text)
        ):
            found = [(hit, table) for table in tables if (hit := _nearest(db, text, table))]
            if found:
                (_, _, close), table = min(found)
                text, changed = shown_word(db, close, table), True
        fixed.append(Term(text, phrase=term.phrase, prefix=term.prefix, negated=term.negated))
    if not changed:
        return None
    shown = " ".join(("-" if t.negated else "") + t.text + ("*" if t.prefix else "") for t in fixed)
    return Query(shown, fixed)
