"""Pure-Python twin of `recall._core`: same names, same results (see `_core.pyi`)."""

from recall import __version__
from recall._pyrank import bm25_scores, dedup, tokenize
from recall.textutil import scrub

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


__all__ = ["__version__", "strip_reminders"]
__all__ += ["bm25_scores", "dedup", "tokenize"]  # ranking, from _pyrank
