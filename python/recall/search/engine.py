"""The one complete search: a `SearchRequest` in, the ranked results out.

`recall search`, the MCP tools, the daemon's routes (and so every peer) and
`recall context` all call `search` with a request, so a person, an agent and
another computer asking the same question get the same answer. It checks the
request once (`request.checked`), fills what the request leaves to the
config (fusion, decay, source weights), names the agents as the index spells
them, parses and vets the query once, corrects its typos before any source
runs (each word that matches nothing in any index and is no English word, on
its own, `search.typo`), hands it to every source (`search.asked`), and says
whether anything it searches is indexed at all.

This is the top of the search layer: it opens the index (`store`) and knows
the agents recall reads (`agents`), which the ranking modules below it never do.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from recall.search.request import SearchRequest, checked

if TYPE_CHECKING:
    from recall.search.modes import Outcome

Answer = tuple["Outcome", bool]
"""What a search gives: its outcome, and whether the sources it searched hold anything."""

TABLES = {
    "all": ("messages_fts", "memories_fts", "file_chunks_fts"),
    "sessions": ("messages_fts",),
    "memories": ("memories_fts", "file_chunks_fts"),
    "daily": ("file_chunks_fts",),
    "files": ("file_chunks_fts",),
}
"""The indexes each scope reads: where its typo correction looks for a word."""


def search(request: SearchRequest) -> Answer:
    """The results of `request` on this computer (snippets keep their highlight marks),
    and whether anything it searches is indexed (sessions, when it searches sessions)."""
    from recall.config import computer_name, load_config
    from recall.errors import UsageError
    from recall.search.asked import Asked, prepare
    from recall.search.request import FUSIONS
    from recall.search.results import Filters
    from recall.search.sources import run
    from recall.store import open_reader

    request = checked(request)
    settings = load_config().search
    fusion = request.fusion or settings.fusion
    decay = settings.decay if request.decay is None else request.decay
    if fusion not in FUSIONS:  # the config's
        raise UsageError(f"fusion must be one of {', '.join(FUSIONS)}, not {fusion!r}")
    if not 0 <= decay < float("inf"):  # the config's; also refuses NaN
        raise UsageError("decay must be a finite number, 0 or more")
    query = prepare(request.text)
    with open_reader() as store:
        db = store.conn
        filters = Filters(
            agents=known_agents(db, request.agents),
            project=request.project,
            since=request.since,
            until=request.until,
        )
        indexed = _indexed(db, request.scope)
        asked = Asked(db, query, TABLES[request.scope])
        fixed = asked.corrected()
        if fixed is not None:  # a word matched nothing anywhere: the word meant is asked
            asked = Asked(db, fixed, TABLES[request.scope])
        outcome = run(
            db,
            asked,
            filters,
            request.limit,
            computer_name(),
            request.scope,
            request.mode,
            fusion,
            decay,
            request.messages,
            settings.weights,
        )
    if fixed is not None:  # `query` says what was typed, `corrected` what was searched
        outcome.output.query, outcome.output.corrected = query.text, fixed.text
    return outcome, indexed


def _indexed(db: Any, scope: str) -> bool:
    """Whether the sources `scope` reads hold anything: a scope with sessions needs
    sessions (memories alone do not make them searchable)."""
    tables = ("sessions",) if scope in ("all", "sessions") else ("memories", "files")
    sql = " UNION ALL ".join(f"SELECT 1 FROM {t}" for t in tables) + " LIMIT 1"
    return db.execute(sql).fetchone() is not None


def known_agents(db: Any, asked: list[str]) -> list[str]:
    """Agent names as the index spells them (any case); an unknown one is a usage error
    naming the agents recall reads and those the index holds (only the agents recall
    syncs when `db` is None). Every surface's agent filter goes through here; without
    one, a search loads no adapter."""
    if not asked:
        return []
    from recall.agents import ADAPTERS, IMPORT
    from recall.errors import UsageError

    known = set(ADAPTERS)
    if db is not None:
        known |= {IMPORT.name, *(r[0] for r in db.execute("SELECT DISTINCT agent FROM sessions"))}
    by_case = {name.casefold(): name for name in known}
    out = []
    for name in asked:
        match = by_case.get(name.strip().casefold())
        if match is None:
            raise UsageError(f"unknown agent {name!r} (known: {', '.join(sorted(known))})")
        out.append(match)
    return out
