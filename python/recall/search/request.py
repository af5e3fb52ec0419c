"""One search, as every surface asks it: the request record, its valid values, its checks.

`recall search`, the MCP tools, the daemon's routes, peers and `recall
context` each build a `SearchRequest` and hand it to `search.engine.search`.
What a value means is settled here once: the scopes, modes and fusions there
are, a project as the index spells paths (`project_arg`), and a date as a
bound (`when`: `--until 2026-01-31` and `date_to` both include the whole
31st). `checked` is the one validation; its `UsageError` names the value.
"""

from __future__ import annotations

import math
import re
from datetime import datetime, timedelta

from recall.errors import UsageError
from recall.record import Record, field, replace
from recall.search.results import MAX_LIMIT

SCOPES = ("all", "sessions", "memories", "daily", "files")
"""Which sources a search reads: every one, the mirrors, memories (and MEMORY.md),
daily logs, guidance files (docs/memory.md)."""
MODES = ("keyword", "semantic", "hybrid")
FUSIONS = ("rrf", "weighted", "0.4/0.6", "0.3/0.7")
"""How hybrid merges its keyword and semantic lists (`search.fusion.PRESETS`)."""
TEAM = "team"
"""The computer name that means the team's index on Postgres (docs/team.md)."""


class SearchRequest(Record):
    """One search: what to find, where, how, and how many results to show."""

    text: str
    scope: str = "all"
    mode: str | None = None
    """None: hybrid when messages are embedded, else keyword."""
    fusion: str | None = None
    """None: the config's."""
    decay: float | None = None
    """None: the config's."""
    agents: list[str] = field(default_factory=list)
    project: str | None = None
    computers: list[str] = field(default_factory=list)
    """Ask these computers too (peer names, `local`, `all`, and `team` or
    `team:PERSON@COMPUTER` for the team's index, docs/team.md); empty: this one alone."""
    persons: list[str] = field(default_factory=list)
    """In the team's index, only the sessions these people pushed."""
    since: float | None = None
    until: float | None = None
    """Epoch seconds, both inclusive: relative times are settled by the asking computer's
    clock (`when`), so a request means the same on every computer it travels to."""
    limit: int = 10
    messages: bool = False
    """The best messages (several per session), not one result per session."""


def checked(request: SearchRequest) -> SearchRequest:
    """`request` with its project normalised, or UsageError naming what is wrong: the one
    validation every surface's request passes (the engine runs it too)."""
    if not request.text.strip():
        raise UsageError("the query is empty: give words to search for")
    for name, value, allowed in (
        ("scope", request.scope, SCOPES),
        ("mode", request.mode, MODES),
        ("fusion", request.fusion, FUSIONS),
    ):
        if value is not None and value not in allowed:
            raise UsageError(f"{name} must be one of {', '.join(allowed)}, not {str(value)[:40]!r}")
    if isinstance(request.limit, bool) or not 1 <= request.limit <= MAX_LIMIT:
        raise UsageError(f"the limit must be between 1 and {MAX_LIMIT}, not {request.limit}")
    for name in ("decay", "since", "until"):
        value = getattr(request, name)
        if value is not None and not (math.isfinite(value) and value >= 0):  # NaN too
            raise UsageError(f"{name} must be a finite number, 0 or more")
    if request.since is not None and request.until is not None and request.since > request.until:
        raise UsageError("since is after until: nothing can be found between them")
    if any(not p.strip() for p in request.persons):
        raise UsageError("a person is a database role's name, not blank")
    if request.persons and not any(is_team(n) for n in request.computers):
        raise UsageError("a person narrows the team's index: ask the team too (--team)")
    return replace(request, project=project_arg(request.project))


def is_team(name: str) -> bool:
    """Whether a computer's name means the team's index (`team`, `team:PERSON@COMPUTER`)."""
    return name == TEAM or name.startswith(TEAM + ":")


def with_team(computers: list[str] | None, team: bool) -> list[str]:
    """The computers to ask, the team's index among them when `team` (`--team`, MCP's
    `team: true`): with this computer alone when no other is named."""
    names = list(computers or [])
    if not team:
        return names
    names = names or ["local"]
    return names if TEAM in names else [*names, TEAM]


def project_arg(value: str | None) -> str | None:
    """A project as the index spells paths: `.`, `..`, `./x` and `~` made absolute,
    trailing separators dropped (`/tmp/x/` means `/tmp/x`). Every surface's project (search,
    MCP, the daemon, forget) goes through here."""
    import os

    if value is None:
        return None
    path = value.strip()
    if path in (".", "..") or path.startswith(("./", "../", ".\\", "..\\", "~")):
        path = os.path.abspath(os.path.expanduser(path))
    return path.rstrip("/\\") or path[:1]


_DAY = re.compile(r"\d{4}-\d{2}-\d{2}")


def when(value: str, *, end: bool = False, now: float | None = None) -> float:
    """A `--since`/`--until` value as epoch seconds (timeutil.parse_when's forms).

    A value naming a day (`today`, `yesterday`, `2026-01-31`) means its local midnight
    as a start and the last moment of that day as an `end`, so `--until 2026-01-31`
    and MCP's `date_to: 2026-01-31` include the 31st, and `--since yesterday --until
    yesterday` is yesterday. A duration (`7d`) or a time of day is that instant.
    """
    from recall.timeutil import parse_when

    start = parse_when(value, now)
    text = value.strip().lower()
    if not end or not (text in ("today", "yesterday") or _DAY.fullmatch(text)):
        return start
    day = datetime.fromtimestamp(start)  # naive local time: .timestamp() applies the zone
    try:
        following = (day + timedelta(days=1)).replace(hour=0, minute=0, second=0, microsecond=0)
        # the next local midnight (a DST day is 23 or 25 hours long), less a millisecond
        return following.timestamp() - 0.001
    except (OverflowError, ValueError, OSError):  # 9999-12-31 has no next day
        return start + 86400 - 0.001
