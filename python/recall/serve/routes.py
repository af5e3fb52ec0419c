"""The answers: health, search, one mirror, one transcript, each from the code every
surface shares (never from `recall.cli`).

Search is the engine `recall search` calls (`search.engine.search`, the same
ranking, the same JSON); a mirror is `recall show --json`'s; a transcript is
`recall show --raw`'s (`privacy.transcript`), found by session id in the
index (never by a path from the request) and redacted as it is sent.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from recall import __version__
from recall.errors import UsageError
from recall.peers.protocol import API_VERSION, parse_search
from recall.record import to_builtins

MAX_ID = 512


def session_id(segment: str) -> str:
    """A session id from a URL segment (already percent-decoded); UsageError if it cannot be one."""
    if not segment or len(segment) > MAX_ID or segment in (".", ".."):
        raise UsageError("bad session id")
    if "/" in segment or "\\" in segment or any(not c.isprintable() for c in segment):
        raise UsageError("bad session id: no slashes or control characters")
    return segment


def health(computer: str, detail: Callable[[], dict[str, Any]] | None) -> dict[str, Any]:
    """Who answers; with a valid token (`detail`), what it holds and what its worker did."""
    out: dict[str, Any] = {"ok": True, "api": API_VERSION, "version": __version__}
    out["computer"] = computer
    if detail is not None:
        out.update(detail())
    return out


def index_detail() -> dict[str, Any]:
    from recall.store import open_reader
    from recall.store.queries import stats

    with open_reader() as store:
        s = stats(store.conn, store.path)
    return {"sessions": s.sessions, "messages": s.messages, "last_indexed": s.last_indexed}


def search(params: dict[str, list[str]]) -> dict[str, Any]:
    from recall.search.engine import search as engine_search
    from recall.search.results import plain
    from recall.serve.worker import SEARCHES

    request = parse_search(params)
    with SEARCHES.running():  # background embedding waits for it
        outcome, indexed = engine_search(request)
    out = outcome.output
    if params.get("marks") != ["1"]:
        for r in out.results:
            r.snippet = plain(r.snippet)
    data: dict[str, Any] = to_builtins(out)
    data.update(mode=outcome.mode, note=outcome.note, indexed=indexed)
    return data


def _mirror(ref: str, params: dict[str, list[str]]) -> Any:
    from recall.store import open_reader
    from recall.store.queries import load_mirror, resolve_session

    unknown = sorted(set(params) - {"agent"})
    if unknown:
        raise UsageError(f"unknown parameter {unknown[0][:40]!r}")
    agent = params.get("agent", [None])[-1]
    with open_reader() as store:
        return load_mirror(store.conn, resolve_session(store.conn, session_id(ref), agent))


def mirror(ref: str, params: dict[str, list[str]]) -> dict[str, Any]:
    data: dict[str, Any] = to_builtins(_mirror(ref, params))
    return data


def transcript(ref: str, params: dict[str, list[str]]) -> Iterator[bytes]:
    from recall.privacy.transcript import raw_transcript
    from recall.sync import find_transcript

    return raw_transcript(_mirror(ref, params), find_transcript)
