"""What a daemon and its clients agree on: the API version, the routes, a search on the wire
(a `search.request.SearchRequest` as query parameters, and back).

The version travels in a header (`Recall-API`) on every request and
response, so an old and a new recall can tell each other apart: a request
for another major version is refused with 400 naming the one served.
"""

from __future__ import annotations

import ipaddress
import json
import os
import sys
from pathlib import Path

from recall import config
from recall.errors import UsageError
from recall.record import Record
from recall.search.request import SearchRequest, checked, when

API_VERSION = 1
API_HEADER = "Recall-API"
HEALTH = "/api/health"
SEARCH = "/api/mirrors/search"
MIRRORS = "/api/mirrors/"
TOKEN_PARAMS = frozenset({"token", "access_token", "auth", "key", "api_key", "apikey"})
"""Query parameters that look like a token: refused, since URLs end up in logs."""


def search_params(request: SearchRequest) -> list[tuple[str, str]]:
    """`request` as a query string's parameters (`parse_search` reads them back)."""
    out = [("q", request.text), *(("agent", a) for a in request.agents)]
    out.append(("limit", str(request.limit)))
    for name in ("project", "since", "until", "mode", "fusion", "decay"):
        value = getattr(request, name)
        if value is not None:
            out.append((name, repr(value) if isinstance(value, float) else str(value)))
    if request.messages:
        out.append(("messages", "1"))
    if request.scope != "all":
        out.append(("scope", request.scope))
    return out


SEARCH_PARAMS = frozenset(
    {"q", "agent", "limit", "project", "since", "until", "mode", "fusion", "decay", "messages"}
    | {"scope", "marks"}
)
"""`marks=1` keeps the highlight marks (\\x02…\\x03) in snippets, for a CLI that renders them."""


def _one(params: dict[str, list[str]], name: str) -> str | None:
    values = params.get(name)
    if not values:
        return None
    if len(values) > 1:
        raise UsageError(f"{name} is given {len(values)} times")
    return values[0]


def _number(params: dict[str, list[str]], name: str) -> float | None:
    text = _one(params, name)
    if text is None:
        return None
    try:
        return float(text)
    except ValueError:
        raise UsageError(f"{name} must be a number, not {text[:40]!r}") from None


def _bound(params: dict[str, list[str]], name: str) -> float | None:
    """`since`/`until`: epoch seconds (what a recall sends, settled by its own clock), or
    any form `recall search` takes (`2026-01-31`, `yesterday`, `7d`), meaning the same:
    `until=2026-01-31` includes the 31st (`search.request.when`)."""
    text = _one(params, name)
    if text is None:
        return None
    try:
        return float(text)
    except ValueError:
        return when(text[:64], end=name == "until")


def parse_search(params: dict[str, list[str]]) -> SearchRequest:
    """A search request from a query string's parameters, checked as every surface's is
    (`search.request.checked`); UsageError names what is wrong."""
    unknown = sorted(set(params) - SEARCH_PARAMS)
    if unknown:
        raise UsageError(f"unknown parameter {unknown[0][:40]!r}")
    q = _one(params, "q")
    if q is None or not q.strip():
        raise UsageError("q is empty: give words to search for")
    limit_text = _one(params, "limit") or "10"
    if not limit_text.isdigit():
        raise UsageError(f"limit must be a whole number, not {limit_text[:40]!r}")
    messages = _one(params, "messages")
    if messages not in (None, "0", "1", "true", "false"):
        raise UsageError("messages must be 1 or 0")
    return checked(
        SearchRequest(
            text=q,
            agents=params.get("agent", []),
            project=_one(params, "project"),
            since=_bound(params, "since"),
            until=_bound(params, "until"),
            limit=int(limit_text[:6]),
            mode=_one(params, "mode"),
            fusion=_one(params, "fusion"),
            decay=_number(params, "decay"),
            messages=messages in ("1", "true"),
            scope=_one(params, "scope") or "all",
        )
    )


def state_path() -> Path:
    """Where a running daemon says how to reach it (pid, port, scheme): serve.json."""
    return config.data_dir() / "serve.json"


class DaemonState(Record):
    pid: int
    port: int
    scheme: str
    host: str = "127.0.0.1"
    """The address it bound (an IP literal; a serve.json from before it was written: loopback)."""


def running_daemon() -> DaemonState | None:
    """The daemon serve.json names, unless that process is gone (a SIGKILL leaves the file)."""
    try:
        raw = json.loads(state_path().read_text(encoding="utf-8"))
        host = str(raw.get("host") or "127.0.0.1")
        state = DaemonState(int(raw["pid"]), int(raw["port"]), str(raw["scheme"]), host)
        ipaddress.ip_address(host.split("%")[0])
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None
    if state.scheme not in ("http", "https") or not 0 < state.port < 65536:
        return None
    if sys.platform != "win32":  # os.kill(pid, 0) would terminate it on Windows
        try:
            os.kill(state.pid, 0)
        except ProcessLookupError:
            return None
        except OSError:  # alive but another user's
            pass
    return state
