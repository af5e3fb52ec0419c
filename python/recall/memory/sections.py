"""The markdown files recall writes sections into: daily logs and MEMORY.md.

A digest's section is found again by its heading alone (`## Digest 7`), so
no text recall writes under a heading may look like one: `body` escapes every
line that markdown would read as a heading (`\\## Digest 8`) and closes a code
fence left open. A file is rewritten whole, through a temporary file and a
rename, so a crash leaves the old file or the new one, never half a section;
`put` reads the result back, and the caller moves no watermark unless the
section is there.
"""

from __future__ import annotations

import os
import re
import tempfile
from pathlib import Path

from recall.errors import RecallError
from recall.safeio import open_regular

MAX_FILE = 4 * 1024 * 1024
"""What recall indexes of a memory file (`memory.files.MAX_FILE`): it never writes past it."""
_HEADING = re.compile(r"^ {0,3}#")
_FENCE = re.compile(r"^ {0,3}(```|~~~)")


def body(text: str) -> str:
    """`text` safe to put under a heading: no line reads as a heading, no fence stays open."""
    lines = []
    fences = 0
    for line in text.strip().splitlines():
        line = line.rstrip()
        if _HEADING.match(line):
            line = "\\" + line.lstrip(" ")
        elif _FENCE.match(line):
            fences += 1
        lines.append(line)
    if fences % 2:
        lines.append("```")
    return "\n".join(lines)


def read(path: Path) -> str:
    """The file's text ("" when it does not exist); RecallError when it is no regular
    file or is over MAX_FILE (recall neither hangs on a FIFO nor grows a huge file)."""
    try:
        with open_regular(path) as fh:
            data = fh.read(MAX_FILE + 1)
    except FileNotFoundError:
        return ""
    except OSError as exc:
        raise RecallError(f"cannot read {path}: {exc}") from None
    if len(data) > MAX_FILE:
        raise RecallError(
            f"{path} is over {MAX_FILE // (1024 * 1024)} MB, more than recall indexes:"
            " trim it, then run the command again"
        )
    return data.decode("utf-8", errors="replace")


def _spans(text: str) -> list[tuple[str, int, int]]:
    """(heading, start, end) of each `## ` section: from its heading line to the next
    heading of level one or two (or the end)."""
    starts = [m.start() for m in re.finditer(r"^#{1,2} .*$", text, re.MULTILINE)]
    out = []
    for n, at in enumerate(starts):
        end = starts[n + 1] if n + 1 < len(starts) else len(text)
        eol = text.find("\n", at)
        line = text[at : eol if eol >= 0 else len(text)]
        if line.startswith("## "):
            out.append((line.rstrip(), at, end))
    return out


def section(text: str, heading: str) -> str | None:
    """The body under `heading` (stripped), None when the file has no such section."""
    for head, start, end in _spans(text):
        if head == heading:
            return text[start + len(head) : end].strip()
    return None


def without(text: str, headings: set[str]) -> str:
    """`text` with the sections under `headings` cut out."""
    for head, start, end in reversed(_spans(text)):
        if head in headings:
            text = text[:start] + text[end:]
    return text


def with_section(text: str, title: str, heading: str, content: str) -> str:
    """`text` with `heading`'s section holding `content` (already `body`-escaped): an
    earlier copy (a partial write, notes added to) is replaced where it stands, else
    the section is appended."""
    block = f"{heading}\n\n{content.strip()}\n"
    copies = [(start, end) for head, start, end in _spans(text) if head == heading]
    if copies:
        for start, end in reversed(copies[1:]):
            text = text[:start] + text[end:]
        start, end = copies[0]
        tail = text[end:]
        return text[:start] + block + ("\n" + tail if tail else "")
    if not text.strip():
        text = f"# {title}\n"
    return text.rstrip("\n") + f"\n\n{block}"


def write(path: Path, text: str) -> None:
    """Replace the file with `text` atomically (temporary file, fsync, rename), keeping
    its mode (0600 for a new file); a symlinked file is written where it points."""
    if len(text.encode("utf-8")) > MAX_FILE:
        raise RecallError(
            f"{path} would grow over {MAX_FILE // (1024 * 1024)} MB, more than recall"
            " indexes, so nothing was written: trim it, then run the command again"
        )
    target = Path(os.path.realpath(path))
    try:
        _replace(target, text)
    except OSError as exc:
        raise RecallError(f"cannot write {path}: {exc.strerror or exc}") from None


def _replace(target: Path, text: str) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    try:
        mode = os.stat(target).st_mode & 0o7777
    except FileNotFoundError:
        mode = 0o600
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
            fh.flush()
            if hasattr(os, "fchmod"):
                os.fchmod(fh.fileno(), mode)
            os.fsync(fh.fileno())
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def put(path: Path, title: str, heading: str, content: str) -> None:
    """Write `heading`'s section into the file, then check it is there as written;
    RecallError otherwise (the caller then keeps its watermark where it was)."""
    if section(read(path), heading) != content.strip():
        write(path, with_section(read(path), title, heading, content))
    if section(read(path), heading) != content.strip():
        raise RecallError(f"{path} does not hold {heading!r} as written; nothing was marked done")


def drop(path: Path, headings: set[str]) -> bool:
    """Cut the sections under `headings` out of the file; True when any was there."""
    text = read(path)
    if not text or not any(h in headings for h, _, _ in _spans(text)):
        return False
    write(path, without(text, headings))
    return True
