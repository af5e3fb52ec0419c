"""Pure-Python twin of `recall._core`: same names, same results (see `_core.pyi`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from recall import __version__
from recall._pyrank import bm25_scores, dedup, tokenize
from recall._pyredact import redact, secret_spans
from recall.textutil import scrub

if TYPE_CHECKING:
    from recall._pyparse import Origin, ParseResult

_OPEN = "<system-reminder>"
_CLOSE = "</system-reminder>"


def strip_reminders(text: str) -> str:
    text = scrub(text)
    if _OPEN not in text:
        return text.strip()
    out: list[str] = []
    pos = 0
    while True:
        start = text.find(_OPEN, pos)
        if start < 0:
            out.append(text[pos:])
            break
        out.append(text[pos:start])
        end = text.find(_CLOSE, start + len(_OPEN))
        if end < 0:
            break
        pos = end + len(_CLOSE)
    return "".join(out).strip()


# --- transcript parsing ---
def parse_transcript(
    agent: str, data: bytes, base: int, state: dict[str, Any], origin: Origin
) -> ParseResult:
    # Imported on first use: the readers are not needed on the search path.
    from recall import _pyparse

    return _pyparse.parse_transcript(agent, data, base, state, origin)


__all__ = ["__version__", "parse_transcript", "redact", "secret_spans", "strip_reminders"]
__all__ += ["bm25_scores", "dedup", "tokenize"]  # ranking, from _pyrank
