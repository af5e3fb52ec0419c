"""A search of the team's index as every surface asks one: the mode chosen as locally
(hybrid when the team has vectors of this computer's model, else keyword, one note
saying why), the query embedded here, the SQL search run, an `Outcome` back."""

from __future__ import annotations

from typing import Any

from recall.search.asked import prepare
from recall.search.modes import Outcome
from recall.search.query import STOPWORDS, Query, Term
from recall.search.request import TEAM, SearchRequest, checked
from recall.search.results import Filters, SearchOutput
from recall.team import connect, schema, terms
from recall.team.search import TeamFilters, search
from recall.team.vectors import VectorBytes

Answer = tuple[Outcome, bool]


def _vector(
    conn: Any, query: Query, team_model: str | None, asked: bool
) -> tuple[VectorBytes | None, str | None]:
    """The query's embedding by the team's model, or None and, when it is news, why not.

    As locally (`search.modes.has_meaning`), a query needs a word the model knows or
    the index holds: "zzzqqqxx" has no neighbours worth showing.
    """
    from recall.config import embedding_provider

    if team_model is None:
        return None, None
    if embedding_provider() == "none":
        return None, 'team: semantic search is off: embedding = "none" in config' if asked else None
    from recall.semantic import ModelError
    from recall.semantic.meaning import model_knows
    from recall.semantic.provider import get_encoder

    try:
        encoder = get_encoder(query=True)
    except ModelError:
        return None, "team: semantic search is off: no embedding model here" if asked else None
    if encoder.model_id != team_model:
        return None, (
            f"team: semantic search is off: the team's vectors are of {team_model}, "
            f"this computer embeds with {encoder.model_id}"
        )
    positive = [t for t in query.terms if not t.negated]
    meant = [t for t in positive if t.phrase or t.text.lower() not in STOPWORDS]
    if not any(model_knows(encoder, t.text) or _indexed(conn, t) for t in meant):
        return None, None
    from recall.team.vectors import from_floats

    return from_floats(encoder.embed([query.words()])[0]), None


def _indexed(conn: Any, term: Term) -> bool:
    args: list[object] = []
    cond = terms.condition(term, "m.text", "m.tsv", args)
    sql = f"SELECT EXISTS (SELECT 1 FROM {schema.SCHEMA}.messages m WHERE {cond})"
    row = conn.execute(sql, args).fetchone()
    return bool(row and row[0])


def ask(request: SearchRequest, names: list[str], skip_own: str | None = None) -> Answer:
    """The team's results for `request` (checked by `search.request.checked`, as every
    surface's is), and whether the team holds any session this person may read.

    `names`: the team's names the request gives (`team`, `team:PERSON@COMPUTER`, which
    narrow it); `skip_own`: this computer's name when it answers too (this person's rows
    from it are left out: its own answer is fresher). Decay is the config's unless asked;
    the team always fuses by reciprocal rank (`search.fusion`'s default).
    """
    import psycopg

    from recall.config import load_config
    from recall.team.mirror import where

    request = checked(request)
    query = prepare(request.text)
    mode, scope = request.mode, request.scope
    if scope not in ("all", "sessions"):  # the team holds mirrors only
        return Outcome(SearchOutput(query.text, 0, []), mode or "keyword"), False
    decay = load_config().search.decay if request.decay is None else request.decay
    narrowed = [] if TEAM in names else [where(n) for n in names]
    tf = TeamFilters(
        base=Filters(
            agents=list(request.agents),
            project=request.project,
            since=request.since,
            until=request.until,
        ),
        persons=[*request.persons, *sorted({p for p, _ in narrowed if p})],
        computers=sorted({c for _, c in narrowed if c}),
        skip_own_computer=skip_own,
    )
    with connect.connect(read=True) as conn:
        schema.require(conn)
        try:
            settings = schema.settings(conn)
            has_vectors = conn.execute(
                f"SELECT EXISTS (SELECT 1 FROM {schema.SCHEMA}.chunks)"
            ).fetchone()
            (indexed,) = conn.execute(
                f"SELECT EXISTS (SELECT 1 FROM {schema.SCHEMA}.sessions)"
            ).fetchone() or (False,)
            conn.rollback()
        except psycopg.Error as exc:
            raise connect.failure(exc) from None
        vector, note = (None, None)
        if mode != "keyword":
            team_model = settings.get("model") if has_vectors and has_vectors[0] else None
            if team_model is None and mode is not None:
                note = "team: semantic search is off: the team's index holds no vectors yet"
            else:
                vector, note = _vector(conn, query, team_model, mode is not None)
        if vector is None and mode == "semantic":
            mode = None
        ran = "keyword" if vector is None else (mode or "hybrid")
        floor = 1.0
        if vector is not None:
            from recall.semantic.nearest import FLOOR as floor
            from recall.team.vectors import register

            register(conn)
        results = search(
            conn,
            query,
            tf,
            request.limit,
            vector,
            keyword=ran != "semantic",
            messages=request.messages,
            decay=decay,
            floor=floor,
        )
    return Outcome(SearchOutput(query.text, len(results), results), ran, note), bool(indexed)
