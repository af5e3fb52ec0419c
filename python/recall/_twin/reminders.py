"""Twin of `rust/src/reminders.rs`: `<system-reminder>` stripping."""

from __future__ import annotations

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
