"""A parsed query as Postgres full text: tsquery expressions, and literal (trigram) terms.

The same terms as local search (`search.query`): every positive term is
required for the strict match, any meaningful one for the fallback, and a
`-term` excludes. Words go through `english` full text (stemmed, like the
local index's porter stemmer). Identifiers (`parse_when`, `RECALL_HOME`,
`useEffect`, `src/app.py`) and CJK text, which full text splits or cannot
split, are matched as substrings instead, through the trigram index.
"""

from __future__ import annotations

import re

from recall.search.query import STOPWORDS, Term, has_cjk
from recall.sqltext import like_literal

CONFIG = "english"
_IDENT = re.compile(r"\w[_./:\\-]+\w|[a-z][A-Z]|\d[A-Za-z]|[A-Za-z]\d")


def literal(term: Term) -> bool:
    """Whether `term` is matched as a substring (an identifier or CJK), not as words."""
    return not term.phrase and (bool(_IDENT.search(term.text)) or has_cjk(term.text))


def like(text: str) -> str:
    """`text` anywhere in a value, for Postgres' LIKE (whose escape is the backslash)."""
    return f"%{like_literal(text)}%"


def _tsquery(term: Term, args: list[object]) -> str:
    if term.phrase:
        args.append(term.text)
        return f"phraseto_tsquery('{CONFIG}', %s)"
    if term.prefix:
        args.append("'" + term.text.replace("\\", "\\\\").replace("'", "''") + "':*")
        return f"to_tsquery('{CONFIG}', %s)"
    args.append(term.text)
    return f"plainto_tsquery('{CONFIG}', %s)"


def excluding(terms: list[Term], col: str, tsv: str) -> tuple[str, list[object]]:
    """` AND NOT (…)` leaving out what a `-term` of the query matches ('' when none does)."""
    args: list[object] = []
    negative = [condition(t, col, tsv, args) for t in terms if t.negated]
    return (" AND NOT (" + " OR ".join(negative) + ")" if negative else ""), args


def condition(term: Term, col: str, tsv: str, args: list[object]) -> str:
    if literal(term):
        args.append(like(term.text))
        return f"{col} ILIKE %s"
    return f"{tsv} @@ {_tsquery(term, args)}"


def match(
    terms: list[Term], col: str, tsv: str, every: bool, common: list[Term] | None = None
) -> tuple[str, list[object]] | None:
    """A WHERE condition over a text column and its tsvector: every positive term
    (`every`) or any meaningful one but the `common` ones, without the excluded terms;
    None when no term is left (or, for the fallback, when it would repeat the strict one)."""
    positive = [t for t in terms if not t.negated]
    if every:
        keep = positive
    else:
        keep = [
            t
            for t in positive
            if (t.phrase or t.text.lower() not in STOPWORDS) and t not in (common or [])
        ]
        if len(positive) <= 1:
            return None
    if not keep:
        return None
    args: list[object] = []
    joined = (" AND " if every else " OR ").join(condition(t, col, tsv, args) for t in keep)
    without, more = excluding(terms, col, tsv)
    return f"({joined}){without}", args + more


def rank_query(terms: list[Term]) -> tuple[str, list[object]]:
    """A tsquery of the positive words, OR-ed: what ts_headline marks in a snippet."""
    args: list[object] = []
    words = [t for t in terms if not t.negated and not literal(t)]
    if not words:
        return "''::tsquery", args
    return "(" + " || ".join(_tsquery(t, args) for t in words) + ")", args
