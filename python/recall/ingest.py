"""Reading a transcript into the store, incrementally: only bytes not yet indexed are parsed.

Ingest is split in two so `sync` can batch: `prepare` stats, reads and parses a
file without any lock; `commit` merges the result inside the caller's write
transaction. Everything `commit` does is idempotent (messages are keyed), so
two processes racing over the same transcript yield one mirror.
"""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

from recall.agents import Adapter
from recall.digest import sha1_hex
from recall.record import Record
from recall.store import Store
from recall.store.writer import TranscriptMark, apply_part, read_mark, write_mark
from recall.types import Parsed

_HEAD_BYTES = 1024


class Job(Record):
    """A parsed slice of one transcript, ready to commit."""

    path: str
    agent: str
    base: int
    """Offset the parse started from (0 means the file was read from the start)."""
    parsed: Parsed
    mark: TranscriptMark
    nbytes: int


def _head(data_start: bytes) -> str:
    return sha1_hex(data_start)


def _whole_file(adapter: Adapter, path: Path) -> bool:
    whole = getattr(adapter, "whole_file", None)
    return not adapter.incremental or bool(whole and whole(path))


def prepare(
    db: sqlite3.Connection, adapter: Adapter, path: Path, force: bool = False
) -> Job | None:
    """Parse what is new in `path`; None when nothing changed since the last ingest.

    Raises OSError if the file cannot be read.
    """
    key = str(path)
    st = path.stat()
    mark = read_mark(db, key)
    if mark and not force and mark.size == st.st_size and mark.mtime_ns == st.st_mtime_ns:
        return None
    whole = _whole_file(adapter, path)
    with open(path, "rb") as fh:
        prefix = fh.read(_HEAD_BYTES)
        offset, state, skipped = 0, {}, {}
        resumable = mark and not force and not whole and mark.offset <= st.st_size
        if mark and resumable and _head(prefix[: mark.offset]) == mark.head:
            offset, state, skipped = mark.offset, mark.state, dict(mark.skipped)
        fh.seek(offset)
        data = fh.read()
    parsed = adapter.parse(path, data, offset, state)
    if whole:
        for part in parsed.parts:
            part.replace = True
    for reason, count in parsed.skipped.items():
        skipped[reason] = skipped.get(reason, 0) + count
    end = offset + parsed.offset
    # The head fingerprints the file's first bytes, so a rewritten file is re-read whole.
    head = _head((prefix[:offset] + data)[: min(end, _HEAD_BYTES)])
    new_mark = TranscriptMark(
        path=key,
        agent=adapter.name,
        size=st.st_size,
        mtime_ns=st.st_mtime_ns,
        head=head,
        offset=end,
        state=parsed.state,
        skipped=skipped,
    )
    return Job(
        path=key, agent=adapter.name, base=offset, parsed=parsed, mark=new_mark, nbytes=len(data)
    )


def commit(db: sqlite3.Connection, job: Job, computer: str) -> list[str]:
    """Merge a prepared job inside the caller's transaction; returns the sessions touched."""
    current = read_mark(db, job.path)
    for part in job.parsed.parts:
        apply_part(db, part, computer, job.path)
    # Another process may have read further meanwhile; never move its mark back
    # unless this job re-read the file from the start (a rewrite or truncation).
    if current is None or job.base == 0 or job.mark.offset >= current.offset:
        write_mark(db, job.mark)
    return [part.info.session_id for part in job.parsed.parts]


def ingest_path(
    store: Store, adapter: Adapter, path: Path, computer: str, force: bool = False
) -> Job | None:
    """Prepare and commit one transcript in its own transaction."""
    job = prepare(store.conn, adapter, path, force)
    if job is None:
        return None
    with store.transaction() as db:
        commit(db, job, computer)
    return job


def resolve(path: str | os.PathLike[str]) -> Path:
    """The absolute, user-expanded path recall keys a transcript by."""
    return Path(os.path.expanduser(os.fspath(path))).resolve()


def ingest_bytes(store: Store, adapter: Adapter, data: bytes, computer: str) -> Parsed:
    """Parse and store a transcript that has no file (an import piped on stdin)."""
    parsed = adapter.parse(Path("-"), data, 0, {})
    with store.transaction() as db:
        for part in parsed.parts:
            apply_part(db, part, computer, None)
    return parsed
