"""A search answer off the wire: back into the records `recall search` renders."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from recall.peers.client import PeerError
from recall.peers.registry import decode
from recall.record import Record
from recall.search.results import Result, SearchOutput

if TYPE_CHECKING:
    from recall.search.modes import Outcome


def result_of(data: Any) -> Record:
    """One result off the wire as the record of its source, which text output renders by
    its own fields (a memory's id and category, a file's path); PeerError for a source
    this recall does not know."""
    from recall.search.source_sql import FileResult, MemoryResult

    source = data.get("source", "session") if isinstance(data, dict) else None
    kinds: dict[Any, type[Record]] = {"session": Result, "memory": MemoryResult}
    kinds |= {"file": FileResult, "daily_log": FileResult}
    if source not in kinds:
        raise PeerError(f"the answer does not fit: unknown source {str(source)[:40]!r}")
    return decode(data, kinds[source])


def outcome_of(data: Any) -> tuple[Outcome, bool]:
    """A daemon's search answer as (Outcome, whether its index holds anything)."""
    from recall.search.modes import Outcome

    if not isinstance(data, dict) or not isinstance(data.get("results"), list):
        raise PeerError("the answer has no results list")
    results = [result_of(r) for r in data["results"]]
    output = decode({**data, "results": []}, SearchOutput)
    assert isinstance(output, SearchOutput)
    output.results = [r for r in results if isinstance(r, Result)]
    mode = str(data.get("mode") or "keyword")
    note = data.get("note") if isinstance(data.get("note"), str) else None
    return Outcome(output, mode, note), bool(data.get("indexed", True))
