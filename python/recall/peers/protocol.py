"""What a daemon and its clients agree on: the API version, the routes, a search on the wire.

The version travels in a header (`Recall-API`) on every request and
response, so an old and a new recall can tell each other apart: a request
for another major version is refused with 400 naming the one served.
"""

from __future__ import annotations

import ipaddress
import json
import math
import os
import sys
from pathlib import Path

from recall import config
from recall.errors import UsageError
from recall.record import Record, field
from recall.search.results import MAX_LIMIT

API_VERSION = 1
API_HEADER = "Recall-API"
HEALTH = "/api/health"
SEARCH = "/api/mirrors/search"
MIRRORS = "/api/mirrors/"
MODES = ("keyword", "semantic", "hybrid")
FUSIONS = ("rrf", "weighted", "0.4/0.6", "0.3/0.7")
SCOPES = ("all", "sessions", "memories", "daily", "files")
"""`search.sources.SCOPES`, repeated so a client need not import the search package."""
TOKEN_PARAMS = frozenset({"token", "access_token", "auth", "key", "api_key", "apikey"})
"""Query parameters that look like a token: refused, since URLs end up in logs."""


class SearchRequest(Record):
    """One search, as the CLI asks it and as it travels to a daemon."""

    q: str
    agents: list[str] = field(default_factory=list)
    project: str | None = None
    since: float | None = None
    until: float | None = None
    """Epoch seconds: relative times are settled by the asking computer's clock."""
    limit: int = 10
    mode: str | None = None
    fusion: str | None = None
    decay: float | None = None
    messages: bool = False
    scope: str = "all"

    def params(self) -> list[tuple[str, str]]:
        out = [("q", self.q), *(("agent", a) for a in self.agents), ("limit", str(self.limit))]
        for name in ("project", "since", "until", "mode", "fusion", "decay"):
            value = getattr(self, name)
            if value is not None:
                out.append((name, repr(value) if isinstance(value, float) else str(value)))
        if self.messages:
            out.append(("messages", "1"))
        if self.scope != "all":
            out.append(("scope", self.scope))
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
        value = float(text)
    except ValueError:
        raise UsageError(f"{name} must be a number, not {text[:40]!r}") from None
    if not math.isfinite(value) or value < 0:
        raise UsageError(f"{name} must be a finite number, 0 or more")
    return value


def parse_search(params: dict[str, list[str]]) -> SearchRequest:
    """A search request from a query string's parameters; UsageError names what is wrong."""
    unknown = sorted(set(params) - SEARCH_PARAMS)
    if unknown:
        raise UsageError(f"unknown parameter {unknown[0][:40]!r}")
    q = _one(params, "q")
    if q is None or not q.strip():
        raise UsageError("q is empty: give words to search for")
    limit_text = _one(params, "limit") or "10"
    if not limit_text.isdigit() or not 1 <= int(limit_text) <= MAX_LIMIT:
        raise UsageError(f"limit must be between 1 and {MAX_LIMIT}")
    mode, fusion = _one(params, "mode"), _one(params, "fusion")
    if mode is not None and mode not in MODES:
        raise UsageError(f"mode must be one of {', '.join(MODES)}")
    if fusion is not None and fusion not in FUSIONS:
        raise UsageError(f"fusion must be one of {', '.join(FUSIONS)}")
    scope = _one(params, "scope") or "all"
    if scope not in SCOPES:
        raise UsageError(f"scope must be one of {', '.join(SCOPES)}")
    messages = _one(params, "messages")
    if messages not in (None, "0", "1", "true", "false"):
        raise UsageError("messages must be 1 or 0")
    return SearchRequest(
        q=q,
        agents=params.get("agent", []),
        project=_one(params, "project"),
        since=_number(params, "since"),
        until=_number(params, "until"),
        limit=int(limit_text),
        mode=mode,
        fusion=fusion,
        decay=_number(params, "decay"),
        messages=messages in ("1", "true"),
        scope=scope,
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
