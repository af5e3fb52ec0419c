"""`recall search --mode keyword|semantic|hybrid`: pick the mode, degrade, never fail.

Hybrid is the default when the configured model has vectors. Without a
model, without vectors, or with `embedding = "none"`, every mode answers
with keyword results and one note saying why semantic search is off.

The query comes parsed and vetted (`search.asked`). Every list is ranked at a
fixed depth, whatever the limit, and cut to it last: a larger limit shows more
of the same ranking. A search the user made
keyword-only (`--mode keyword`, `embedding = "none"`) never imports
`recall.semantic`; numpy, onnxruntime and usearch load only when vectors exist.
"""

from __future__ import annotations

import sqlite3
from typing import TYPE_CHECKING

from recall.record import Record, replace
from recall.search.asked import Asked
from recall.search.fusion import Key, fuse, key
from recall.search.keyword import KeywordHits, keyword_search
from recall.search.query import STOPWORDS, Query, Term, excluded
from recall.search.results import POOL, Filters, Result, SearchOutput
from recall.search.source_sql import FileResult, MemoryResult, chunk_rows, memory_rows
from recall.search.speaker import aimed_at
from recall.search.typo import INDEXES

if TYPE_CHECKING:
    from recall.semantic.provider import Encoder

KEYWORD_DEPTH = 10
"""Hybrid's keyword list: its 10 best (the default limit; measured, see `_both`)."""
SEMANTIC_DEPTH = 30
"""Hybrid's semantic list: its 30 best (three times the default limit, as measured)."""
SEMANTIC_POOL = 100
"""`--mode semantic` alone ranks this many nearest results (no fusion to disturb)."""
SOURCE_FLOOR = 0.25
"""Cosine below which a memory or chunk is not found by meaning: the sessions' floor
(`semantic.nearest.FLOOR`), so that one search asks as much of every source. 0.15 let
unrelated memories answer nonsense and outrank exact matches elsewhere."""
NOTHING_EMBEDDED = "semantic search is off: nothing is embedded yet (`recall embed`)"
NO_MODEL = "semantic search is off: no embedding model (`recall model install`)"


class Outcome(Record):
    output: SearchOutput
    mode: str
    """The mode that actually ran."""
    note: str | None = None
    """Why semantic search was off, for stderr."""


def _any_vectors(db: sqlite3.Connection, model: str | None = None) -> bool:
    sql = "SELECT 1 FROM chunks" + (" WHERE model = ?" if model else "") + " LIMIT 1"
    try:
        return db.execute(sql, (model,) if model else ()).fetchone() is not None
    except sqlite3.OperationalError:
        return False


def _encoder(db: sqlite3.Connection, asked: bool) -> tuple[Encoder | None, str | None]:
    """The encoder to search with, or None and, when it is news, one short line why not.

    It is news when the user asked for semantic or hybrid search (`asked`),
    or when vectors exist but cannot be used. A default search on an index
    that was never embedded, or with `embedding = "none"`, is keyword search
    as chosen: nothing to say (`recall sync` says once how to turn it on).
    `embedding = "none"` is settled from the config alone; otherwise
    `semantic.provider` finds the model's id without loading the model.
    """
    from recall.config import embedding_provider

    if embedding_provider() == "none":
        return None, 'semantic search is off: embedding = "none" in config' if asked else None
    from recall.semantic import ModelError
    from recall.semantic.provider import current_model_id, get_encoder

    try:  # find the model id before loading the model: loading costs ~0.5 s
        if not _any_vectors(db, current_model_id()):
            return None, NOTHING_EMBEDDED if asked else None
        return get_encoder(query=True), None
    except ModelError:
        news = asked or _any_vectors(db)
        return None, NO_MODEL if news else None


def run(
    db: sqlite3.Connection,
    asked: Asked,
    filters: Filters,
    limit: int,
    mode: str | None = None,
    fusion: str = "rrf",
    decay: float = 0.0,
    messages: bool = False,
) -> Outcome:
    """Search the mirrors in `mode` (None: hybrid when vectors exist, else keyword); with
    `messages`, the best messages (several per session allowed) rather than the best
    sessions. The first `limit` of a ranking that does not depend on `limit`."""
    query = asked.query
    encoder, note = (None, None) if mode == "keyword" else _encoder(db, mode is not None)
    if encoder is None:
        if decay > 0:  # decay reorders: the pool is decayed, then cut
            hits = keyword_search(db, query, filters, POOL, messages)
            results = fuse([hits.results], fusion, limit, decay, messages, hits.exact)
        else:
            hits = keyword_search(db, query, filters, limit, messages)
            results = hits.results
        output = SearchOutput(query.text, len(results), results)
        return Outcome(output, "keyword", note)
    if mode == "semantic":
        semantic = _semantic(db, encoder, asked, filters, SEMANTIC_POOL, messages)
        if decay > 0:
            results = fuse([semantic], "weighted", limit, decay, messages)
        else:
            results = semantic[:limit]
        return Outcome(SearchOutput(query.text, len(results), results), "semantic")
    hits, semantic = _both(db, encoder, asked, filters, messages)
    unseen = _unembedded(db, encoder.model_id, hits.results, messages)
    about = aimed_at(query.text) if messages else None
    results = fuse(
        [hits.results, semantic], fusion, limit, decay, messages, hits.exact, unseen, about
    )
    output = SearchOutput(query.text, len(results), results)
    return Outcome(output, "hybrid")


def _both(
    db: sqlite3.Connection,
    encoder: Encoder,
    asked: Asked,
    filters: Filters,
    messages: bool = False,
) -> tuple[KeywordHits, list[Result]]:
    """The keyword and the semantic ranking to fuse, at fixed depths.

    The keyword list holds its 10 best. Deeper, keyword hits ranked 11-20 by
    BM25 but held by the meaning leg outranked the keyword leg's own best: at
    20, hybrid was under keyword on LoCoMo's session recall@10 (0.870 against
    0.884) and LongMemEval's message recall@5 (0.660 against 0.710); at 10 it
    is 0.884 and 0.714, LoCoMo's recall@5 goes 0.783 -> 0.793, for 0.010 of
    LongMemEval's (0.926 -> 0.916, keyword 0.874; docs/search-quality.md, "A
    shallower keyword list"). The semantic list (30) is deeper because it is
    cheap. Both were the depths at the default limit of 10, when they grew
    with the limit; fixed, a larger limit no longer changes the best results.
    Running the two legs on two threads was measured and gained nothing on two
    cores (onnxruntime already uses both), so they run in turn.
    """
    keyword = keyword_search(db, asked.query, filters, KEYWORD_DEPTH, messages)
    return keyword, _semantic(db, encoder, asked, filters, SEMANTIC_DEPTH, messages)


def _unembedded(
    db: sqlite3.Connection, model: str, results: list[Result], messages: bool
) -> set[Key]:
    """The keyword results the semantic leg could not see: sessions (with `messages`,
    messages) `model` has embedded nothing of yet, not even an opening (firstpass.py). The
    index is embedded newest first, so for a while the older part of it has keywords
    only (docs/semantic.md)."""
    from recall.semantic.vectors import SKIMMED

    out: set[Key] = set()
    seen = f"""(EXISTS (SELECT 1 FROM embedded e WHERE e.model = ? AND e.message = m.id)
                OR {SKIMMED})"""
    for r in results:
        if messages and r.message_index is not None:
            sql = f"""SELECT NOT EXISTS (SELECT 1 FROM messages m WHERE m.id = (
                         SELECT m2.id FROM messages m2 WHERE m2.session = s.id
                         ORDER BY m2.position LIMIT 1 OFFSET ?) AND {seen})"""
            args: tuple[object, ...] = (r.message_index, model, model)
        else:
            sql = f"SELECT NOT EXISTS (SELECT 1 FROM messages m WHERE m.session = s.id AND {seen})"
            args = (model, model)
        row = db.execute(
            f"{sql} FROM sessions s WHERE s.session_id = ? AND s.agent = ? AND s.computer = ?",
            (*args, r.session_id, r.agent, r.computer),
        ).fetchone()
        if row is not None and row[0]:
            out.add(key(r, messages))
    return out


def _semantic(
    db: sqlite3.Connection,
    encoder: Encoder,
    asked: Asked,
    filters: Filters,
    depth: int,
    messages: bool,
) -> list[Result]:
    """The semantic ranking of the query's positive terms: an excluded `-word` must not
    pull its neighbours in, and a query of exclusions alone has no meaning to embed.

    Nor has a query of words that neither the model nor the index knows: a word
    counts if it is in the model's vocabulary (stop words aside) or found in a
    message, so "zzzqqqxx" gets no semantic neighbours while "pandas" does.
    """
    from recall.semantic.nearest import semantic_search

    if not meant(asked, encoder):
        return []
    query = asked.query
    excluded_words = excluded(query.terms)
    found = semantic_search(db, encoder, query.words(), filters, depth, messages, excluded_words)
    return judged(asked, encoder, found)


def judged(asked: Asked, encoder: Encoder, found: list[Result]) -> list[Result]:
    """`found` (scored by cosine) marked as matched by meaning, weak where a hit does not
    stand out from the query's background (`search.bar`)."""
    from recall.search import bar

    back = backdrop(asked, encoder)
    out = []
    for r in found:
        relevance = bar.meaning_relevance(r.score, back)
        out.append(replace(r, matched=bar.MEANING, relevance=relevance, weak=relevance < 1.0))
    return out


def backdrop(asked: Asked, encoder: Encoder) -> tuple[float, float] | None:
    """The query's background in meaning (`bar.background`), worked out once per search."""
    if not asked.background_known:
        from recall.search.bar import background

        asked.background_known = True
        vec = encoder.embed([asked.query.words()])[0]
        asked.background = background(asked.db, encoder.model_id, vec)
    return asked.background


def meant(asked: Asked, encoder: Encoder) -> bool:
    """`has_meaning` of the asked query, worked out once per search."""
    if asked.meaning is None:
        asked.meaning = has_meaning(asked.db, encoder, asked.query)
    return asked.meaning


def has_meaning(db: sqlite3.Connection, encoder: Encoder, query: Query) -> bool:
    """Whether `query` has a positive word the model knows (stop words aside) or that is
    found in some source: the gate every semantic leg, sessions' or memories', passes."""
    from recall.semantic.meaning import model_knows

    positive = [t for t in query.terms if not t.negated]
    meant = [t for t in positive if t.phrase or t.text.lower() not in STOPWORDS]
    return any(model_knows(encoder, t.text) or _indexed(db, t) for t in meant)


def _indexed(db: sqlite3.Connection, term: Term) -> bool:
    for table in INDEXES:
        sql = f"SELECT 1 FROM {table} WHERE {table} MATCH ? LIMIT 1"
        try:
            if db.execute(sql, (term.fts(),)).fetchone() is not None:
                return True
        except sqlite3.OperationalError:  # an index without that table
            continue
    return False


def source_nearest(
    asked: Asked, filters: Filters, depth: int, kinds: str, computer: str
) -> list[Result]:
    """The memories (`kinds` 'memory') or chunks of files of `kinds` nearest the query in
    meaning: their vectors (`source_vectors`, written by `recall.memory.vectors`) by an
    exact dot product, none below `SOURCE_FLOOR`, an excluded `-word` left out."""
    from recall.config import embedding_provider

    if embedding_provider() == "none":
        return []
    from recall.semantic import ModelError
    from recall.semantic.provider import current_model_id, get_encoder

    db, query = asked.db, asked.query
    kind = "memory" if kinds == "memory" else "chunk"
    try:  # the model's id costs nothing; loading it only when there are vectors to compare
        model = current_model_id()
        rows = db.execute(
            "SELECT ref, vector FROM source_vectors WHERE kind = ? AND model = ?", (kind, model)
        ).fetchall()
        if not rows:
            return []
        encoder = get_encoder(query=True)  # the one a search's session leg loads too
    except ModelError:
        return []
    import numpy as np

    if not meant(asked, encoder):  # gibberish has no neighbours in meaning
        return []
    matrix = np.frombuffer(b"".join(v for _, v in rows), dtype="<f4").reshape(len(rows), -1)
    if matrix.shape[1] != encoder.dims:
        return []
    sims = matrix @ encoder.embed([query.words()])[0]  # an excluded word means nothing
    order = [i for i in np.argsort(-sims, kind="stable")[: depth * 3] if sims[i] >= SOURCE_FLOOR]
    refs = [int(rows[i][0]) for i in order]
    if (negative := excluded(query.terms)) and refs:  # a -word excludes in every mode
        table = "memories_fts" if kind == "memory" else "file_chunks_fts"
        marks = ",".join("?" * len(refs))
        sql = f"SELECT rowid FROM {table} WHERE {table} MATCH ? AND rowid IN ({marks})"
        banned = {int(r[0]) for r in db.execute(sql, [negative, *refs])}
        order = [i for i, ref in zip(order, refs, strict=True) if ref not in banned]
        refs = [ref for ref in refs if ref not in banned]
    scores = {ref: float(sims[i]) for ref, i in zip(refs, order, strict=True)}
    found: list[MemoryResult] | list[FileResult]
    if kind == "memory":
        found = memory_rows(db, refs, filters, scores, computer)
    else:
        found = chunk_rows(db, refs, filters, scores, kinds.split(","), computer)
    return judged(asked, encoder, list(found)[:depth])
