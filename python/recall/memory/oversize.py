"""Memory files too big to index: found where the user looks, never silently left out.

`sync` passes over a MEMORY.md, daily log or guidance file past `files.MAX_FILE`
(a huge file is not a note, and reading it would cost every sync); it then
drops out of search. `recall status`, `recall doctor` and `sync`'s output name
such files, so the user learns why their notes stopped being found.
"""

from __future__ import annotations

import os
import sqlite3

from recall.memory.files import MAX_FILE, _own_sources, _project_sources
from recall.record import Record


class Oversize(Record):
    path: str
    size: int


def too_big(db: sqlite3.Connection) -> list[Oversize]:
    """Every memory, daily-log or guidance source over MAX_FILE (one `stat` each)."""
    found = []
    for source in _own_sources() + _project_sources(db):
        try:
            size = os.stat(source.path).st_size
        except OSError:
            continue
        if size > MAX_FILE:
            found.append(Oversize(str(source.path), size))
    return found


def describe(found: list[Oversize]) -> str:
    """One line naming the files, or "" when there are none."""
    if not found:
        return ""
    files = ", ".join(f"{f.path} ({f.size / 1e6:.1f} MB)" for f in found)
    return f"too big to index (over {MAX_FILE // (1024 * 1024)} MB), so not searched: {files}"
