"""Markdown cut into chunks by headings: each chunk is one section, with its heading path.

A chunk is what one search result points at (`CLAUDE.md › Testing › Fixtures`),
so a section is the unit; a section longer than `MAX_CHARS` is cut again at
paragraph breaks. Each chunk carries a hash of its heading path and text, which
is how re-indexing a file finds the chunks an edit changed (`memory.files`).
Headings inside fenced code blocks are text, not structure.
"""

from __future__ import annotations

import re

from recall.digest import sha1_hex
from recall.record import Record

MAX_CHARS = 4000
"""About 1000 tokens (Shelley's chunk size), well above a typical section."""
SEPARATOR = " › "
"""Between the headings of a path, as results show it."""

_HEADING = re.compile(r"^ {0,3}(#{1,6})[ \t]+(.*?)[ \t]*#*[ \t]*$")
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")


class Chunk(Record, frozen=True):
    heading: str
    """The heading path, outermost first ('' for text before the first heading)."""
    text: str
    hash: str


def _chunk(heading: str, text: str) -> Chunk:
    return Chunk(heading, text, sha1_hex(f"{heading}\0{text}".encode()))


def _hard_cut(para: str) -> int:
    """Where to cut a paragraph longer than a chunk: at its last space within MAX_CHARS
    (a word, or a `[REDACTED:label]`, stays whole), or at MAX_CHARS when there is none
    in the second half."""
    space = para.rfind(" ", MAX_CHARS // 2, MAX_CHARS + 1)
    return space if space > 0 else MAX_CHARS


def _pieces(body: str) -> list[str]:
    """`body` in pieces of at most MAX_CHARS, cut at blank lines where it can be."""
    if len(body) <= MAX_CHARS:
        return [body]
    out: list[str] = []
    current = ""
    for para in re.split(r"\n\s*\n", body):
        while len(para) > MAX_CHARS:  # one paragraph longer than a chunk: cut it hard
            if current:
                out.append(current)
                current = ""
            cut = _hard_cut(para)
            out.append(para[:cut])
            para = para[cut:]
        if current and len(current) + 2 + len(para) > MAX_CHARS:
            out.append(current)
            current = ""
        current = f"{current}\n\n{para}" if current else para
    if current:
        out.append(current)
    return out


def chunk_markdown(text: str) -> list[Chunk]:
    """The sections of `text`, in order; a section with no text of its own is left out
    (its heading still names the sections below it)."""
    chunks: list[Chunk] = []
    path: list[tuple[int, str]] = []
    body: list[str] = []
    fence: str | None = None

    def flush() -> None:
        content = "\n".join(body).strip()
        body.clear()
        if content:
            heading = SEPARATOR.join(title for _, title in path)
            chunks.extend(_chunk(heading, piece.strip()) for piece in _pieces(content))

    for line in text.splitlines():
        opened = _FENCE.match(line)
        if fence is not None:
            if opened and opened.group(1)[0] == fence[0] and len(opened.group(1)) >= len(fence):
                fence = None
            body.append(line)
            continue
        if opened:
            fence = opened.group(1)
            body.append(line)
            continue
        heading = _HEADING.match(line)
        if heading is None:
            body.append(line)
            continue
        flush()
        level = len(heading.group(1))
        while path and path[-1][0] >= level:
            path.pop()
        path.append((level, heading.group(2).strip()))
    flush()
    return chunks
