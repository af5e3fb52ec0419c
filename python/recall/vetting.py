"""Which transcript files recall reads, the key the index stores each under, how a path
is shown, and whether a file is as the index last saw it.

Shared by `sync`, `ingest` and the hook, and kept apart from them so a hook whose
transcript has not changed answers from here and its one look at the index, without
loading the parser, the writer or the privacy checks (`tests/ingest/test_hook_lock.py`).
"""

from __future__ import annotations

import errno
import os
import sqlite3
import stat
from pathlib import Path

from recall.privacy.redaction import current
from recall.safeio import kind_of
from recall.store.writer import TranscriptMark, read_mark


def shown(path: str | Path) -> str:
    """A path fit to print or log: undecodable bytes and control characters escaped, and
    secrets redacted (a Claude project folder is named after a directory that can hold one)."""
    text = os.fsencode(path).decode("utf-8", "backslashreplace")
    return current().redact("".join(c if c.isprintable() else repr(c)[1:-1] for c in text))


def _storable_name(path: Path) -> str | None:
    """Why recall cannot key a transcript by `path`, or None when it can."""
    try:
        str(path).encode("utf-8")
    except UnicodeEncodeError:
        return "file name is not valid UTF-8"
    return None


def vet(path: Path) -> tuple[Path, str | None]:
    """The file `path` resolves to, and why recall passes it over (None: it can be read):
    a symlink loop, a path that does not resolve, a file that is not a regular file, a
    name that is not UTF-8. Sync's discovery and the hooks ask the same question."""
    try:
        real = path.resolve(strict=True)
        mode = real.stat().st_mode
    except RuntimeError:  # Python 3.11-3.12 on a symlink loop
        return path, "symlink loop"
    except OSError as exc:
        loop = exc.errno == errno.ELOOP
        return path, "symlink loop" if loop else f"cannot resolve: {exc.strerror}"
    why = None if stat.S_ISREG(mode) else kind_of(mode)
    return real, why or _storable_name(real)


def stored_path(path: Path) -> str:
    """How the index names a transcript: its path with secrets redacted.

    Claude Code names a project's folder after its working directory, which
    can hold a token (`~/.claude/projects/-home-me-ghp_…/`). The redacted path
    is still a key (the same file always redacts alike) and still readable;
    `show --raw` finds such a file again by discovery (`sync.find_transcript`).
    """
    return current().redact(str(path))


def is_current(mark: TranscriptMark | None, st: os.stat_result) -> bool:
    """Whether a file with stat `st` is as its mark records it (same size and mtime):
    there is nothing new in it to read."""
    return mark is not None and mark.size == st.st_size and mark.mtime_ns == st.st_mtime_ns


def unchanged(db: sqlite3.Connection, path: Path) -> bool:
    """Whether `path` is as the index last saw it, by one read and no lock: an ingest of
    it would write nothing. False when it cannot be looked at (the ingest says why)."""
    try:
        st = path.stat()
    except OSError:
        return False
    return is_current(read_mark(db, stored_path(path)), st)
