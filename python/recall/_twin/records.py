"""Twin of `rust/src/records.rs`: a parse as the plain tuples both cores return."""

from __future__ import annotations

from typing import Any

from recall.types import Origin, Parsed

PartTuple = tuple[
    str,
    str,
    str | None,
    str | None,
    int,
    str | None,
    str | None,
    dict[str, str],
    list[tuple[str, str, str, str | None]],
    bool,
    list[str],
]
ParseResult = tuple[
    list[PartTuple], int, dict[str, Any], list[tuple[str, int]], list[tuple[str, str]]
]


def flatten(parsed: Parsed) -> ParseResult:
    """`Parsed` as the plain tuples both cores return."""
    parts: list[PartTuple] = []
    for part in parsed.parts:
        i = part.info
        messages = [(m.key, m.role, m.text, m.timestamp) for m in part.messages]
        parts.append(
            (
                i.session_id,
                i.agent,
                i.project,
                i.title,
                i.title_rank,
                i.parent_session_id,
                i.started_at,
                dict(i.metadata),
                messages,
                part.replace,
                list(part.rewinds),
            )
        )
    skipped = list(parsed.skipped.items())
    return parts, parsed.offset, parsed.state, skipped, list(parsed.summaries)


def carried_sid(state: dict[str, Any], file_id: str) -> str:
    """The session id a parse carries in its state (`"sid"`), set from the file's own
    id the first time; later parses of the file keep whatever the records said."""
    sid = state.get("sid")
    if not isinstance(sid, str):
        sid = state["sid"] = file_id
    return sid


__all__ = ["Origin", "ParseResult", "PartTuple", "carried_sid", "flatten"]
