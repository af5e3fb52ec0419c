"""Search the team's index in one SQL statement, returning local search's `Result` records.

The legs are local search's, in Postgres: full text (`tsvector`, ranked by
BM25 as FTS5 ranks, `team.bm25`; every word first, any meaningful word when
that finds too few sessions, a title holding every word lifting its
session), identifiers and CJK as substrings through `pg_trgm`, and
pgvector's HNSW for meaning (local search's similarity floor). They are
fused in SQL by reciprocal rank (k = 60, the meaning list at
`fusion.MEANING_WEIGHT`), results holding every query word first, the time
decay applied to the fused score; without decay, the rows out (three times
the limit) are then ordered as local hybrid orders them (`_calibrated`: each
leg's judgement of each hit added, `search.fusion`). Filters (agent, project, person,
computer, dates) are in the WHERE clause of every leg, and row-level
security adds who may read what. Near-duplicate snippets are then dropped by
the core's Jaccard dedup, as locally.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from recall import _accel
from recall.record import Record, field, replace
from recall.search import bar, fusion
from recall.search.fusion import (
    EXACT_BONUS,
    MEANING_WEIGHT,
    MIN_STRENGTH,
    RRF_K,
    RRF_WEIGHTS,
    leg_strength,
    reciprocal,
)
from recall.search.modes import SEMANTIC_POOL
from recall.search.query import Query
from recall.search.rank import DEDUP_THRESHOLD
from recall.search.results import POOL, Filters, Result, plain
from recall.search.speaker import aimed_at
from recall.team import bm25, judge, schema, terms
from recall.team.connect import failure
from recall.team.vectors import VectorBytes
from recall.timeutil import format_ts

if TYPE_CHECKING:
    import psycopg

S = schema.SCHEMA
TEAM_PREFIX = "team:"
"""Team results carry `team:PERSON@COMPUTER` as their computer."""
HYBRID_KEYWORD, HYBRID_SEMANTIC = 10, 30
"""As `search.modes`: hybrid's keyword list holds 10 and its semantic list 30, whatever
the limit, and every candidate is ordered (`_calibrated`) before the cut, so the first
results do not depend on how many are asked for; a mode of one list ranks `POOL`
(keyword, decayed or not) or `SEMANTIC_POOL` (meaning) of them, as local search does.
The lists used to grow with the limit and the fused rows were cut at three times it by
plain RRF first, so a search for 1 could miss the result a search for 10 put first."""
SNIPPET_CHARS = 220
HEADLINE = "StartSel=\x02, StopSel=\x03, MaxWords=24, MinWords=10, MaxFragments=1"
TITLE_LIFT = 0.5
"""A title holding every word adds half its BM25 to its session's best message (as locally)."""
NEAR_DEPTH = 8
"""How much deeper the nearest-neighbour list goes when project, dates or `-words` filter
it after the index scan."""
CANDIDATES = 5_000
"""The most messages one leg scores with BM25. Postgres keeps a message's tsvector in the
row, so scoring reads every candidate from the table: a word in a tenth of a million
messages cost seconds. Past this many matches a leg scores the first found (index order),
and the other leg (meaning) and the every-word tier carry the ranking (docs/team.md)."""
TITLE_AVGDL = 8.0
"""The mean title length BM25 assumes for titles (in words)."""
_KEY = "person, computer, agent, session_id"
_JOIN = f"JOIN {S}.sessions s USING ({_KEY})"


def _ties(alias: str) -> str:
    """Equal scores in a fixed order, so a search for fewer results cuts the same list:
    the columns of the rows `alias` names that tell them apart."""
    columns = ("person", "computer", "agent", "session_id", "position")
    return ", ".join(f"{alias}.{c}" for c in columns)


class TeamFilters(Record):
    """Local search's filters plus the team's own: whose rows, from which computers."""

    base: Filters = field(default_factory=Filters)
    persons: list[str] = field(default_factory=list)
    computers: list[str] = field(default_factory=list)
    skip_own_computer: str | None = None
    """Leave out this person's rows of this computer (searched locally already)."""


def team_computer(person: str, computer: str) -> str:
    return f"{TEAM_PREFIX}{person}@{computer}"


class _Sql:
    """SQL text and its arguments, built in the order they appear."""

    def __init__(self) -> None:
        self.parts: list[str] = []
        self.args: list[object] = []

    def add(self, text: str, *args: object) -> _Sql:
        self.parts.append(text)
        self.args.extend(args)
        return self

    def extend(self, text: str, args: list[object]) -> _Sql:
        return self.add(text, *args)

    def text(self) -> str:
        return "".join(self.parts)


def _filters(q: _Sql, f: TeamFilters, ts: str | None, on: str = "s") -> None:
    """` AND …` over the rows `on` (sessions `s`, or chunks `c`: their own key columns) and
    the timestamp expression `ts`; None: only the filters on key columns (person, computer,
    agent), which a chunk carries itself."""
    b = f.base
    if b.agents:
        q.add(f" AND {on}.agent = ANY(%s)", list(b.agents))
    if f.persons:
        q.add(f" AND {on}.person = ANY(%s)", list(f.persons))
    if f.computers:
        q.add(f" AND {on}.computer = ANY(%s)", list(f.computers))
    if f.skip_own_computer is not None:
        q.add(f" AND NOT ({on}.person = current_user AND {on}.computer = %s)", f.skip_own_computer)
    if ts is None:
        return
    if b.project:
        q.add(f" AND {on}.project ILIKE %s", terms.like(b.project))
    if b.since is not None:
        q.add(f" AND {ts} >= %s", b.since)
    if b.until is not None:
        q.add(f" AND {ts} <= %s", b.until)


class _Plan(Record):
    """One search's shape: what a result stands for and how deep each list goes."""

    unit: str
    limit: int
    window: int
    kw_depth: int
    sem_depth: int
    hybrid: bool
    rows: int
    """The fused rows the SQL returns, best first by plain RRF or decay."""
    enough: int
    """Strict (every-word) hits below this many bring in the any-word fallback (`POOL`, as
    locally)."""


def _keyword(q: _Sql, query: Query, f: TeamFilters, p: _Plan, w: bm25.Weights) -> None:
    """The CTE `kw`: the keyword list, best message per unit, ranked, with its tier."""
    strict = terms.match(query.terms, "m.text", "m.tsv", every=True)
    loose = terms.match(query.terms, "m.text", "m.tsv", every=False, common=w.common)
    title = terms.match(query.terms, "s.title", "s.title_tsv", every=True)
    ts = "coalesce(m.ts, s.ended_at)"
    legs: list[str] = []
    for name, cond, tier in (("strict", strict, 1), ("loose", loose, 0)):
        if cond is None:
            continue
        q.add(f"{name} AS MATERIALIZED (SELECT c.person, c.computer, c.agent, c.session_id, ")
        q.extend(f"c.position, {S}.bm25(c.tsv, %s, %s, %s, c.words, %s) AS r, ", w.args())
        q.args.append(w.avgdl)
        q.add(
            f"{tier} AS tier FROM (SELECT m.person, m.computer, m.agent, m.session_id, "
            f"m.position, m.tsv, m.words FROM {S}.messages m {_JOIN} WHERE "
        )
        q.extend(cond[0], cond[1])
        _filters(q, f, ts)
        if name == "loose" and strict is not None:  # the fallback, only when needed
            q.add(f" AND (SELECT count(DISTINCT ({p.unit})) FROM strict) < %s", p.enough)
        q.add(" LIMIT %s) c ORDER BY r DESC LIMIT %s), ", CANDIDATES, p.window)
        legs.append(name)
    q.add(f"titled AS MATERIALIZED (SELECT {_KEY}, ")
    if title is not None and not p.unit.endswith("position"):  # a title is a session's
        q.extend(f"{S}.bm25(s.title_tsv, %s, %s, %s, length(s.title_tsv), ", w.args())
        q.add(f"%s) AS tr FROM {S}.sessions s WHERE ", TITLE_AVGDL)
        q.extend(title[0], title[1])
        _filters(q, f, "s.ended_at")
        q.add(" LIMIT %s), ", p.window)
    else:
        q.add(f"0.0::float8 AS tr FROM {S}.sessions s WHERE false), ")
    union = " UNION ALL ".join(f"SELECT * FROM {leg}" for leg in legs) or (
        f"SELECT {_KEY}, 0 AS position, 0.0::float8 AS r, 0 AS tier FROM {S}.sessions WHERE false"
    )
    lift = f"(CASE WHEN k.tier = 1 THEN {TITLE_LIFT} * coalesce(t.tr, 0) ELSE 0 END)"
    q.add(
        f"kw_all AS ({union}), "
        f"kw_best AS (SELECT DISTINCT ON ({p.unit}) * FROM kw_all "
        f"ORDER BY {p.unit}, tier DESC, r DESC), "
        f"kw AS (SELECT k.*, k.r + {lift} AS score, "
        f"row_number() OVER (ORDER BY k.tier DESC, k.r + {lift} DESC, {_ties('k')}) AS rank "
        f"FROM kw_best k LEFT JOIN titled t USING ({_KEY}) ORDER BY rank LIMIT %s), ",
        p.kw_depth,
    )


def _semantic(
    q: _Sql, query: Query, f: TeamFilters, p: _Plan, vector: VectorBytes, floor: float
) -> int:
    """The CTE `vec`: the nearest chunks (HNSW), best chunk per unit, above the floor.

    The index scan runs on the chunks alone, with the filters a chunk can answer itself
    (person, computer, agent) and row-level security in it, so pgvector's iterative scan
    keeps going until enough pass: joined to sessions and messages in the same statement,
    the planner chose a full scan and a sort (0.6 s at 100,000 vectors against 0.1 s).
    Filters on project and dates, and `-words`, are applied to those neighbours after,
    from a deeper list (`NEAR_DEPTH` times).
    """
    after = bool(f.base.project or f.base.since is not None or f.base.until is not None)
    after = after or any(t.negated for t in query.terms)
    k = max(p.sem_depth * 4, 40) * (NEAR_DEPTH if after else 1)
    q.add(
        "near_raw AS MATERIALIZED (SELECT c.person, c.computer, c.agent, c.session_id,"
        f" c.position, c.start, c.stop, c.embedding <=> %b AS d FROM {S}.chunks c WHERE true",
        vector,
    )
    _filters(q, f, None, on="c")
    q.add(" ORDER BY c.embedding <=> %b LIMIT %s), ", vector, k)
    q.add(
        f"near AS MATERIALIZED (SELECT n.* FROM near_raw n {_JOIN}"
        f" JOIN {S}.messages m USING ({_KEY}, position) WHERE true"
    )
    _filters(q, TeamFilters(base=f.base), "coalesce(m.ts, s.ended_at)")
    without, args = terms.excluding(query.terms, "m.text", "m.tsv")
    q.extend(without, args)
    q.add("), ")
    q.add(
        f"vec_best AS (SELECT DISTINCT ON ({p.unit}) * FROM near WHERE 1 - d >= %s "
        f"ORDER BY {p.unit}, d), "
        "vec AS (SELECT v.*, 1 - v.d AS score, row_number() OVER (ORDER BY v.d) AS rank "
        "FROM vec_best v ORDER BY v.d LIMIT %s), ",
        floor,
        p.sem_depth,
    )
    return k


def _fused(q: _Sql, p: _Plan, lists: list[str], decay: float) -> None:
    """The CTE `fused`: one row per unit, its fused score and whether it holds every word."""
    if lists == ["kw", "vec"]:
        cols = p.unit.split(", ")
        on = " AND ".join(f"kw.{c} = vec.{c}" for c in cols)
        keys = ", ".join(f"coalesce(kw.{c}, vec.{c}) AS {c}" for c in cols)
        pos = "" if "position" in cols else ", coalesce(kw.position, vec.position) AS position"
        w = (RRF_WEIGHTS[0], RRF_WEIGHTS[1] * MEANING_WEIGHT)  # as local hybrid weighs them
        q.add(
            f"fused AS (SELECT {keys}{pos}, kw.position IS NOT NULL AS worded, "
            "vec.start, vec.stop, coalesce(kw.tier = 1, false) AS exact, 1 - vec.d AS cos, "
            f"coalesce({w[0]} / ({RRF_K} + kw.rank), 0) + "
            f"coalesce({w[1]} / ({RRF_K} + vec.rank), 0) AS score, "
            "kw.rank AS kw_rank, vec.rank AS vec_rank "
            f"FROM kw FULL JOIN vec ON {on}) "
        )
    elif lists == ["kw"]:  # decayed, a list is fused with itself by rank (`search.fusion`)
        score = f"1.0 / ({RRF_K} + rank)" if decay > 0 else "score"
        q.add(
            f"fused AS (SELECT {_KEY}, position, true AS worded, NULL::int AS start, "
            f"NULL::int AS stop, tier = 1 AS exact, NULL::float8 AS cos, {score} AS score, "
            "NULL::bigint AS kw_rank, NULL::bigint AS vec_rank FROM kw) "
        )
    else:
        q.add(
            f"fused AS (SELECT {_KEY}, position, false AS worded, start, stop, "
            "false AS exact, 1 - d AS cos, score, NULL::bigint AS kw_rank, "
            "NULL::bigint AS vec_rank FROM vec) "
        )


def search(
    conn: psycopg.Connection[Any],
    query: Query,
    filters: TeamFilters,
    limit: int,
    vector: VectorBytes | None,
    keyword: bool = True,
    messages: bool = False,
    decay: float = 0.0,
    floor: float = 1.0,
) -> list[Result]:
    """The best `limit` results for `query` that this person may read.

    `vector`: the query's embedding by the team's model (None: keyword search);
    `keyword` False with a vector: semantic search alone; `floor`: the similarity a
    chunk must reach (`semantic.nearest.FLOOR`, handed in with the vector).
    """
    import psycopg

    hybrid = keyword and vector is not None
    unit = _KEY + (", position" if messages else "")
    if hybrid:
        depths = (HYBRID_KEYWORD, HYBRID_SEMANTIC)
        p = _Plan(unit, limit, 100, *depths, True, sum(depths), POOL)
    else:  # one list, ranked as deep as local ranks it whatever the limit
        kw_depth, sem_depth = max(POOL, limit), max(SEMANTIC_POOL, limit)
        returned = kw_depth if keyword else sem_depth
        p = _Plan(unit, limit, 10 * kw_depth, kw_depth, sem_depth, False, returned, POOL)
    try:
        with conn.transaction():
            q = _Sql().add("WITH ")
            lists: list[str] = []
            w = bm25.weights(conn, query.terms) if keyword else bm25.Weights()
            if keyword:
                _keyword(q, query, filters, p, w)
                lists.append("kw")
            back = None
            if vector is not None:
                back = judge.background(conn, vector)
                k = _semantic(q, query, filters, p, vector, floor)
                conn.execute("SET LOCAL hnsw.iterative_scan = relaxed_order")
                conn.execute("SELECT set_config('hnsw.ef_search', %s, true)", (str(min(k, 1000)),))
                lists.append("vec")
            _fused(q, p, lists, decay)
            _final(q, query, p, decay)
            rows = conn.execute(q.text(), q.args).fetchall()
    except psycopg.Error as exc:
        raise failure(exc) from None
    words = judge.word_weights(query, w)
    judged = [_legs(row, words, back) for row in rows]
    results = [_result(row, legs) for row, legs in zip(rows, judged, strict=True)]
    if p.hybrid and decay <= 0:
        about = aimed_at(query.text) if messages else None
        results = _calibrated(results, rows, judged, about)
    keep = _accel.dedup([plain(r.snippet) for r in results], DEDUP_THRESHOLD)
    return [results[i] for i in keep][:limit]


def _calibrated(
    results: list[Result],
    rows: list[tuple[Any, ...]],
    judged: list[list[tuple[str, float]]],
    about: str | None = None,
) -> list[Result]:
    """The fused rows in local hybrid's order (`search.fusion.fuse`): with `SCORED`, each
    leg's hit adds its judgement (`fusion.leg_score`), else each leg's reciprocal rank
    scaled by how well that leg's hit matched (`leg_strength`) and the meaning list by
    `MEANING_WEIGHT`; exact hits first. SQL fused plain ranks, which a meaning neighbour
    near the background wins as often as an answer by words; every row it returns
    (all of hybrid's candidates) is ordered again here; `about` as `fusion.scored` takes it."""
    scored = []
    for r, row, legs in zip(results, rows, judged, strict=True):
        kw_rank, vec_rank = row[16], row[17]
        worded = max((rel for matched, rel in legs if matched != bar.MEANING), default=0.0)
        said = fusion.SCORED and kw_rank is not None and r.role == about
        score = fusion.SPEAKER_BONUS * min(1.0, worded) if about and said else 0.0
        for matched, relevance in legs:
            meaning = matched == bar.MEANING
            rank = vec_rank if meaning else kw_rank
            if rank is None:
                continue
            if fusion.SCORED:
                score += fusion.leg_score(not meaning, matched, relevance, int(rank) - 1)
                continue
            weight = RRF_WEIGHTS[1] * MEANING_WEIGHT if meaning else RRF_WEIGHTS[0]
            strength = max(leg_strength(matched, relevance), MIN_STRENGTH)
            score += reciprocal(int(rank), weight * strength)
        pinned = bool(row[11])  # every query word held
        bonus = fusion.SCORED_BONUS if fusion.SCORED else EXACT_BONUS
        shown = float(f"{score + (bonus if pinned else 0.0):.6g}")
        scored.append((pinned, score, replace(r, score=shown)))
    scored.sort(key=lambda t: (t[0], t[1]), reverse=True)
    return [r for _, _, r in scored]


def _final(q: _Sql, query: Query, p: _Plan, decay: float) -> None:
    """The rows out: the fused order (exact hits pinned, as `search.fusion.fuse` pins them),
    decayed by age, with a highlighted snippet and each message's index in its session."""
    ts = "coalesce(m.ts, s.ended_at)"
    final = "f.score"
    if decay > 0:
        age = f"greatest(0, extract(epoch FROM now()) - {ts}) / 86400.0"
        final = f"f.score * CASE WHEN {ts} IS NULL THEN 1 ELSE exp(-%s * {age}) END"
    pinned = p.hybrid or decay > 0
    pin = f" + CASE WHEN f.exact THEN {EXACT_BONUS} ELSE 0 END" if pinned else ""
    q.add(f"SELECT f.person, f.computer, f.agent, f.session_id, s.project, s.title, {ts}, ")
    if decay > 0:
        q.args.append(decay)
    q.add(f"{final}{pin} AS final, f.worded, f.start, f.stop, f.exact, f.cos, ")
    q.add("CASE WHEN f.worded AND NOT f.exact THEN coalesce(s.title, '') || ' ' || m.text END, ")
    rank_sql, rank_args = terms.rank_query(query.terms)
    q.extend(
        f"CASE WHEN f.worded THEN ts_headline('{terms.CONFIG}', m.text, {rank_sql}, %s) "
        "ELSE m.text END, ",
        [*rank_args, HEADLINE],
    )
    q.add(
        f"(SELECT count(*) FROM {S}.messages x WHERE x.person = f.person AND "
        "x.computer = f.computer AND x.agent = f.agent AND x.session_id = f.session_id "
        f"AND x.position < f.position), f.kw_rank, f.vec_rank, m.role FROM fused f {_JOIN} "
        f"JOIN {S}.messages m USING ({_KEY}, position) "
        f"ORDER BY f.exact DESC, final DESC, {_ties('f')} LIMIT %s",
        p.rows,
    )


def _legs(
    row: tuple[Any, ...], words: tuple[list[str], list[float]], back: tuple[float, float] | None
) -> list[tuple[str, float]]:
    """What each leg that found this row says of it (`judge.legs`)."""
    worded, every, cosine, whole = row[8], row[11], row[12], row[13]
    return judge.legs(every, worded, whole or "", cosine, words, back)


def _result(row: tuple[Any, ...], legs: list[tuple[str, float]]) -> Result:
    (person, computer, agent, session_id, project, title, ts, score) = row[:8]
    worded, start, stop, _every, _cosine, _whole, text, index = row[8:16]
    matched, relevance = bar.combined(legs) if legs else ("", 0.0)
    if not worded:
        piece = " ".join(str(text)[start or 0 : stop].split())
        text = piece if len(piece) <= SNIPPET_CHARS else piece[: SNIPPET_CHARS - 1] + "…"
    return Result(
        session_id=session_id,
        agent=agent,
        project=project,
        computer=team_computer(person, computer),
        title=title,
        date=format_ts(ts),
        score=float(f"{float(score):.6g}"),
        snippet=" ".join(str(text).split()),
        message_index=int(index),
        role=str(row[18] or ""),
        matched=matched,
        relevance=relevance,
        weak=relevance < 1.0,
    )
