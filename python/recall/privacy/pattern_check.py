"""Refusing user patterns that can backtrack for ever, before they run on anything.

User patterns (`[[redact.extra]]`, `allow_patterns`) run in Python's `re`,
whichever core is active, so both cores redact alike. `re` backtracks: a
pattern such as `(a+)+$` takes exponential time on `aaaa…!`, and it would
run while recall redacts a hook's turn. The shapes that cause exponential
backtracking are refused, named, with the reason:

- a repeated group whose body can itself repeat (`(a+)+`, `(\\w*\\s?)*`);
- a repeated group holding an alternation (`(a|ab)*`), whose branches can
  match the same text in several ways;
- a backreference (`(\\w)\\1`), which no linear-time engine supports either.

Bounded repeats (`{0,8}`) of such bodies are allowed when the bound is
small. Polynomial costs that remain (`.*a.*b` on a long line) are bounded
by the 64 MB line cap, and redaction never runs under the write lock.
"""

from __future__ import annotations

from typing import Any

try:  # the stdlib's own regex parser (re._parser since 3.11, sre_parse before)
    from re import _parser as sre_parse  # type: ignore[attr-defined]
except ImportError:  # pragma: no cover - Python < 3.11
    import sre_parse

SMALL_BOUND = 16
"""A repeat bounded by this many or fewer is not a backtracking risk."""


def _repeats(node: Any) -> tuple[bool, bool]:
    """(has a repeat of unbounded or large count, has an alternation) within `node`."""
    repeat = alternation = False
    for op, av in node:
        name = str(op)
        if name in ("MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT"):
            _low, high, body = av
            if high is sre_parse.MAXREPEAT or high > SMALL_BOUND:
                repeat = True
            r, a = _repeats(body)
            repeat, alternation = repeat or r, alternation or a
        elif name == "BRANCH":
            alternation = True
            for branch in av[1]:
                r, a = _repeats(branch)
                repeat, alternation = repeat or r, alternation or a
        elif name in ("SUBPATTERN", "ATOMIC_GROUP", "ASSERT", "ASSERT_NOT"):
            body = av[-1]
            r, a = _repeats(body)
            repeat, alternation = repeat or r, alternation or a
    return repeat, alternation


def _walk(node: Any) -> str | None:
    for op, av in node:
        name = str(op)
        if name == "GROUPREF" or name == "GROUPREF_EXISTS":
            return "it refers back to a group (\\1), which can take exponential time"
        if name in ("MAX_REPEAT", "MIN_REPEAT"):
            _low, high, body = av
            big = high is sre_parse.MAXREPEAT or high > SMALL_BOUND
            inner_repeat, inner_alt = _repeats(body)
            if big and inner_repeat:
                return "a repeated group repeats again inside, which can take exponential time"
            if big and inner_alt:
                return "a repeated group holds alternatives, which can take exponential time"
            found = _walk(body)
        elif name == "BRANCH":
            found = next((w for b in av[1] if (w := _walk(b))), None)
        elif name in ("SUBPATTERN", "ATOMIC_GROUP", "ASSERT", "ASSERT_NOT", "POSSESSIVE_REPEAT"):
            found = _walk(av[-1])
        else:
            found = None
        if found:
            return found
    return None


def why_unsafe(pattern: str) -> str | None:
    """Why `pattern` can backtrack catastrophically, or None when it cannot."""
    try:
        tree = sre_parse.parse(pattern)
    except Exception:  # re.error: compiling reports it better
        return None
    return _walk(tree)
