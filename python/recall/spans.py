"""Labelled spans of text: overlaps merged, each rendered as `[REDACTED:label]`.

Shared by the twin's built-in rules and by `privacy.redaction`, which adds the
user's own patterns to the active core's spans whichever core runs.
"""

from __future__ import annotations

Span = tuple[int, int, str]
"""`(start, end, label)` in character offsets."""


def merge(spans: list[tuple[int, int, str]]) -> list[tuple[int, int, str]]:
    """Overlapping spans become one, labelled by the first (spans sorted by start)."""
    out: list[tuple[int, int, str]] = []
    for start, end, label in spans:
        if out and start < out[-1][1]:
            if end > out[-1][1]:
                out[-1] = (out[-1][0], end, out[-1][2])
        else:
            out.append((start, end, label))
    return out


def render(text: str, spans: list[tuple[int, int, str]]) -> str:
    """`text` with each (merged, sorted) span replaced by `[REDACTED:label]`."""
    if not spans:
        return text
    out: list[str] = []
    pos = 0
    for start, end, label in spans:
        out.append(text[pos:start])
        out.append(f"[REDACTED:{label}]")
        pos = end
    out.append(text[pos:])
    return "".join(out)
