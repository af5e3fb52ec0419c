"""Search the team's index in one SQL statement, returning local search's `Result` records.

The legs are local search's, in Postgres: full text (`tsvector`, every word
first, any meaningful word when that finds too few sessions, a title that
holds every word lifting its session), identifiers and CJK as substrings
through `pg_trgm`, and pgvector's HNSW for meaning (the same similarity
floor). They are fused in SQL as local hybrid search fuses them
(`search.fusion`): reciprocal rank with k = 60 and equal weights, results
holding every query word first, the time decay applied to the fused score.
Filters (agent, project, person, computer, dates) are in the WHERE clause
of every leg, and row-level security adds who may read what. Near-duplicate
snippets are then dropped by the core's Jaccard dedup, as locally.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from recall import _accel
from recall.record import Record, field
from recall.search.fusion import EXACT_BONUS, RRF_K, RRF_WEIGHTS
from recall.search.query import Query
from recall.search.rank import DEDUP_THRESHOLD
from recall.search.results import Filters, Result, plain
from recall.team import schema, terms
from recall.team.vectors import VectorBytes
from recall.timeutil import format_ts

if TYPE_CHECKING:
    import psycopg

S = schema.SCHEMA
TEAM_PREFIX = "team:"
"""Team results carry `team:PERSON@COMPUTER` as their computer."""
KEYWORD_DEPTH = 2
SEMANTIC_DEPTH = 3
"""As `search.modes`: the keyword list holds twice the results wanted (at least 10 of
them), the semantic list three times (at least 30)."""
SNIPPET_CHARS = 220
HEADLINE = "StartSel=\x02, StopSel=\x03, MaxWords=24, MinWords=10, MaxFragments=1"
TITLE_LIFT = 0.5
"""A title holding every word adds half its rank to its session's best message (as locally)."""


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


def _filters(q: _Sql, f: TeamFilters, ts: str) -> None:
    """` AND …` over sessions `s` and the timestamp expression `ts`."""
    b = f.base
    if b.agents:
        q.add(" AND s.agent = ANY(%s)", list(b.agents))
    if b.project:
        q.add(" AND s.project ILIKE %s", terms.like(b.project))
    if b.since is not None:
        q.add(f" AND {ts} >= %s", b.since)
    if b.until is not None:
        q.add(f" AND {ts} <= %s", b.until)
    if f.persons:
        q.add(" AND s.person = ANY(%s)", list(f.persons))
    if f.computers:
        q.add(" AND s.computer = ANY(%s)", list(f.computers))
    if f.skip_own_computer is not None:
        q.add(" AND NOT (s.person = current_user AND s.computer = %s)", f.skip_own_computer)


_KEY = "person, computer, agent, session_id"
_JOIN = f"JOIN {S}.sessions s USING ({_KEY})"


def _keyword(q: _Sql, query: Query, f: TeamFilters, unit: str, window: int, depth: int, limit: int) -> None:
    """The CTE `kw`: the keyword list, best message per unit, ranked, with its tier."""
    rank_sql, rank_args = terms.rank_query(query.terms)
    strict = terms.match(query.terms, "m.text", "m.tsv", every=True)
    loose = terms.match(query.terms, "m.text", "m.tsv", every=False)
    title = terms.match(query.terms, "s.title", "s.title_tsv", every=True)
    ts = "coalesce(m.ts, s.ended_at)"
    legs: list[str] = []
    for name, cond, tier in (("strict", strict, 1), ("loose", loose, 0)):
        if cond is None:
            continue
        q.add(f"{name} AS MATERIALIZED (SELECT m.{_KEY.replace(', ', ', m.')}, m.position, ")
        q.extend(f"ts_rank(m.tsv, {rank_sql}, 1) AS r, {tier} AS tier ", rank_args)
        q.add(f"FROM {S}.messages m {_JOIN} WHERE ")
        q.extend(cond[0], cond[1])
        _filters(q, f, ts)
        if name == "loose" and strict is not None:  # the fallback, only when needed
            q.add(f" AND (SELECT count(DISTINCT ({unit})) FROM strict) < %s", limit)
        q.add(" ORDER BY r DESC LIMIT %s), ", window)
        legs.append(name)
    if title is not None:
        q.add(f"titled AS MATERIALIZED (SELECT {_KEY}, ")
        q.extend(f"ts_rank(s.title_tsv, {rank_sql}, 1) AS tr FROM {S}.sessions s WHERE ", rank_args)
        q.extend(title[0], title[1])
        _filters(q, f, "s.ended_at")
        q.add(" LIMIT %s), ", window)
    else:
        q.add(f"titled AS (SELECT {_KEY}, 0.0::real AS tr FROM {S}.sessions s WHERE false), ")
    union = " UNION ALL ".join(f"SELECT * FROM {leg}" for leg in legs) or (
        f"SELECT {_KEY}, 0 AS position, 0.0::real AS r, 0 AS tier FROM {S}.sessions s WHERE false"
    )
    lift = f"(CASE WHEN k.tier = 1 THEN {TITLE_LIFT} * coalesce(t.tr, 0) ELSE 0 END)"
    q.add(
        f"kw_all AS ({union}), "
        f"kw_best AS (SELECT DISTINCT ON ({unit}) * FROM kw_all ORDER BY {unit}, tier DESC, r DESC), "
        f"kw AS (SELECT k.*, k.r + {lift} AS score, row_number() OVER "
        f"(ORDER BY k.tier DESC, k.r + {lift} DESC) AS rank "
        f"FROM kw_best k LEFT JOIN titled t USING ({_KEY}) "
        f"ORDER BY rank LIMIT %s), ",
        depth,
    )


def _semantic(q: _Sql, query: Query, f: TeamFilters, unit: str, vector: VectorBytes, k: int, depth: int, floor: float) -> None:
    """The CTE `vec`: the nearest chunks (HNSW), best chunk per unit, above the floor."""
    q.add(
        f"near AS MATERIALIZED (SELECT c.{_KEY.replace(', ', ', c.')}, c.position, c.start, "
        f"c.stop, c.embedding <=> %b AS d FROM {S}.chunks c {_JOIN} "
        f"JOIN {S}.messages m USING ({_KEY}, position) WHERE true",
        vector,
    )
    _filters(q, f, "coalesce(m.ts, s.ended_at)")
    negative = [t for t in query.terms if t.negated]
    if negative:
        cond = terms.match([*negative], "m.text", "m.tsv", every=False)
        # `match` drops negated terms from the positive side: build the exclusion directly
        args: list[object] = []
        parts = [terms.condition(t, "m.text", "m.tsv", args) for t in negative]
        q.extend(" AND NOT (" + " OR ".join(parts) + ")", args)
        del cond
    q.add(" ORDER BY c.embedding <=> %b LIMIT %s), ", vector, k)
    q.add(
        f"vec_best AS (SELECT DISTINCT ON ({unit}) * FROM near WHERE 1 - d >= %s "
        f"ORDER BY {unit}, d), "
        f"vec AS (SELECT v.*, 1 - v.d AS score, row_number() OVER (ORDER BY v.d) AS rank "
        f"FROM vec_best v ORDER BY v.d LIMIT %s), ",
        floor,
        depth,
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
    unit = _KEY + (", position" if messages else "")
    window = max(limit * 10, 100)
    kw_depth = max(limit, 10) * KEYWORD_DEPTH if vector is not None else limit * 3
    sem_depth = max(limit * SEMANTIC_DEPTH, 30)
    q = _Sql().add("WITH ")
    lists: list[str] = []
    if keyword:
        _keyword(q, query, filters, unit, window, kw_depth, limit)
        lists.append("kw")
    if vector is not None:
        _semantic(q, query, filters, unit, vector, max(sem_depth * 4, 40), sem_depth, floor)
        lists.append("vec")
    if not lists:
        return []
    w = RRF_WEIGHTS
    if lists == ["kw", "vec"]:
        on = " AND ".join(f"kw.{c} = vec.{c}" for c in unit.split(", "))
        cols = ", ".join(f"coalesce(kw.{c}, vec.{c}) AS {c}" for c in unit.split(", "))
        pos = "" if messages else ", coalesce(kw.position, vec.position) AS position"
        q.add(
            f"fused AS (SELECT {cols}{pos}, kw.position IS NOT NULL AS worded, "
            f"vec.start, vec.stop, coalesce(kw.tier = 1, false) AS exact, "
            f"coalesce({w[0]} / ({RRF_K} + kw.rank), 0) + "
            f"coalesce({w[1]} / ({RRF_K} + vec.rank), 0) AS score "
            f"FROM kw FULL JOIN vec ON {on}) "
        )
    elif lists == ["kw"]:
        score = f"1.0 / ({RRF_K} + rank)" if decay > 0 else "score"
        q.add(
            f"fused AS (SELECT {_KEY}, position, true AS worded, NULL::int AS start, "
            f"NULL::int AS stop, tier = 1 AS exact, {score} AS score FROM kw) "
        )
    else:
        q.add(
            f"fused AS (SELECT {_KEY}, position, false AS worded, start, stop, "
            f"false AS exact, score FROM vec) "
        )
    rank_sql, rank_args = terms.rank_query(query.terms)
    decayed = "f.score"
    if decay > 0:
        age = "greatest(0, extract(epoch FROM now()) - coalesce(m.ts, s.ended_at)) / 86400.0"
        decayed = f"f.score * CASE WHEN coalesce(m.ts, s.ended_at) IS NULL THEN 1 ELSE exp(-%s * {age}) END"
    pin = f" + CASE WHEN f.exact THEN {EXACT_BONUS} ELSE 0 END" if lists == ["kw", "vec"] or decay > 0 else ""
    q.add(
        f"SELECT f.person, f.computer, f.agent, f.session_id, s.project, s.title, "
        f"coalesce(m.ts, s.ended_at), "
    )
    if decay > 0:
        q.args.append(decay)
    q.add(f"{decayed}{pin} AS final, f.exact, f.worded, f.start, f.stop, ")
    q.extend(
        f"CASE WHEN f.worded THEN ts_headline('{terms.CONFIG}', m.text, {rank_sql}, %s) "
        f"ELSE m.text END, ",
        [*rank_args, HEADLINE],
    )
    q.add(
        f"(SELECT count(*) FROM {S}.messages x WHERE x.person = f.person AND "
        f"x.computer = f.computer AND x.agent = f.agent AND x.session_id = f.session_id "
        f"AND x.position < f.position) "
        f"FROM fused f {_JOIN.replace('s USING', 's USING')} "
        f"JOIN {S}.messages m USING ({_KEY}, position) "
        f"ORDER BY f.exact DESC, final DESC LIMIT %s",
        limit * 3,
    )
    if lists == ["kw"] and decay <= 0:
        # keyword alone: its own order (every word, then any), as local keyword search
        q.parts[-1] = q.parts[-1].replace("ORDER BY f.exact DESC, final DESC", "ORDER BY f.exact DESC, final DESC")
    import psycopg

    from recall.team.connect import failure

    try:
        with conn.transaction():
            if vector is not None:
                conn.execute("SET LOCAL hnsw.iterative_scan = relaxed_order")
                conn.execute("SELECT set_config('hnsw.ef_search', %s, true)", (str(max(sem_depth * 4, 40)),))
            rows = conn.execute(q.text(), q.args).fetchall()  # type: ignore[arg-type]
    except psycopg.Error as exc:
        raise failure(exc) from None
    results = [_result(row) for row in rows]
    keep = _accel.dedup([plain(r.snippet) for r in results], DEDUP_THRESHOLD)
    return [results[i] for i in keep][:limit]


def _result(row: tuple[Any, ...]) -> Result:
    (person, computer, agent, session_id, project, title, ts, score, _exact, worded, start, stop, text, index) = row
    if not worded:
        piece = " ".join(str(text)[start or 0 : stop if stop is not None else None].split())
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
    )
