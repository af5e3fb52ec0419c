"""`show_session`: a past session read by an agent, a window or a page at a time.

An agent arrives from a search result (session_id, message_index) wanting to
know what was said around it, so by default it gets that message and a few
neighbours, each cut to its share of the answer. Whole pages come only when it
asks (`start`), and every answer stays within PAGE_CHARS of JSON: a few
thousand tokens, so reading around three results costs less than one old
40 kB page did.
"""

from __future__ import annotations

import json
import re
from typing import Any

from recall.mcp.tools import ToolError

PAGE_CHARS = 12_000
"""One answer, as JSON text: about 3k tokens of English (12k at worst, a token a
character), far under the ~25k-token cap Claude Code puts on one MCP result."""
DEFAULT_WINDOW, MAX_WINDOW = 3, 20
"""Neighbours shown on each side of the matched message."""
MATCHED_CHARS = 4_000
"""The matched message's text is cut here; its neighbours share what is left."""
_AT = re.compile(r"^(.*\S)\s*#(\d+)$")
"""`0c117353 #11`: an id as `recall search --messages` prints it, opening at message 11."""

SHOW = {
    "type": "object",
    "properties": {
        "session_id": {
            "type": "string",
            "description": "A session_id from search_history (or a unique prefix of one)",
        },
        "message_index": {
            "type": "integer",
            "description": "The message to read around: a search result's message_index"
            " (default 0, the start of the session)",
        },
        "window": {
            "type": "integer",
            "description": f"Messages shown on each side of message_index. Default:"
            f" {DEFAULT_WINDOW}, max: {MAX_WINDOW}",
        },
        "start": {
            "type": "integer",
            "description": "Read whole messages as pages instead, from this message_index"
            " (0 for the beginning); for the next page pass next_start",
        },
        "agent": {"type": "string", "description": "The agent, when two agents' ids collide"},
        "computer": {
            "type": "string",
            "description": "A search result's computer when it starts with team: (the team's"
            " index); otherwise leave it out",
        },
    },
    "required": ["session_id"],
}
SHOW_ALIASES = {"session": "session_id"}
"""The name show_session took before it took the one search_history returns."""


def show_session(args: dict[str, Any]) -> dict[str, Any]:
    from recall.search.request import is_team
    from recall.store import open_reader
    from recall.store.queries import load_mirror, resolve_session

    ref = args.get("session_id")
    ref = ref.strip() if isinstance(ref, str) else ""
    if not ref:
        raise ToolError("Parameter 'session_id' is required and cannot be empty")
    at = _index(args.get("message_index"), "message_index")
    printed = _AT.match(ref)
    if printed:  # `abc123 #11`, as the CLI prints a message's place
        ref, at = printed.group(1), at if at is not None else int(printed.group(2))
    start = _index(args.get("start"), "start")
    window = _index(args.get("window"), "window")
    window = DEFAULT_WINDOW if window is None else min(window, MAX_WINDOW)
    agent = args.get("agent")
    agent = agent.strip() if isinstance(agent, str) and agent.strip() else None
    computer = args.get("computer")
    computer = computer.strip() if isinstance(computer, str) else ""
    if is_team(computer):  # the team's index (docs/team.md)
        from recall.team.mirror import load

        mirror = load(ref, agent, computer)
    else:
        with open_reader() as store:
            mirror = load_mirror(store.conn, resolve_session(store.conn, ref, agent))
    head: dict[str, Any] = {
        "session_id": mirror.session_id,
        "agent": mirror.agent,
        "project": mirror.project,
        "computer": mirror.computer,
        "title": mirror.title,
        "started_at": mirror.started_at,
        "ended_at": mirror.ended_at,
        "message_count": len(mirror.messages),
    }
    messages = [
        {"message_index": i, "role": m.role, "text": m.text, "timestamp": m.timestamp}
        for i, m in enumerate(mirror.messages)
    ]
    if start is not None:
        return _page(head, messages, start)
    return _window(head, messages, at or 0, window)


def _window(
    head: dict[str, Any], messages: list[dict[str, Any]], at: int, window: int
) -> dict[str, Any]:
    """Message `at` and `window` neighbours on each side, each cut to its share."""
    total = len(messages)
    at = min(at, max(total - 1, 0))
    lo, hi = max(0, at - window), min(total, at + window + 1)
    out = {**head, "message_index": at, "messages": [], "next_start": hi if hi < total else None}
    if not total:
        return out
    room = PAGE_CHARS - _size(out) - 200
    matched = _fit(messages[at], min(MATCHED_CHARS, room))
    room -= _size(matched)
    share = room // max(1, hi - lo - 1)
    out["messages"] = [matched if i == at else _fit(messages[i], share) for i in range(lo, hi)]
    return out


def _page(head: dict[str, Any], messages: list[dict[str, Any]], start: int) -> dict[str, Any]:
    """Whole messages from `start` while they fit in a page; a message longer than a
    page alone is cut, and the rest is said to exist."""
    total = len(messages)
    page = {**head, "start": min(start, total), "next_start": None, "messages": []}
    used = _size(page)
    for index in range(start, total):
        item = messages[index]
        size = _size(item) + 1
        if used + size > PAGE_CHARS:
            if page["messages"]:
                page["next_start"] = index
                break
            page["messages"].append(_fit(item, PAGE_CHARS - used - 200))
            if index + 1 < total:
                page["next_start"] = index + 1
            break
        page["messages"].append(item)
        used += size
    return page


def _fit(item: dict[str, Any], chars: int) -> dict[str, Any]:
    """`item` whose JSON is at most `chars` long (its text cut, and the cut said)."""
    if _size(item) <= chars:
        return item
    text: str = item["text"]
    keep = max(0, min(len(text), chars - (_size(item) - len(text)) - 120))
    while True:
        cut = dict(item)
        cut["text"] = text[:keep] + (
            f" […{len(text) - keep} more characters: show_session with"
            f" start={item['message_index']} reads the whole message]"
        )
        if keep == 0 or _size(cut) <= chars:
            return cut
        keep = max(0, keep - max(50, (_size(cut) - chars)))


def _size(obj: Any) -> int:
    return len(json.dumps(obj, ensure_ascii=False, separators=(",", ":")))


def _index(value: Any, name: str) -> int | None:
    """A message index or count: an integer 0 or more (or its digits as text); None if absent."""
    if value is None:
        return None
    if isinstance(value, str) and value.strip().isdigit():
        value = int(value)
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise ToolError(f"Parameter '{name}' must be an integer, 0 or more: {value!r}")
    return value
