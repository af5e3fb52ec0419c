"""Text rules every layer shares: lone surrogates, one-line titles."""

import re

_FENCE = re.compile(r"^\s*(?:```|~~~)\S*\s*$")
_MARKER = re.compile(r"^\s*(?:(?:#{1,6}|>|[-*+])\s+|>)+")
_LINK = re.compile(r"!?\[([^\]\n]*)\]\([^)\s]*\)")
_BOLD = re.compile(r"\*\*(?=\S)(.+?)(?<=\S)\*\*")
_ESCAPE = (
    r"(?:\x1b\]|\x9d|\x1bP|\x90|\x1b[X^_]|[\x98\x9e\x9f])[^\x07\x1b\x9c]*(?:\x07|\x1b\\|\x9c)?"
    r"|(?:\x1b\[|\x9b)[0-?]*[ -/]*[@-~]?"
    r"|\x1b[ -/]*[0-~]?"
)
"""A terminal escape sequence: OSC/DCS/APC strings (to BEL or ST), CSI, or a short ESC one."""
_BIDI = "\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069"
"""Bidirectional marks, embeddings, overrides and isolates: they reorder what a terminal
shows (`tests/cli/test_terminal_safety.py`), so text could read other than it is."""
_NOISE = re.compile(_ESCAPE + rf"|[\x00-\x08\x0b-\x1f\x7f-\x9f{_BIDI}]|`+")
_CONTROL = re.compile(_ESCAPE + rf"|[\x00-\x08\x0b-\x1f\x7f-\x9f{_BIDI}]")


def printable(text: str, keep: str = "") -> str:
    """`text` safe to print on a terminal: escape sequences (which could set the
    clipboard, retitle the window or clear the screen), C0/C1 control characters and
    bidirectional controls dropped, except newline, tab and the characters in `keep`."""
    if text.isprintable():
        return text
    return _CONTROL.sub(lambda m: m.group() if m.group() in keep else "", text)


def scrub(text: str) -> str:
    """`text` with each lone surrogate replaced by U+FFFD (both cores apply this rule).

    JSON written by JavaScript can escape half an emoji (`\\ud83d`) where a
    string was cut; Python decodes it to a lone surrogate, which neither UTF-8
    (so SQLite) nor Rust can take. Valid text is returned as it is.
    """
    if text.isascii():  # O(1): CPython records it
        return text
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")
    return text


def one_line(text: str, limit: int = 80) -> str:
    """`text` as a one-line title: markdown marks, code fences and terminal escapes
    dropped, whitespace collapsed, cut at a word boundary to at most `limit` characters.

    `**bold**`, `` `code` `` and `[link](url)` keep their words; heading, quote and
    list markers at the start of a line go, as do fence lines (the code stays).
    """
    lines = (_MARKER.sub("", ln) for ln in text.splitlines() if not _FENCE.match(ln))
    words = _BOLD.sub(r"\1", _LINK.sub(r"\1", "\n".join(lines)))
    return shorten(_NOISE.sub("", words), limit)


def shorten(text: str, limit: int = 80) -> str:
    """`text` on one line (whitespace collapsed), cut at a word boundary to at most
    `limit` characters."""
    line = " ".join(text.split())
    if len(line) <= limit:
        return line
    cut = line[: limit - 1].rsplit(" ", 1)[0] or line[: limit - 1]
    return cut + "…"
