"""Reading a transcript into the store, incrementally: only bytes not yet indexed are parsed.

This is where privacy meets the store: each session part is checked
(`privacy.policy.refusal`: tombstones, exclusions, the ignore marker), a
marked session is deleted (`privacy.forget`), and what is stored goes
through the user's redactor, which the store writer is handed.

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
from recall.privacy import policy
from recall.privacy.forget import MARKER, forget_marked
from recall.privacy.redaction import current
from recall.record import Record
from recall.store import Store
from recall.store.writer import (
    Redactor,
    TranscriptMark,
    apply_part,
    clean_ids,
    read_mark,
    write_mark,
)
from recall.types import Parsed, SessionPart

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
    whole = not adapter.incremental or adapter.whole_file(path)
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


def store_part(
    db: sqlite3.Connection,
    part: SessionPart,
    computer: str,
    transcript: str | None,
    redactor: Redactor,
) -> int | None:
    """Store one session part unless privacy keeps it out; its rowid, or None when refused.

    A part carrying the ignore marker also deletes what was indexed of its
    session and leaves a tombstone.
    """
    clean_ids(part)
    reason = policy.refusal(db, part)
    if reason == MARKER:
        forget_marked(db, part.info.session_id, part.info.agent)
    if reason is not None:
        return None
    return apply_part(db, part, computer, transcript, redactor)


def commit(db: sqlite3.Connection, job: Job, computer: str) -> list[str]:
    """Merge a prepared job inside the caller's transaction; returns the sessions touched."""
    redactor = current()  # once per job: looking the settings up costs per call
    mark = read_mark(db, job.path)
    for part in job.parsed.parts:
        store_part(db, part, computer, job.path, redactor)
    # Another process may have read further meanwhile; never move its mark back
    # unless this job re-read the file from the start (a rewrite or truncation).
    if mark is None or job.base == 0 or job.mark.offset >= mark.offset:
        write_mark(db, job.mark, redactor)
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
    redactor = current()
    with store.transaction() as db:
        for part in parsed.parts:
            store_part(db, part, computer, None, redactor)
    return parsed
