"""The query one search asks of every source: parsed and vetted once, corrected at most once.

Each source (the mirrors, memories, file chunks, each by words and by meaning)
is handed the same `Asked`: the parsed query, its typo-corrected form worked
out the first time a source finds too few (and shared, so a four-word query
that finds nothing costs one correction, not one per source), and whether the
query has meaning for the semantic legs, also asked once.
"""

from __future__ import annotations

import sqlite3

from recall.errors import UsageError
from recall.search.query import Query, parse
from recall.search.typo import INDEXES, correct

NO_WORDS = "the query has no words: give words to search for"


def prepare(text: str) -> Query:
    """`text` parsed (scrubbed once), or UsageError when no word is left to search for."""
    query = parse(text)
    if not query.terms:
        raise UsageError(NO_WORDS)
    return query


class Asked:
    """One search's query, shared by its sources (see the module)."""

    def __init__(
        self, db: sqlite3.Connection, query: Query, tables: tuple[str, ...] = INDEXES
    ) -> None:
        self.db = db
        self.query = query
        self.tables = tables
        """The indexes the search reads: where a corrected word is looked for."""
        self.meaning: bool | None = None
        """Whether the query has a word the model or the index knows (`modes.has_meaning`),
        once a semantic leg has asked."""
        self.background: tuple[float, float] | None = None
        """The query's cosine mean and spread over a sample of chunks (`bar.background`),
        once a semantic leg has asked (`modes.backdrop`); None when there is none."""
        self.background_known = False
        self._fixed: Query | None = None
        self._tried = False

    def corrected(self) -> Query | None:
        """The query with its words that match nothing in any source replaced by their
        nearest indexed word, or None; worked out on the first call only."""
        if not self._tried:
            self._tried = True
            self._fixed = correct(self.db, self.query.terms, self.tables)
        return self._fixed
