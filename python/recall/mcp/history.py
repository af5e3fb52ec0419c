"""The tools over past sessions: `search_history` and `show_session`.

Arguments are checked the way seed 000's search_history checks them, with
its wording, so a model that sent a bad value reads what to send instead.
Results are `recall search --messages --json`'s, through the same function.
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta
from typing import Any

from recall.mcp.tools import Tool, ToolError

SCOPES = {
    "all": "all",
    "sessions": "sessions",
    "memory": "memories",
    "daily_log": "daily",
    "files": "files",
}
"""search_history's scopes (seed 000's names, and `files`) and `recall search --scope`'s."""
DEFAULT_RESULTS, MAX_RESULTS = 10, 50
PAGE_CHARS = 20_000
"""A show_session page, as JSON text: about 5k tokens of English, 20k at worst (one token
a character), well under the ~25k-token cap Claude Code puts on one MCP result."""
_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")

SEARCH = {
    "type": "object",
    "properties": {
        "query": {"type": "string", "description": "Search keywords or phrase"},
        "scope": {
            "type": "string",
            "enum": list(SCOPES),
            "description": 'What to search: "all" (default), "sessions" (past conversations),'
            ' "memory" (remembered facts and MEMORY.md), "daily_log" (daily summaries) or'
            ' "files" (CLAUDE.md, AGENTS.md, GEMINI.md of the user\'s projects)',
        },
        "date_from": {"type": "string", "description": "Start date filter, YYYY-MM-DD"},
        "date_to": {"type": "string", "description": "End date filter, YYYY-MM-DD (inclusive)"},
        "max_results": {
            "type": "integer",
            "description": f"Maximum results. Default: {DEFAULT_RESULTS}, Max: {MAX_RESULTS}",
        },
        "agent": {
            "type": "string",
            "description": "Only sessions of this agent: claude, codex, gemini",
        },
        "project": {
            "type": "string",
            "description": "Only sessions whose project path contains this text",
        },
        "team": {
            "type": "boolean",
            "description": "Also search the team's shared index, when the user set one up; "
            "its results' computer is team:PERSON@COMPUTER (pass it to show_session)",
        },
    },
    "required": ["query"],
}
SHOW = {
    "type": "object",
    "properties": {
        "session": {
            "type": "string",
            "description": "A session_id from search_history (or a unique prefix of one)",
        },
        "start": {
            "type": "integer",
            "description": "The message_index to start the page at (default 0). To read around "
            "a search result, start a few before its message_index; for the next page, "
            "pass next_start.",
        },
        "agent": {"type": "string", "description": "The agent, when two agents' ids collide"},
        "computer": {
            "type": "string",
            "description": "A search result's computer when it starts with team: (the team's "
            "index); otherwise leave it out",
        },
    },
    "required": ["session"],
}


def history_tools() -> list[Tool]:
    return [
        Tool(
            "search_history",
            "Search the user's past coding-agent conversations (Claude Code, Codex, Gemini "
            "CLI) on this computer, and the facts, daily logs and project guidance files recall "
            "keeps. Call it when the user refers to earlier work: 'what did we decide about…', "
            "'the error we fixed last week', 'how did I set up X before'. Returns the "
            "best-matching messages (session_id, date, message_index) and notes (source, and "
            "memory_id or path and heading).",
            SEARCH,
            search_history,
        ),
        Tool(
            "show_session",
            "Read one past conversation found by search_history, a page at a time. Call it "
            "to see what was said around a search result: pass its session_id and a start a "
            "little before its message_index; follow next_start for more.",
            SHOW,
            show_session,
        ),
    ]


def search_history(args: dict[str, Any]) -> dict[str, Any]:
    from recall.cli.search import search
    from recall.record import to_builtins
    from recall.search.results import Filters, plain

    query = _text(args.get("query"))
    if not query:
        raise ToolError("Parameter 'query' is required and cannot be empty")
    scope = (_text(args.get("scope")) or "all").lower()
    if scope not in SCOPES:
        raise ToolError(f"Invalid scope '{scope}'. Must be one of: {', '.join(SCOPES)}")
    since = _day(args.get("date_from"))
    until = _day(args.get("date_to"))
    limit = _count(args.get("max_results"))
    agent = _text(args.get("agent"))
    filters = Filters(
        agents=[agent] if agent else [],
        project=_text(args.get("project")) or None,
        since=since,
        until=None if until is None else (_next_day(until)),
    )
    note = None
    if args.get("team") is True:
        outcome, indexed, note = _with_team(query, filters, limit, SCOPES[scope])
    else:
        outcome, indexed = search(query, filters, limit, messages=True, scope=SCOPES[scope])
    out = outcome.output
    for r in out.results:
        r.snippet = plain(r.snippet)
    found: dict[str, Any] = to_builtins(out)
    if not out.results and not indexed:
        found["note"] = "Nothing is indexed yet: the user should run `recall sync`."
    if note:
        found["note"] = note
    return found


def _with_team(query: str, filters: Any, limit: int, scope: str) -> tuple[Any, bool, str | None]:
    """This computer's results and the team's, merged as `recall search --team` merges them
    (docs/team.md); without a team configured, this computer's alone and a note saying so."""
    from recall.cli.search import local_search, search, team_job
    from recall.team.connect import configured

    if not configured():
        outcome, indexed = search(query, filters, limit, messages=True, scope=scope)
        return outcome, indexed, "No team index is configured: these results are this computer's."
    from recall.peers.fanout import search_computers
    from recall.peers.protocol import SearchRequest

    request = SearchRequest(
        q=query,
        agents=filters.agents,
        project=filters.project,
        since=filters.since,
        until=filters.until,
        limit=limit,
        messages=True,
        scope=scope,
    )
    outcome, indexed = search_computers(
        request, ["local"], local_search, [team_job(request, ["team"], [])]
    )
    errors = "; ".join(f"{e['computer']}: {e['error']}" for e in outcome.output.errors)
    return outcome, indexed, f"Not every index answered: {errors}" if errors else None


def show_session(args: dict[str, Any]) -> dict[str, Any]:
    import json

    from recall.store import open_reader
    from recall.store.queries import load_mirror, resolve_session

    ref = _text(args.get("session"))
    if not ref:
        raise ToolError("Parameter 'session' is required and cannot be empty")
    start = args.get("start", 0)
    if start is None:
        start = 0
    if isinstance(start, str) and start.strip().isdigit():
        start = int(start)
    if not isinstance(start, int) or isinstance(start, bool) or start < 0:
        raise ToolError(f"Parameter 'start' must be a message index, 0 or more: {start!r}")
    computer = _text(args.get("computer"))
    if computer.split(":")[0] == "team":  # the team's index (docs/team.md)
        from recall.team.mirror import load

        mirror = load(ref, _text(args.get("agent")) or None, computer)
    else:
        with open_reader() as store:
            mirror = load_mirror(
                store.conn, resolve_session(store.conn, ref, _text(args.get("agent")) or None)
            )
    total = len(mirror.messages)
    page: dict[str, Any] = {
        "session_id": mirror.session_id,
        "agent": mirror.agent,
        "project": mirror.project,
        "computer": mirror.computer,
        "title": mirror.title,
        "started_at": mirror.started_at,
        "ended_at": mirror.ended_at,
        "message_count": total,
        "start": min(start, total),
        "next_start": None,
        "messages": [],
    }
    used = len(json.dumps(page, ensure_ascii=False))
    for index in range(start, total):
        m = mirror.messages[index]
        item = {"message_index": index, "role": m.role, "text": m.text, "timestamp": m.timestamp}
        size = len(json.dumps(item, ensure_ascii=False)) + 1
        if used + size > PAGE_CHARS:
            if page["messages"]:
                page["next_start"] = index
                break
            # one message longer than a page: its head, and the rest is said to exist
            keep = max(0, PAGE_CHARS - used - 400)
            item["text"] = m.text[:keep] + f" […{len(m.text) - keep} more characters not shown]"
            if index + 1 < total:
                page["next_start"] = index + 1
            page["messages"].append(item)
            break
        page["messages"].append(item)
        used += size
    return page


def _text(value: Any) -> str:
    return value.strip() if isinstance(value, str) else ""


def _count(value: Any) -> int:
    """max_results: an integer (or its digits as text), clamped to 1–50 as seed 000 does."""
    if value is None:
        return DEFAULT_RESULTS
    if isinstance(value, str) and re.fullmatch(r"\s*-?\d+\s*", value):
        value = int(value)
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if not isinstance(value, int) or isinstance(value, bool):
        raise ToolError(f"Parameter 'max_results' must be an integer: {value!r}")
    return min(max(value, 1), MAX_RESULTS)


def _day(value: Any) -> float | None:
    """A YYYY-MM-DD date as the epoch of its local midnight."""
    if value is None:
        return None
    text = value.strip() if isinstance(value, str) else str(value)
    if not text:
        return None
    if not _DATE.fullmatch(text):
        raise ToolError(f"Date must be in YYYY-MM-DD format: {text}")
    try:
        return datetime.strptime(text, "%Y-%m-%d").astimezone().timestamp()
    except (ValueError, OverflowError, OSError):
        raise ToolError(f"Invalid date: {text}") from None


def _next_day(midnight: float) -> float:
    """The end of the day that starts at `midnight` (date_to is inclusive)."""
    day = datetime.fromtimestamp(midnight).astimezone()
    try:
        return (day + timedelta(days=1)).timestamp() - 0.001
    except OverflowError:  # 9999-12-31 has no next day
        raise ToolError(f"Invalid date_to: {day:%Y-%m-%d} (the last day is 9999-12-30)") from None
