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
    elif agent == "copilot":
        from recall._twin.copilot import parse
    elif agent == "cursor":
        from recall._twin.cursor import parse
    elif agent in ("pi", "openclaw"):
        from recall._twin.pi import parse as parse_pi

        return flatten(parse_pi(agent, origin, data, base, state))
    elif agent == "qwen":
        from recall._twin.qwen import parse
    elif agent == "antigravity":
        from recall._twin.antigravity import parse
    else:
        raise ValueError(
            f"no transcript parser for agent {agent!r}"
            " (known: antigravity, claude, codex, copilot, cursor, gemini, openclaw, pi, qwen)"
        )
    return flatten(parse(origin, data, base, state))
