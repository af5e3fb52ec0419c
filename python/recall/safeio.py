"""Reading files recall did not write: regular files only, in bounded pieces.

A path under an agent's folder can be anything: a FIFO (an `open` that
never returns), a symlink to /dev/zero (a read that never ends), a 200 MB
single line. The check is made on the open descriptor, not the name (a name
can be swapped between a check and an open): the file is opened with
`O_NONBLOCK`, so opening a FIFO returns at once, then `fstat` says what it
is. Reads are bounded by the caller.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from typing import BinaryIO

MAX_LINE = 64 * 1024 * 1024
"""A transcript line (or a whole JSON document) longer than this is skipped and counted."""
SKIP_LONG_LINE = "line over 64 MB"
SKIP_BIG_DOCUMENT = "document over 64 MB"


class NotARegularFile(OSError):
    """The path is a FIFO, a device, a socket or a directory: recall does not read it."""

    def __init__(self, path: str, kind: str) -> None:
        super().__init__(f"{path!r} is {kind}, not a transcript")
        self.kind = kind


def kind_of(mode: int) -> str:
    """What a file of `mode` is, in words, when it is not a regular file."""
    kinds = (
        (stat.S_ISFIFO, "a FIFO"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
        (stat.S_ISSOCK, "a socket"),
        (stat.S_ISDIR, "a directory"),
    )
    return next((name for test, name in kinds if test(mode)), "not a regular file")


def open_regular(path: str | os.PathLike[str]) -> BinaryIO:
    """`path` opened for reading if it is a regular file (after symlinks); else
    NotARegularFile, without ever blocking on the open."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
    flags |= getattr(os, "O_NOCTTY", 0) | getattr(os, "O_BINARY", 0)
    fd = os.open(path, flags)
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise NotARegularFile(os.fsdecode(path), kind_of(mode))
        if hasattr(os, "set_blocking"):
            os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def read_head(path: str | os.PathLike[str], limit: int) -> bytes:
    """At most `limit` bytes from the start of a regular file (to sniff what wrote
    it); OSError (NotARegularFile included) for anything else, never a hang."""
    with open_regular(path) as fh:
        return fh.read(limit)


def lines(fh: BinaryIO) -> Iterator[bytes | int]:
    """The file's lines, each with its newline; a line longer than `MAX_LINE` comes
    as its length instead (it was passed over, never held whole)."""
    while line := fh.readline(MAX_LINE + 1):
        if len(line) <= MAX_LINE or line.endswith(b"\n"):
            yield line
            continue
        passed, _ = skip_line(fh)
        yield len(line) + passed


def skip_line(fh: BinaryIO, chunk: int = 1 << 20) -> tuple[int, bool]:
    """Read past the rest of the current line without keeping it.

    Returns how many bytes were passed over (the newline included) and
    whether a newline ended them (False: the file ended mid-line).
    """
    passed = 0
    while block := fh.read(chunk):
        at = block.find(b"\n")
        if at >= 0:
            fh.seek(at + 1 - len(block), os.SEEK_CUR)
            return passed + at + 1, True
        passed += len(block)
    return passed, False
