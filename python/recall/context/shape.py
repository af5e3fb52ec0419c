"""Fitting the facts to a budget and to each agent's hook output.

Caps (docs/agents.md): Claude Code cuts hook output at 10,000 characters;
Codex moves output past about 2,500 tokens to a file; Gemini CLI parses
stdout as JSON and nothing else. Tokens are estimated from above (a third of
the ASCII characters plus one per other character), so a real tokenizer
never counts more than the estimate.
"""

from __future__ import annotations

import json

from recall.context.gather import Facts

FORMATS = ("claude", "codex", "gemini", "qwen", "text")
EVENTS = ("session-start", "prompt-submit")
HOOK_EVENT = {
    ("session-start", "claude"): "SessionStart",
    ("prompt-submit", "claude"): "UserPromptSubmit",
    ("session-start", "codex"): "SessionStart",
    ("prompt-submit", "codex"): "UserPromptSubmit",
    ("session-start", "gemini"): "SessionStart",
    ("prompt-submit", "gemini"): "BeforeAgent",
    ("session-start", "qwen"): "SessionStart",  # Qwen Code reads Claude Code's shape
    ("prompt-submit", "qwen"): "UserPromptSubmit",
}
CHAR_CAP = {"claude": 10_000}
TOKEN_CAP = {"codex": 2_500}
PREAMBLE = "recall: notes from this user's earlier agent sessions on this computer (for reference)."
MEMORY_SHARE = 0.5
"""MEMORY.md may take at most this share of the budget when there are excerpts too."""


def tokens(text: str) -> int:
    """An upper estimate of the tokens in `text`."""
    ascii_chars = sum(1 for c in text if c < "\x80")
    return -(-ascii_chars // 3) + (len(text) - ascii_chars)


def _take(lines: list[str], budget: int) -> list[str]:
    """The leading lines that fit in `budget` tokens (a line is never cut in half)."""
    out, used = [], 0
    for line in lines:
        cost = tokens(line) + 1
        if used + cost > budget:
            break
        out.append(line)
        used += cost
    return out


def compose(facts: Facts, budget: int) -> str:
    """The context block within `budget` tokens, or "" when there is nothing to say."""
    room = budget - tokens(PREAMBLE) - 1
    memory: list[str] = []
    if facts.memory:
        share = int(room * MEMORY_SHARE) if facts.excerpts else room
        memory = _take(facts.memory, share - tokens("From MEMORY.md:") - 1)
        if memory:
            memory = ["From MEMORY.md:", *memory]
            room -= sum(tokens(x) + 1 for x in memory)
    excerpts = _take(facts.excerpts, room - tokens(facts.heading) - 2)
    if not memory and not excerpts:
        return ""
    parts = [PREAMBLE, *memory]
    if excerpts:
        parts += ["", facts.heading, *excerpts] if memory else [facts.heading, *excerpts]
    return "\n".join(parts)


def render(text: str, fmt: str, event: str) -> str:
    """What the hook prints: plain text, or the agent's hook JSON."""
    if fmt == "text":
        return text
    payload = {
        "hookSpecificOutput": {"hookEventName": HOOK_EVENT[event, fmt], "additionalContext": text}
    }
    return json.dumps(payload, ensure_ascii=False, separators=(",", ":"))


def fits(out: str, fmt: str) -> bool:
    return len(out) <= CHAR_CAP.get(fmt, len(out)) and tokens(out) <= TOKEN_CAP.get(fmt, 1 << 62)


def output(facts: Facts, fmt: str, event: str, budget: int) -> str:
    """The hook's whole stdout within `budget` tokens and the agent's cap; "" for nothing.

    The largest inner budget whose rendered output fits, found by bisection: the
    wrapper's escapes and the character cap are measured, never converted to tokens."""

    def fitting(inner: int) -> str | None:
        text = compose(facts, inner)
        if not text:
            return ""
        out = render(text, fmt, event)
        return out if fits(out, fmt) and tokens(out) <= budget else None

    low, high, best = 1, budget, ""
    while low <= high:
        mid = (low + high) // 2
        out = fitting(mid)
        if out is None:
            high = mid - 1
        else:
            best, low = out, mid + 1
    return best
