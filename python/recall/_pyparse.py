"""Twin of `rust/src/transcript.rs`: `parse_transcript` for every agent, in pure Python.

Returns the same plain data as the Rust core (see `_core.pyi`); the readers
build `recall.types` Structs internally, flattened here to that shape.
"""

from __future__ import annotations

from typing import Any

from recall.types import Parsed

Origin = tuple[str, str | None, str | None, bool]
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
ParseResult = tuple[list[PartTuple], int, dict[str, Any], list[tuple[str, int]]]


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
    return parts, parsed.offset, parsed.state, list(parsed.skipped.items())


def parse_transcript(
    agent: str, data: bytes, base: int, state: dict[str, Any], origin: Origin
) -> ParseResult:
    if agent == "claude":
        from recall._pyclaude import parse
    elif agent == "codex":
        from recall._pycodex import parse
    elif agent == "gemini":
        from recall._pygemini import parse
    else:
        raise ValueError(f"no transcript parser for agent {agent!r} (known: claude, codex, gemini)")
    return flatten(parse(origin, data, base, state))
