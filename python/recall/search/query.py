"""Turning what a user typed into a safe FTS5 query.

A query is text, never syntax: every term is quoted, so quotes, dashes,
colons, parentheses, `AND`, `NEAR` and emoji cannot produce an FTS5 error.
Supported on purpose: "quoted phrases", `prefix*`, and a leading `-` to
exclude a term.
"""

from __future__ import annotations

import re

from recall.record import Record
from recall.sqltext import fts_string
from recall.textutil import scrub

MAX_TERMS = 32
_TOKEN = re.compile(r'(-?)"([^"]*)"?|(\S+)')
# Characters FTS5's unicode61 tokenizer treats as separators (it indexes
# letters, digits and a few marks); a term made only of them matches nothing.
_WORDISH = re.compile(r"\w", re.UNICODE)
# Words too common to rank by: dropped only from the any-word fallback query.
_STOPWORDS = (
    "a an and are as at be but by can could did do does for from had has have how i if in "
    "into is it its me my no not of on or our so that the their them then there these they "
    "this to us was we were what when where which who why will with would you your about "
    "should"
)
STOPWORDS = frozenset(_STOPWORDS.split())


class Term(Record, frozen=True):
    text: str
    phrase: bool = False
    prefix: bool = False
    negated: bool = False

    def fts(self) -> str:
        quoted = fts_string(self.text)
        return quoted + "*" if self.prefix else quoted


class Query(Record, frozen=True):
    """A query as every leg uses it: the text, scrubbed once, and its terms, parsed once."""

    text: str
    terms: list[Term]

    def words(self) -> str:
        """What BM25 scores against: the positive terms (an excluded `-term` must not
        make a candidate containing it score higher)."""
        return " ".join(t.text for t in self.terms if not t.negated)


def parse(text: str) -> Query:
    """The user's text as a `Query`. A non-UTF-8 argv arrives with lone surrogates,
    which SQLite cannot bind: they become U+FFFD here, once."""
    text = scrub(text)
    return Query(text, parse_query(text))


def parse_query(query: str) -> list[Term]:
    """Split a user's (scrubbed) query into terms (at most MAX_TERMS)."""
    terms: list[Term] = []
    # SQLite would end the FTS5 string at a NUL.
    query = query.replace("\x00", " ")
    for m in _TOKEN.finditer(query):
        if m.group(2) is not None:
            text, phrase, negated = m.group(2).strip(), True, bool(m.group(1))
        else:
            raw = m.group(3)
            negated = raw.startswith("-") and len(raw) > 1 and raw[1].isalpha()
            text, phrase = (raw[1:] if negated else raw), False
        prefix = not phrase and text.endswith("*") and len(text.rstrip("*")) >= 2
        text = text.rstrip("*") if prefix else text
        if not _WORDISH.search(text):
            continue
        terms.append(Term(text, phrase=phrase, prefix=prefix, negated=negated))
        if len(terms) >= MAX_TERMS:
            break
    return terms


def match_all(terms: list[Term]) -> str | None:
    """An FTS5 expression requiring every positive term (None if there is none)."""
    positive = [t.fts() for t in terms if not t.negated]
    if not positive:
        return None
    expr = " AND ".join(positive)
    negative = excluded(terms)
    return f"({expr}) NOT ({negative})" if negative else expr


def excluded(terms: list[Term]) -> str | None:
    """An FTS5 expression matching any `-word` of the query (None if there is none): what
    every mode, the semantic legs too, leaves out."""
    negative = [t.fts() for t in terms if t.negated]
    return " OR ".join(negative) if negative else None


def match_any(terms: list[Term], common: frozenset[Term] = frozenset()) -> str | None:
    """An FTS5 expression matching any meaningful term: the fallback for prose questions.

    Stopwords and the `common` terms (words found in much of the index, which
    BM25 weighs at almost nothing but which cost a scan of most of it) are left
    out; None when nothing is left or the result would repeat `match_all`.
    """
    positive = [t for t in terms if not t.negated]
    keep = [
        t for t in positive if (t.phrase or t.text.lower() not in STOPWORDS) and t not in common
    ]
    if not keep or len(positive) == 1:
        return None
    expr = " OR ".join(t.fts() for t in keep)
    negative = excluded(terms)
    return f"({expr}) NOT ({negative})" if negative else expr


def has_cjk(text: str) -> bool:
    """Whether `text` holds CJK characters, which unicode61 cannot split into words."""
    return any(
        "\u3040" <= ch <= "\u30ff" or "\u3400" <= ch <= "\u9fff" or "\uac00" <= ch <= "\ud7af"
        for ch in text
    )
