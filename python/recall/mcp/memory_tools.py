"""The memory tools: `remember` and `search_memories` (seed 003), over `recall.memory`.

A remembered fact is searchable by the next call (same transaction as its
index); `search_memories` answers in seed 003's shape, `{"found",
"memories": [{"content", "category", "importance", ...}]}`.
"""

from __future__ import annotations

from typing import Any

from recall.mcp.tools import Tool, ToolError
from recall.memory import CATEGORIES

DEFAULT_RESULTS, MAX_RESULTS = 5, 50

REMEMBER = {
    "type": "object",
    "properties": {
        "text": {"type": "string", "description": "The fact, in one or two sentences"},
        "category": {
            "type": "string",
            "enum": CATEGORIES,
            "description": "preference (likes, settings), fact (events, decisions), "
            "relationship (people), goal (objectives), context (situations); default fact",
        },
        "importance": {"type": "integer", "description": "1 (trivia) to 10 (vital); default 5"},
        "project": {"type": "string", "description": "The project directory it concerns"},
    },
    "required": ["text"],
}
SEARCH = {
    "type": "object",
    "properties": {
        "query": {"type": "string", "description": "Search keywords or meaning"},
        "category": {"type": "string", "enum": CATEGORIES},
        "limit": {
            "type": "integer",
            "description": f"Default {DEFAULT_RESULTS}, max {MAX_RESULTS}",
        },
    },
    "required": ["query"],
}


def memory_tools() -> list[Tool]:
    return [
        Tool(
            "remember",
            "Keep a fact about the user or their work for later conversations: a preference, "
            "a decision, a name, a goal. Call it when the user says something worth knowing "
            "next time, or asks you to remember. A near-duplicate of a kept fact is merged.",
            REMEMBER,
            remember,
        ),
        Tool(
            "search_memories",
            "Search the facts kept with remember, by relevance and importance: 'what did I "
            "say about…', 'my preferences for…'.",
            SEARCH,
            search_memories,
        ),
    ]


def _text(value: Any) -> str:
    return value.strip() if isinstance(value, str) else ""


def _int(value: Any, name: str, default: int) -> int:
    if value is None:
        return default
    if isinstance(value, str) and value.strip().lstrip("-").isdigit():
        value = int(value)
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if not isinstance(value, int) or isinstance(value, bool):
        raise ToolError(f"Parameter '{name}' must be an integer: {value!r}")
    return value


def _category(value: Any, default: str | None) -> str | None:
    category = _text(value).lower() or default
    if category is not None and category not in CATEGORIES:
        raise ToolError(f"Invalid category '{category}'. Must be one of: {', '.join(CATEGORIES)}")
    return category


def remember(args: dict[str, Any]) -> dict[str, Any]:
    from recall.errors import UsageError
    from recall.memory.memories import remember as keep
    from recall.store import open_writer

    text = _text(args.get("text"))
    if not text:
        raise ToolError("Parameter 'text' is required and cannot be empty")
    category = _category(args.get("category"), "fact") or "fact"
    importance = _int(args.get("importance"), "importance", 5)
    try:
        with open_writer() as store:
            memory, merged = keep(
                store, text, category, importance, _text(args.get("project")) or None
            )
    except UsageError as exc:
        raise ToolError(str(exc)) from None
    return {
        "id": str(memory.id),
        "content": memory.text,
        "category": memory.category,
        "importance": memory.importance,
        "merged": merged,
    }


def search_memories(args: dict[str, Any]) -> dict[str, Any]:
    from recall.config import computer_name
    from recall.search.asked import as_meant
    from recall.search.query import parse
    from recall.search.results import Filters, plain
    from recall.search.source_sql import memory_hits
    from recall.store import open_reader

    query = parse(_text(args.get("query")))
    if not query.terms:
        raise ToolError("Parameter 'query' is required and cannot be empty")
    category = _category(args.get("category"), None)
    limit = min(max(_int(args.get("limit"), "limit", DEFAULT_RESULTS), 1), MAX_RESULTS)
    with open_reader() as store:
        query = as_meant(store.conn, query, ("memories_fts",)) or query
        hits = memory_hits(store.conn, query, Filters(), limit, computer_name(), category)
    memories = [
        {
            "content": plain(h.snippet),
            "category": h.category,
            "importance": h.importance,
            "id": h.memory_id,
            "project": h.project,
            "date": h.date,
            "score": h.score,
        }
        for h in hits
    ]
    return {"found": len(memories), "memories": memories}
