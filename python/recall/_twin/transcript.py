"""Twin of `rust/src/transcript.rs`: `parse_transcript` for every agent, in pure Python."""

from __future__ import annotations

from typing import Any

from recall._twin.records import Origin, ParseResult, flatten


def parse_transcript(
    agent: str, data: bytes, base: int, state: dict[str, Any], origin: Origin
) -> ParseResult:
    if agent == "claude":
        from recall._twin.claude import parse
    elif agent == "codex":
        from recall._twin.codex import parse
    elif agent == "gemini":
        from recall._twin.gemini import parse
    else:
        raise ValueError(f"no transcript parser for agent {agent!r} (known: claude, codex, gemini)")
    return flatten(parse(origin, data, base, state))
