"""The tools over past sessions: `search_history` here and `show_session` (mcp/show.py).

Arguments take `recall search`'s names (scope, mode, since, until, limit) and
seed 000's older ones still (`Tool.aliases`); a bad value is refused in words
that say what to send instead. Results are `recall search --messages --json`'s:
the same `SearchRequest`, answered by this computer's warm daemon when one runs
and by the same engine in-process when not (`peers.warm.search_here`).
"""

from __future__ import annotations

import re
from typing import Any

from recall.mcp.tools import Tool, ToolError

SCOPES = {
    "all": "all",
    "sessions": "sessions",
    "memories": "memories",
    "daily": "daily",
    "files": "files",
    "memory": "memories",
    "daily_log": "daily",
}
"""search_history's scopes: `recall search --scope`'s names, then seed 000's older
`memory` and `daily_log`, still accepted (not listed in the schema)."""
CLI_SCOPES = list(SCOPES)[:5]
MODES = ("keyword", "semantic", "hybrid")
DEFAULT_RESULTS, MAX_RESULTS = 10, 50
DEEPER = 3
"""How much deeper than the agent's `limit` the search is cut before the weak results are
dropped: cut first, a weak hit ranked among the first `limit` left the agent fewer
answers than it asked for, though more stood below it (the ranking does not depend on
the limit, so the answers kept are the first ones either way)."""
_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")

SEARCH = {
    "type": "object",
    "properties": {
        "query": {
            "type": "string",
            "description": "Keywords or a phrase, as the user would remember it"
            " (e.g. 'kafka retry backoff')",
        },
        "scope": {
            "type": "string",
            "enum": CLI_SCOPES,
            "description": 'What to search: "all" (default), "sessions" (past conversations),'
            ' "memories" (remembered facts and MEMORY.md), "daily" (daily summaries) or'
            ' "files" (CLAUDE.md, AGENTS.md, GEMINI.md of the user\'s projects)',
        },
        "mode": {
            "type": "string",
            "enum": list(MODES),
            "description": "keyword, semantic (by meaning) or hybrid; default: hybrid when the"
            " sessions are embedded, else keyword",
        },
        "since": {
            "type": "string",
            "description": "Only from this time on: YYYY-MM-DD, today, yesterday, or an age"
            " such as 7d, 12h, 2w",
        },
        "until": {
            "type": "string",
            "description": "Only up to this time (a date includes that whole day); same forms"
            " as since",
        },
        "limit": {
            "type": "integer",
            "description": f"How many results. Default: {DEFAULT_RESULTS}, max: {MAX_RESULTS}",
        },
        "agent": {
            "type": "string",
            "description": "Only sessions of this agent, as recall names it: claude, codex,"
            " gemini, copilot, pi, openclaw, qwen, …",
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
SEARCH_ALIASES = {"date_from": "since", "date_to": "until", "max_results": "limit"}
"""Seed 000's argument names, still accepted."""


def history_tools() -> list[Tool]:
    from recall.mcp.show import SHOW, SHOW_ALIASES, show_session

    return [
        Tool(
            "search_history",
            "Search the user's past coding-agent sessions on this computer (Claude Code, "
            "Codex, Gemini CLI, Copilot, …: their past transcripts), and the facts, daily logs "
            "and project guidance files recall keeps. Call it when the user refers to earlier "
            "work: 'what did we decide about…', 'find the earlier session where we…', 'the "
            "error we fixed last week', 'how did I set up X before'. Returns the best-matching "
            "messages, each with session_id and message_index (pass both to show_session to "
            "read around it), and notes (source, and memory_id or path and heading).",
            SEARCH,
            search_history,
            SEARCH_ALIASES,
        ),
        Tool(
            "show_session",
            "Read a past session (transcript) found by search_history. Call it to see what was "
            "said around a result, what was decided and why: pass the result's session_id and "
            "message_index to get that message with a few of its neighbours. To read the whole "
            "conversation, pass start (0 for the beginning) for pages of a few thousand tokens, "
            "following next_start.",
            SHOW,
            show_session,
            SHOW_ALIASES,
        ),
    ]


def search_history(args: dict[str, Any]) -> dict[str, Any]:
    """`recall search --messages --json`'s answer to the tool's arguments: the same request
    record, engine, date bounds and project normaliser."""
    from recall.errors import UsageError
    from recall.peers.fanout import search_computers
    from recall.peers.warm import search_here as search
    from recall.record import to_builtins
    from recall.search.request import SearchRequest, with_team
    from recall.search.results import plain
    from recall.team.connect import configured

    query = _text(args.get("query"))
    if not query:
        raise ToolError("Parameter 'query' is required and cannot be empty")
    scope = (_text(args.get("scope")) or "all").lower()
    if scope not in SCOPES:
        raise ToolError(f"Invalid scope '{scope}'. Must be one of: {', '.join(CLI_SCOPES)}")
    mode = _text(args.get("mode")).lower() or None
    if mode is not None and mode not in MODES:
        raise ToolError(f"Invalid mode '{mode}'. Must be one of: {', '.join(MODES)}")
    agent = _text(args.get("agent"))
    team = args.get("team") is True and configured()
    request = SearchRequest(
        text=query,
        scope=SCOPES[scope],
        mode=mode,
        agents=[agent] if agent else [],
        project=_text(args.get("project")) or None,
        since=_day(args.get("since"), "since"),
        until=_day(args.get("until"), "until"),
        limit=min(MAX_RESULTS, _count(args.get("limit")) * DEEPER),
        messages=True,
        computers=with_team([], team),
    )
    try:
        if team:  # this computer's results and the team's, merged (docs/team.md)
            outcome, indexed = search_computers(request, search)
        else:
            outcome, indexed = search(request)
    except UsageError as exc:
        raise ToolError(str(exc)) from None
    out = outcome.output
    # an agent gets answers only: the first `limit` of them, from a list cut deeper
    out.results = [r for r in out.results if not r.weak][: _count(args.get("limit"))]
    out.found = len(out.results)
    for r in out.results:
        r.snippet = plain(r.snippet)
    found: dict[str, Any] = to_builtins(out)
    if not out.results and not indexed:
        found["note"] = "Nothing is indexed yet: the user should run `recall sync`."
    elif args.get("team") is True and not team:
        found["note"] = "No team index is configured: these results are this computer's."
    elif out.errors:
        errors = "; ".join(f"{e['computer']}: {e['error']}" for e in out.errors)
        found["note"] = f"Not every index answered: {errors}"
    return found


def _text(value: Any) -> str:
    return value.strip() if isinstance(value, str) else ""


def _count(value: Any) -> int:
    """limit: an integer (or its digits as text), clamped to 1–50 as seed 000 does."""
    if value is None:
        return DEFAULT_RESULTS
    if isinstance(value, str) and re.fullmatch(r"\s*-?\d+\s*", value):
        value = int(value)
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if not isinstance(value, int) or isinstance(value, bool):
        raise ToolError(f"Parameter 'limit' must be an integer: {value!r}")
    return min(max(value, 1), MAX_RESULTS)


def _day(value: Any, name: str) -> float | None:
    """since/until as `recall search --since/--until` reads them (`search.request.when`): a
    date from its local midnight, or to the end of that day (inclusive) for until; today,
    yesterday; an age such as 7d."""
    from recall.errors import UsageError
    from recall.search.request import when

    if value is None:
        return None
    text = value.strip() if isinstance(value, str) else str(value)
    if not text:
        return None
    try:
        return when(text, end=name == "until")
    except UsageError:
        if _DATE.fullmatch(text):
            raise ToolError(f"Invalid date: {text}") from None
        raise ToolError(
            f"Parameter '{name}' must be a date (YYYY-MM-DD), today, yesterday or an age"
            f" such as 7d: {text}"
        ) from None
