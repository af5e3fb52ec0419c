"""Reading a transcript into the store, incrementally: only bytes not yet indexed are parsed.

This is where privacy meets the store: each session part is checked
(`privacy.policy.refusal`: tombstones, exclusions, the ignore marker), a
marked session is deleted (`privacy.forget`), and every text is redacted
once, where it enters (`redact_parsed`), before the store writer sees it.

Ingest is split in two so `sync` can batch: `prepare` stats, reads and parses a
file without any lock; `commit` merges the result inside the caller's write
transaction. Everything `commit` does is idempotent (messages are keyed), so
two processes racing over the same transcript yield one mirror.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any, BinaryIO

from recall.agents import Adapter
from recall.agents.base import SessionStore, StoredSession
from recall.digest import sha1_hex
from recall.privacy import policy
from recall.privacy.forget import MARKER, forget_marked
from recall.privacy.projects import project_matches
from recall.privacy.redaction import Redactor, current
from recall.record import Record, field, replace
from recall.safeio import MAX_LINE, SKIP_BIG_DOCUMENT, SKIP_LONG_LINE, open_regular, skip_line
from recall.store import Store
from recall.store.titles import record_summaries
from recall.store.writer import (
    TranscriptMark,
    apply_part,
    clean_ids,
    index_new_messages,
    read_mark,
    write_mark,
)
from recall.textutil import scrub
from recall.types import Message, Parsed, SessionPart
from recall.vetting import is_current, stored_path

_HEAD_BYTES = 1024
"""Bytes fingerprinted at the start of a file, and again just before the offset read to."""
PIECE = MAX_LINE
"""At most this much of a transcript is read and parsed at once (the rest: the next piece)."""


class Job(Record):
    """A parsed slice of one transcript, redacted, ready to commit.

    Redaction (the user's patterns included) runs in `prepare`, outside the
    write lock, so no pattern can hold the lock: committing is SQL only.
    """

    path: str
    agent: str
    base: int
    """Offset the parse started from (0 means the file was read from the start)."""
    parsed: Parsed
    mark: TranscriptMark
    nbytes: int
    more: bool = False
    """The file goes on past this piece: prepare it again once this job is committed."""
    marked: list[str] = field(default_factory=list)
    """Sessions whose text carried the ignore marker before redaction."""


def fingerprint(fh: BinaryIO, end: int) -> str:
    """What must still be there for a resume at `end` to be safe: a hash of the first
    KiB and one of the KiB just before `end`. A file rewritten in place with the same
    first KiB but other content before `end` no longer matches, and is read again."""
    fh.seek(0)
    head = sha1_hex(fh.read(min(end, _HEAD_BYTES)))
    if end <= _HEAD_BYTES:
        return head
    fh.seek(end - _HEAD_BYTES)
    return f"{head}:{sha1_hex(fh.read(_HEAD_BYTES))}"


def can_resume(fh: BinaryIO, mark: TranscriptMark) -> bool:
    """Whether the bytes the mark fingerprinted are unchanged (older marks hold the
    first part only, which is then all that is compared)."""
    now = fingerprint(fh, mark.offset)
    return now == mark.head or (
        mark.head is not None and ":" not in mark.head and now.split(":")[0] == mark.head
    )


def _read_piece(
    fh: BinaryIO, adapter: Adapter, path: Path, offset: int, state: dict[str, Any]
) -> tuple[Parsed, int]:
    """Parse at most `PIECE` bytes from `offset`; returns the parse and the bytes read.

    A line longer than `PIECE` is passed over without being held, and counted.
    """
    fh.seek(offset)
    data = fh.read(PIECE)
    if len(data) < PIECE or b"\n" in data:
        return adapter.parse(path, data, offset, state), len(data)
    passed, ended = skip_line(fh)
    parsed = Parsed(state=state)
    if ended:  # a half-written long line is left for when it is finished
        parsed.offset = len(data) + passed
        parsed.skip(SKIP_LONG_LINE)
    return parsed, len(data)


def prepare(
    db: sqlite3.Connection, adapter: Adapter, path: Path, force: bool = False
) -> Job | None:
    """Parse what is new in `path`, one bounded piece; None when nothing changed since
    the last ingest. Only regular files are read (`safeio.open_regular`).

    Raises OSError (NotARegularFile among them) if the file cannot be read.
    """
    key = stored_path(path)
    with open_regular(path) as fh:
        st = os.fstat(fh.fileno())
        mark = read_mark(db, key)
        if not force and is_current(mark, st):
            return None
        whole = not adapter.incremental or adapter.whole_file(path)
        offset, state, skipped = 0, {}, {}
        resumable = mark and not force and not whole and mark.offset <= st.st_size
        if mark and resumable and can_resume(fh, mark):
            offset, state, skipped = mark.offset, mark.state, dict(mark.skipped)
        if whole and st.st_size > MAX_LINE:
            parsed, nbytes = Parsed(offset=st.st_size), 0
            parsed.skip(SKIP_BIG_DOCUMENT)
        else:
            parsed, nbytes = _read_piece(fh, adapter, path, offset, state)
        end = offset + parsed.offset
        # more to read after this piece, and this piece got somewhere (a half-written line
        # longer than a piece makes no progress: it waits for the file to grow)
        more = not whole and nbytes == PIECE and parsed.offset > 0 and end < st.st_size
        head = fingerprint(fh, end)
    if whole:
        for part in parsed.parts:
            part.replace = True
    marked = redact_parsed(parsed)
    for reason, count in parsed.skipped.items():
        skipped[reason] = skipped.get(reason, 0) + count
    new_mark = TranscriptMark(
        path=key,
        agent=adapter.name,
        # a file read in pieces records how far it got, so the next look goes on from there
        size=end if more else st.st_size,
        mtime_ns=st.st_mtime_ns,
        head=head,
        offset=end,
        state=parsed.state,
        skipped=skipped,
    )
    return Job(
        path=key,
        agent=adapter.name,
        base=offset,
        parsed=parsed,
        mark=new_mark,
        nbytes=nbytes,
        more=more,
        marked=marked,
    )


def prepare_stored(
    db: sqlite3.Connection, adapter: SessionStore, stored: StoredSession, force: bool = False
) -> Job | None:
    """Read one session of an agent's database whole; None when its fingerprint is the one
    the index recorded (nothing in it changed). A part holding the whole conversation
    (`replace`) replaces what was stored, so a message the agent edited in place or
    deleted is edited or gone in the mirror too.

    Raises sqlite3.Error or OSError when the store cannot be read now.
    """
    key = current().redact(stored.key)
    mark = read_mark(db, key)
    if not force and mark is not None and mark.head == stored.fingerprint:
        return None
    parsed = adapter.read_session(stored)
    marked = redact_parsed(parsed)
    new_mark = TranscriptMark(
        path=key, agent=adapter.name, head=stored.fingerprint, skipped=dict(parsed.skipped)
    )
    size = sum(len(m.text) for part in parsed.parts for m in part.messages)
    return Job(
        path=key,
        agent=adapter.name,
        base=0,
        parsed=parsed,
        mark=new_mark,
        nbytes=size,
        marked=marked,
    )


def redact_parsed(parsed: Parsed) -> list[str]:
    """Redact every text of a parse in place (outside the write lock); returns the
    sessions whose text carried the ignore marker before redaction could hide it."""
    redactor = current()
    settings = policy.settings()
    marked = []
    kept = []
    for part in parsed.parts:
        clean_ids(part)
        project = part.info.project
        if project and project_matches(project, settings.exclude_projects):
            continue  # excluded by its real path, before redaction could change it
        if policy.has_marker(part, settings.ignore_marker):
            marked.append(part.info.session_id)
        kept.append(redacted_part(part, redactor))
    # A file of an excluded project keeps its summaries out too.
    excluded = len(kept) < len(parsed.parts)
    parsed.summaries = [] if excluded else [(k, redactor.redact(t)) for k, t in parsed.summaries]
    parsed.parts = kept
    parsed.state = redactor.redact_json(parsed.state)
    return marked


def redacted_part(part: SessionPart, redactor: Redactor) -> SessionPart:
    """`part` as it may be stored: its messages, title, project and metadata values
    redacted (docs/privacy.md), its message keys and metadata keys scrubbed (lone
    surrogates made U+FFFD: SQLite stores UTF-8, and one bad character would fail a
    whole transaction). The only redaction pass a session part goes through; the
    store writer stores what this returns."""
    clean = redactor.redact
    info = part.info
    return SessionPart(
        info=replace(
            info,
            project=clean(info.project) if info.project else info.project,
            title=clean(info.title) if info.title else info.title,
            metadata={scrub(k): clean(str(v)) for k, v in info.metadata.items()},
        ),
        messages=[Message(scrub(m.key), m.role, clean(m.text), m.timestamp) for m in part.messages],
        replace=part.replace,
        rewinds=[scrub(k) for k in part.rewinds],
    )


def store_part(
    db: sqlite3.Connection,
    part: SessionPart,
    computer: str,
    transcript: str | None,
    marked: bool | None = None,
) -> int | None:
    """Store one session part, already through `redacted_part`, unless privacy keeps it
    out; its rowid, or None when refused.

    A part carrying the ignore marker also deletes what was indexed of its
    session and leaves a tombstone. `marked` is what `prepare` saw before
    redacting (None: look at the part's text now). Its ids were scrubbed by
    `redact_parsed`, the one place they are.
    """
    reason = policy.refusal(db, part, marked)
    if reason == MARKER:
        forget_marked(db, part.info.session_id, part.info.agent)
    if reason is not None:
        return None
    return apply_part(db, part, computer, transcript)


def store_batch(
    db: sqlite3.Connection,
    parts: list[SessionPart],
    computer: str,
    transcript: str | None,
    marked: set[str],
    before_index: Callable[[], None] | None = None,
) -> None:
    """Store many prepared parts (one per session) with one full-text indexing pass
    (`before_index` is called as it starts: SQLite runs it without the GIL).

    Every deletion comes first (a marked session forgotten, a replaced session's old
    messages), then the rows are inserted and indexed together: rows are indexed by
    id above the batch's highest before it, and SQLite hands a deleted highest id out
    again, so a deletion between inserts could slip a new row under that mark.
    """
    decided = []
    for part in parts:
        info = part.info
        reason = policy.refusal(db, part, info.session_id in marked)
        if reason == MARKER:
            forget_marked(db, info.session_id, info.agent)
        if reason is not None:
            continue
        if part.replace:
            db.execute(
                "DELETE FROM messages WHERE session ="
                " (SELECT id FROM sessions WHERE session_id = ? AND agent = ?)",
                (info.session_id, info.agent),
            )
        decided.append(replace(part, replace=False))
    (last,) = db.execute("SELECT coalesce(max(id), 0) FROM messages").fetchone()
    for part in decided:
        apply_part(db, part, computer, transcript, index=False)
    if before_index is not None:
        before_index()
    index_new_messages(db, last)


def _keeps_summaries(db: sqlite3.Connection, job: Job, stored: list[int | None]) -> bool:
    """Whether privacy lets this piece's summaries in: not when the file's sessions were
    all refused (forgotten, marked, excluded). A piece with no session (summary lines
    appended later) asks whether the session its state carries is stored; a file that
    never named one (a summary-only file) has nothing to refuse."""
    if stored:
        return any(rowid is not None for rowid in stored)
    sid = job.parsed.state.get("sid")
    if not isinstance(sid, str) or not sid:
        return True
    row = db.execute(
        "SELECT 1 FROM sessions WHERE session_id = ? AND agent = ?", (sid, job.agent)
    ).fetchone()
    return row is not None


def commit(db: sqlite3.Connection, job: Job, computer: str) -> list[str]:
    """Merge a prepared job inside the caller's transaction; returns the sessions touched."""
    mark = read_mark(db, job.path)
    marked = set(job.marked)
    stored = [
        store_part(db, part, computer, job.path, part.info.session_id in marked)
        for part in job.parsed.parts
    ]
    if job.parsed.summaries and _keeps_summaries(db, job, stored):
        record_summaries(db, job.agent, job.parsed.summaries, job.path)
    # Another process may have read further meanwhile; never move its mark back
    # unless this job re-read the file from the start (a rewrite or truncation).
    if mark is None or job.base == 0 or job.mark.offset >= mark.offset:
        write_mark(db, job.mark)
    return [part.info.session_id for part in job.parsed.parts]


def ingest_path(
    store: Store, adapter: Adapter, path: Path, computer: str, force: bool = False
) -> Job | None:
    """Prepare and commit one transcript, a transaction per piece; the last job, or None
    when nothing changed. Its `parsed.skipped` counts what every piece skipped."""
    job = prepare(store.conn, adapter, path, force)
    last = job
    while job is not None:
        with store.transaction() as db:
            commit(db, job, computer)
        last = job
        job = prepare(store.conn, adapter, path) if job.more else None
    return last


def resolve(path: str | os.PathLike[str]) -> Path:
    """The absolute, user-expanded path recall keys a transcript by."""
    return Path(os.path.expanduser(os.fspath(path))).resolve()


def ingest_bytes(store: Store, adapter: Adapter, data: bytes, computer: str) -> Parsed:
    """Parse and store a transcript that has no file (an import piped on stdin)."""
    parsed = adapter.parse(Path("-"), data, 0, {})
    marked = set(redact_parsed(parsed))  # outside the lock, as for files
    with store.transaction() as db:
        for part in parsed.parts:
            is_marked = part.info.session_id in marked
            store_part(db, part, computer, None, is_marked)
    return parsed
