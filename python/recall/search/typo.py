"""Typo tolerance for keyword search: "prefernces" finds "preferences", and says so.

Only a query word that matches nothing in any source, and is no English word,
is corrected, and only to an indexed word of similar length within a small
edit distance (transpositions count as one), the most frequent first. Each
word is corrected on its own: "mathematca printer" becomes "mathematica
printer" though "printer" alone finds sessions. A real word is never turned
into another token (before, "deployment" became "delop", "invoice"
"invocation", "helm chart" "help charges"): a word of SCOWL's size-50 English
list (`english_words.txt.gz`, 72,000 words, read only when a word matches
nothing) is left as typed. The FTS index stores porter stems ("prefer" for
"preferences"), so the typed word is stemmed by FTS5's own stemmer (a temp
table) and compared stem to stem. The vocabulary is read through a `temp`
fts5vocab table, which a read-only connection may create. The correction is
shown as a word from the index ("lambdify", not the stem "lambdifi").
"""

from __future__ import annotations

import functools
import gzip
import sqlite3
import string

from recall.search.query import Query, Term

MAX_CANDIDATES = 5000


def _osa(a: str, b: str, limit: int | None = None) -> int:
    """Optimal string alignment distance (Levenshtein plus adjacent transpositions); with
    `limit`, any distance above it is returned as `limit + 1`, found as soon as a whole
    row exceeds it (most candidates are far, and stop after a letter or two)."""
    if limit is not None and abs(len(a) - len(b)) > limit:
        return limit + 1
    prev2: list[int] = []
    prev = list(range(len(b) + 1))
    for i in range(1, len(a) + 1):
        cur = [i] + [0] * len(b)
        for j in range(1, len(b) + 1):
            cost = 0 if a[i - 1] == b[j - 1] else 1
            cur[j] = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost)
            if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                cur[j] = min(cur[j], prev2[j - 2] + 1)
        if limit is not None and min(cur) > limit:
            return limit + 1
        prev2, prev = prev, cur
    return prev[-1]


def _allowed(word: str) -> int:
    """Edits a typo of a word this long may hold: none below 4 letters, one up to 8,
    two from 9."""
    return 0 if len(word) < 4 else 1 if len(word) <= 8 else 2


WORDS = "english_words.txt.gz"
"""The English words (4 letters or more) never corrected; licence in english_words.LICENSE."""


@functools.cache
def english() -> frozenset[str]:
    """The English word list, loaded once and only when a word matches nothing (about
    30 ms), so a keyword search whose words are all indexed never pays for it."""
    from importlib.resources import files

    raw = files("recall.search").joinpath(WORDS).read_bytes()
    return frozenset(gzip.decompress(raw).decode("ascii").split())


def is_english(word: str) -> bool:
    """Whether `word` (any case, outer punctuation aside) is an English word: never a typo."""
    return word.lower().strip(string.punctuation) in english()


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


def _stem_table(db: sqlite3.Connection) -> None:
    """The temp table FTS5's porter stemmer runs on, and its vocabulary."""
    db.execute(
        "CREATE VIRTUAL TABLE IF NOT EXISTS temp.recall_stem"
        " USING fts5(t, tokenize='porter unicode61 remove_diacritics 2')"
    )
    db.execute(
        "CREATE VIRTUAL TABLE IF NOT EXISTS temp.recall_stem_vocab"
        " USING fts5vocab(temp, recall_stem, row)"
    )
    db.execute("DELETE FROM temp.recall_stem")


def stem(db: sqlite3.Connection, word: str) -> str:
    """`word` as the index stores it: FTS5's own porter stemmer, run on a temp table."""
    _stem_table(db)
    db.execute("INSERT INTO temp.recall_stem(t) VALUES (?)", (word,))
    row = db.execute("SELECT term FROM temp.recall_stem_vocab LIMIT 1").fetchone()
    return str(row[0]) if row else word.lower()


def stems(db: sqlite3.Connection, text: str) -> set[str]:
    """Every stem of `text`, as the index makes them (for comparing a text with a query)."""
    _stem_table(db)
    db.execute("INSERT INTO temp.recall_stem(t) VALUES (?)", (text,))
    return {str(r[0]) for r in db.execute("SELECT term FROM temp.recall_stem_vocab")}


def documents(db: sqlite3.Connection, term: str, table: str = MESSAGES) -> int:
    """How many rows of `table` hold the stem `term` (the index's own count)."""
    try:
        vocab = _vocab(db, table)
    except sqlite3.OperationalError:  # an index this database lacks holds nothing
        return 0
    row = db.execute(f"SELECT doc FROM temp.{vocab} WHERE term = ?", (term,)).fetchone()
    return int(row[0]) if row else 0


def _correctable(word: str) -> bool:
    """Whether `word` could be corrected at all: letters only, 4 or more of them."""
    word = word.strip(string.punctuation)
    return len(word) >= 4 and word.isalpha()


SHORTLIST = 16
"""Stems whose written forms are compared with the typed word (the nearest first)."""
FORMS = 20
"""Messages whose highlighted words give a stem's written forms."""

Candidate = tuple[int, int, int, str, str]
"""(edits from the typed word, edits stem to stem, -documents, stem, written form)."""


def _stem_edits(word: str, typed: str, term: str, allowed: int) -> int | None:
    """Edits between `term` (an indexed stem) and the typed word: stem to stem, or,
    when the typo broke the suffix the stemmer would strip ("cachong" for "caching",
    whose stem is "cach"), the typed word's start to the stem. None when too far."""
    best = allowed + 1
    if abs(len(term) - len(typed)) <= allowed:
        best = _osa(typed, term, allowed)
    # a typed word's start is compared only with stems that begin as it nearly does
    if best and len(term) < len(word) and term[1:2] in word[1:3]:
        for cut in (len(term), len(term) + 1):
            if 3 <= cut <= len(word):
                best = min(best, _osa(word[:cut], term, allowed))
    return best if best <= allowed else None


def _nearest(db: sqlite3.Connection, word: str, table: str) -> Candidate | None:
    """The written word of `table` nearest to `word`, compared across indexes.

    Stems close to the typed word's are shortlisted (the nearest, then those in most
    messages); then each one's written forms in the index are compared with what was
    typed, and the nearest form wins, if it is within the edits allowed: "runing" is
    "running" (one edit), not "rule" (whose stem is as near to the stem "rune"). A short
    word (under 6 letters) is never corrected to a shorter form ("redis" never becomes
    "red"), only to one as long or one letter longer ("qury" is "query").
    """
    word = word.lower().strip(string.punctuation)
    if len(word) < 4 or not word.isalpha():
        return None
    allowed = _allowed(word)
    typed = stem(db, word)
    try:
        vocab = _vocab(db, table)
    except sqlite3.OperationalError:  # an index this database lacks has no words
        return None
    rows = db.execute(
        f"SELECT term, doc FROM temp.{vocab} WHERE term >= ? AND term < ? LIMIT ?",
        (word[:1], word[:1] + "\U0010ffff", MAX_CANDIDATES),
    ).fetchall()
    near: list[tuple[int, int, str]] = []
    for term, docs in rows:
        if len(term) < 3 or len(term) > len(word) + allowed:
            continue
        d = _stem_edits(word, typed, term, allowed)
        if d is not None:
            near.append((d, -int(docs), term))
    best: Candidate | None = None
    for d, docs, term in sorted(near)[:SHORTLIST]:
        for form in _forms(db, term, table):
            if len(word) < 6 and not len(word) <= len(form) <= len(word) + 1:
                continue
            edits = _osa(word, form)
            if 0 < edits <= allowed:
                key = (edits, d, docs, term, form)
                if best is None or key < best:
                    best = key
    return best


def _forms(db: sqlite3.Connection, term: str, table: str) -> set[str]:
    """The words of the index that have `term` as their stem, as written (lowercased):
    the highlighted words of a few messages that hold it. Asked as a prefix, which FTS5
    does not stem again (the stem "databas", asked as a word, is stemmed to "databa")."""
    quoted = '"' + term.replace('"', '""') + '"*'
    found: set[str] = set()
    columns = ", ".join(
        f"highlight({table}, {n}, char(2), char(3))" for n in range(COLUMNS.get(table, 1))
    )
    for row in db.execute(
        f"SELECT {columns} FROM {table} WHERE {table} MATCH ? LIMIT {FORMS}", (quoted,)
    ):
        for text in row:
            for piece in str(text or "").split("\x02")[1:]:
                found.add(piece.split("\x03", 1)[0].lower())
    return found


COLUMNS = {"file_chunks_fts": 2}
"""Indexed columns of the indexes with more than one (file chunks: heading, text)."""


def correct(
    db: sqlite3.Connection, terms: list[Term], tables: tuple[str, ...] = INDEXES
) -> Query | None:
    """The query with each word that matches nothing in any source, and is no English
    word, replaced by its closest word in `tables` (the nearest, then the most frequent,
    across them), or None.
    A search runs this once and hands the result to every source (`search.engine`)."""
    changed = False
    fixed: list[Term] = []
    for term in terms:
        text = term.text
        if (
            not term.negated
            and not term.phrase
            and not term.prefix
            and _correctable(text)
            and not found_anywhere(db, text)
            and not is_english(text)
        ):
            found = [hit for table in tables if (hit := _nearest(db, text, table))]
            if found:
                text, changed = min(found)[-1], True
        fixed.append(Term(text, phrase=term.phrase, prefix=term.prefix, negated=term.negated))
    if not changed:
        return None
    shown = " ".join(("-" if t.negated else "") + t.text + ("*" if t.prefix else "") for t in fixed)
    return Query(shown, fixed)
