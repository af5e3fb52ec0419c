"""Importing a history in the plain JSONL format, streamed: any size, bounded memory, resumable.

A year of history can be a million lines. The import reads it in pieces of
about `PIECE_BYTES` cut at line ends, and commits each piece in its own
transaction, so memory follows the piece, not the file (a single line may
still be up to `MAX_LINE`). What must span pieces is kept in SQLite, not in
Python: a private scratch database numbers repeated lines (the k-th copy of
the same session, role, timestamp and text is keyed `<key>.k`, as a
whole-file read keys it) and keeps each session's project (named on some
lines, it excludes the session's lines in every piece), and a temporary table
notes the sessions this run has met, so a session re-read from the start of
a file replaces its stored messages once, on first sight, not at every piece.

A file's progress is its transcript mark, written in the same transaction
as the piece: an interrupted import of a file resumes from the last piece
committed (after re-counting the lines before it, which it parses but does
not store), and a file that grew resumes from where it ended. Content keys
make any re-run harmless: stdin, which cannot resume, is simply read again
and stores nothing twice.
"""

from __future__ import annotations

import os
import sqlite3
import threading
import time
from collections.abc import Callable, Generator, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import closing
from pathlib import Path
from typing import Any, BinaryIO, TypeVar

from recall.agents.jsonl_import import DEFAULT_AGENT, number_keys, read
from recall.ingest import can_resume, fingerprint, redact_parsed, store_batch
from recall.record import Record, field
from recall.safeio import MAX_LINE, SKIP_LONG_LINE, open_regular, skip_line
from recall.store import Store
from recall.store.writer import TranscriptMark, read_mark, write_mark
from recall.types import Parsed
from recall.vetting import is_current, stored_path

PIECE_BYTES = 4 * 1024 * 1024
"""Bytes parsed and committed together. 4 MiB is ~8,000 messages: large enough that
a transaction's fixed costs vanish, small enough that a piece parsed, redacted and
queued for SQLite stays a few tens of MB."""


class Tick(Record):
    """Where an import stands, for a progress line."""

    done: int
    """Bytes read so far, from the start of the input (a resumed file starts past 0)."""
    total: int | None
    """The input's size, when known (a file, or stdin redirected from one)."""
    start: int
    """Where this run began reading (a resumed file: past what was done before)."""
    messages: int
    seconds: float


Progress = Callable[[Tick], None]


class ImportReport(Record):
    sessions: int = 0
    """Sessions this run stored messages of."""
    messages: int = 0
    """Messages read this run (stored, or already there)."""
    bytes: int = 0
    """Bytes read this run."""
    resumed_from: int = 0
    """A file's offset this run started at (0: from the start)."""
    unchanged: bool = False
    """The file is as its last import left it: nothing was read."""
    skipped: dict[str, int] = field(default_factory=dict)


def _setup(db: sqlite3.Connection) -> None:
    """The run's table of sessions met, empty. `temp_store=FILE` keeps it on disk (in
    SQLite's temporary directory, deleted on close): its pages, not its rows, are in
    memory."""
    db.execute("PRAGMA temp_store=FILE")
    db.execute(
        "CREATE TEMP TABLE IF NOT EXISTS import_sessions("
        " session TEXT NOT NULL, agent TEXT NOT NULL, stored INTEGER NOT NULL,"
        " PRIMARY KEY (session, agent)) WITHOUT ROWID"
    )
    db.execute("DELETE FROM temp.import_sessions")


def _added(a: dict[str, int], b: dict[str, int]) -> dict[str, int]:
    """Two counts of skipped lines by reason, summed (a new dict)."""
    return {r: a.get(r, 0) + b.get(r, 0) for r in {**a, **b}}


def _short(key: str) -> int:
    """A content key as 60 bits of its digest (which hashed the session too): an integer
    key keeps the count's B-tree small. Two lines colliding in 60 bits would only number
    the second `.1`, the same way on every run."""
    return int(key[-20:-5], 16)


def _chunks(items: list[Any], size: int = 500) -> Iterator[list[Any]]:
    for i in range(0, len(items), size):
        yield items[i : i + size]


def _rows_in(db: sqlite3.Connection, sql: str, values: list[Any]) -> Iterator[Any]:
    """The rows of `sql`, whose `IN ({marks})` takes `values`, run a chunk at a time (well
    under SQLite's variable limit)."""
    for group in _chunks(values):
        yield from db.execute(sql.format(marks=",".join("?" * len(group))), group)


class _Scratch:
    """What the reader thread carries from piece to piece, in a private scratch database
    (SQLite's empty file name: on disk, deleted on close) rather than the store's
    connection, so it works beside the store's inserts: how many times each content key
    came earlier in the run (`number`), and each session's project (`fill_projects`).
    Pieces pass through in file order, one at a time; a run that fails is abandoned with
    its scratch, and a resumed run counts again."""

    def __init__(self) -> None:
        self.db = sqlite3.connect("", isolation_level=None, check_same_thread=False)
        self.lock = threading.Lock()
        """Held while the database is in use: `close` may come from the main thread while
        the reader thread still works (a second Ctrl-C cuts the wait for it short), and
        closing a connection under a running statement crashes the process."""
        for pragma in ("journal_mode=OFF", "synchronous=OFF", "cache_size=-8192"):
            self.db.execute(f"PRAGMA {pragma}")
        self.db.execute(
            "CREATE TABLE seen(key INTEGER PRIMARY KEY, n INTEGER NOT NULL) WITHOUT ROWID"
        )
        self.db.execute(
            "CREATE TABLE projects(session TEXT NOT NULL, agent TEXT NOT NULL,"
            " project TEXT NOT NULL, PRIMARY KEY (session, agent)) WITHOUT ROWID"
        )

    def number(self, keys: list[str]) -> list[int]:
        ids = [_short(key) for key in keys]
        counts: dict[int, int] = {}
        with self.lock:
            self.db.execute("BEGIN")
            sql = "SELECT key, n FROM seen WHERE key IN ({marks})"
            counts.update(_rows_in(self.db, sql, list(dict.fromkeys(ids))))
            out = []
            for key in ids:
                n = counts.get(key, 0)
                counts[key] = n + 1
                out.append(n)
            upsert = "INSERT OR REPLACE INTO seen(key, n) VALUES (?, ?)"
            self.db.executemany(upsert, counts.items())
            self.db.execute("COMMIT")
        return out

    def fill_projects(self, parsed: Parsed) -> None:
        """Give each part without a project the one an earlier piece's lines named for its
        session (a line need not repeat it), and note the ones named here: the project
        decides whether a session is excluded, in every piece, not only in the first."""
        named = [(p.info.session_id, p.info.agent, p.info.project) for p in parsed.parts]
        unnamed = [p for p in parsed.parts if not p.info.project]
        with self.lock:
            self.db.execute("BEGIN")
            sql = "SELECT session, agent, project FROM projects WHERE session IN ({marks})"
            rows = _rows_in(self.db, sql, [p.info.session_id for p in unnamed])
            known = {(s, a): project for s, a, project in rows}
            self.db.executemany(
                "INSERT OR REPLACE INTO projects(session, agent, project) VALUES (?, ?, ?)",
                [row for row in named if row[2]],
            )
            self.db.execute("COMMIT")
        for part in unnamed:
            part.info.project = known.get((part.info.session_id, part.info.agent))

    def close(self) -> None:
        with self.lock:
            self.db.close()


def _first_seen(db: sqlite3.Connection, parsed: Parsed, stored: bool) -> set[tuple[str, str]]:
    """The sessions of `parsed` this run has not met before; notes them all as met."""
    ids = [(p.info.session_id, p.info.agent) for p in parsed.parts]
    sql = "SELECT session, agent FROM temp.import_sessions WHERE session IN ({marks})"
    met = set(_rows_in(db, sql, [s for s, _ in ids]))
    db.executemany(
        "INSERT INTO temp.import_sessions(session, agent, stored) VALUES (?, ?, ?)"
        " ON CONFLICT DO UPDATE SET stored = max(stored, excluded.stored)",
        ((s, a, int(stored)) for s, a in ids),
    )
    return {i for i in ids if i not in met}


def pieces(fh: BinaryIO, skipped: dict[str, int]) -> Iterator[tuple[int, bytes]]:
    """`(length, data)` for each piece of `fh` from where it stands: whole lines of about
    `PIECE_BYTES`, the last one possibly without its newline. `length` is the bytes the
    piece stands for: more than `data` when a line over `MAX_LINE` was passed over
    (never held whole) and counted in `skipped`."""
    carry = b""
    passed = 0
    while True:
        block = fh.read(PIECE_BYTES)
        if not block:
            if carry or passed:
                yield passed + len(carry), carry
            return
        if carry:
            end = block.find(b"\n")
            if end >= 0 and len(carry) + end > MAX_LINE:  # the line ends here, too long
                passed += len(carry) + end + 1
                carry, block = b"", block[end + 1 :]
                skipped[SKIP_LONG_LINE] = skipped.get(SKIP_LONG_LINE, 0) + 1
        data = carry + block if carry else block
        cut = data.rfind(b"\n") + 1
        if cut:
            yield passed + cut, data[:cut]
            carry, passed = data[cut:], 0
        elif len(data) > MAX_LINE:  # one line longer than any transcript line may be
            more, _ = skip_line(fh)
            passed += len(data) + more
            carry = b""
            skipped[SKIP_LONG_LINE] = skipped.get(SKIP_LONG_LINE, 0) + 1
        else:
            carry = data


Prepared = tuple[Parsed, set[str]]


def prepare(data: bytes, scratch: _Scratch) -> Prepared:
    """A piece parsed, numbered and redacted (outside the write lock, as transcripts are),
    with the sessions whose text carried the ignore marker. Touches no connection of
    the store's: it runs on the reader thread (`_ahead`)."""
    parsed = _read(data, scratch)
    return parsed, set(redact_parsed(parsed))


def _read(data: bytes, scratch: _Scratch) -> Parsed:
    """A piece parsed, its sessions' projects filled in and its keys numbered, as a
    whole-file read would have them."""
    parsed = read(data)
    scratch.fill_projects(parsed)
    number_keys(parsed, scratch.number)
    return parsed


T = TypeVar("T")


class _Next:
    """Starts the work on the following item, once: called by the caller when SQLite is
    about to run without the GIL, or by `_ahead` when the caller moves on."""

    def __init__(self, pool: ThreadPoolExecutor, work: Callable[[T], Prepared], item: T) -> None:
        self.pool, self.work, self.item = pool, work, item
        self.future: Future[Prepared] | None = None

    def __call__(self) -> None:
        self.started()

    def started(self) -> Future[Prepared]:
        if self.future is None:
            self.future = self.pool.submit(self.work, self.item)
        return self.future


def _ahead(
    items: Iterator[T], work: Callable[[T], Prepared]
) -> Generator[tuple[T, Prepared, Callable[[], None]], None, None]:
    """`(item, work(item), start_next)` in order, working on the next item on a second
    thread. Parsing and redacting hold the GIL, and so does binding each row of an
    insert; only SQLite's long statements (the full-text pass, the commit) let another
    thread run. So the caller calls `start_next` just before those, and the next piece
    is parsed while they run instead of slowing the row inserts down (started anyway
    when the caller moves on). At most two pieces are in hand."""
    with ThreadPoolExecutor(1, thread_name_prefix="recall-import") as pool:
        current = next(items, None)
        if current is None:
            return
        pending = pool.submit(work, current)
        while True:
            done = pending.result()
            following = next(items, None)
            if following is None:
                yield current, done, lambda: None
                return
            start_next = _Next(pool, work, following)
            yield current, done, start_next
            pending, current = start_next.started(), following


class _Run:
    """One import: the store, the reader's scratch, the counts, the progress line."""

    def __init__(
        self, store: Store, computer: str, progress: Progress | None, replace: bool
    ) -> None:
        self.store = store
        self.computer = computer
        self.progress = progress
        self.replace = replace
        """Sessions re-read from the start of their file: replace on first sight."""
        self.scratch = _Scratch()
        self.passed: dict[str, int] = {}
        """Lines passed over by `pieces`: counted as they are read, a piece ahead of the
        commits, so each mark takes them as they stood when its piece was read."""
        self.report = ImportReport()
        self.started = time.perf_counter()

    def __enter__(self) -> _Run:
        return self

    def __exit__(self, *exc: object) -> None:
        """After the reader thread stopped (each loop over `_ahead` closes it)."""
        self.scratch.close()

    def prepare(self, data: bytes) -> Prepared:
        return prepare(data, self.scratch)

    def recount(self, fh: BinaryIO, end: int) -> None:
        """Number the lines before `end` (a resume) and note their sessions, storing
        nothing."""
        fh.seek(0)
        done = 0
        for length, data in pieces(fh, {}):
            if done + length > end and length == len(data):
                data = data[: end - done]
            parsed = _read(data, self.scratch)
            with self.store.transaction() as db:
                _first_seen(db, parsed, stored=False)
            done += length
            if done >= end:
                break
        fh.seek(end)

    def commit(
        self, prepared: Prepared, mark: TranscriptMark | None, start_next: Callable[[], None]
    ) -> None:
        """Commit one prepared piece (and the file's mark, in the same transaction);
        `start_next` is called as SQLite starts the piece's full-text pass."""
        parsed, marked = prepared
        self.report.skipped = _added(self.report.skipped, parsed.skipped)
        with self.store.transaction() as db:
            first = _first_seen(db, parsed, stored=True)
            if self.replace:
                for part in parsed.parts:
                    part.replace = (part.info.session_id, part.info.agent) in first
            store_batch(
                db, parsed.parts, self.computer, mark.path if mark else None, marked, start_next
            )
            if mark is not None:  # it holds what was passed over up to its piece
                mark.skipped = _added(mark.skipped, self.report.skipped)
                write_mark(db, mark)
        self.report.messages += sum(len(p.messages) for p in parsed.parts)

    def tick(self, done: int, total: int | None, start: int) -> None:
        if self.progress:
            seconds = time.perf_counter() - self.started
            self.progress(Tick(done, total, start, self.report.messages, seconds))

    def finish(self) -> ImportReport:
        self.report.skipped = _added(self.report.skipped, self.passed)
        (self.report.sessions,) = self.store.conn.execute(
            "SELECT count(*) FROM temp.import_sessions WHERE stored"
        ).fetchone()
        return self.report


def import_file(
    store: Store,
    path: Path,
    computer: str,
    force: bool = False,
    progress: Progress | None = None,
) -> ImportReport:
    """Import one JSONL file, resuming where an earlier import of it stopped.

    Raises OSError (NotARegularFile among them) if the file cannot be read.
    """
    key = stored_path(path)
    with open_regular(path) as fh:
        st = os.fstat(fh.fileno())
        mark = read_mark(store.conn, key)
        if not force and is_current(mark, st):
            return ImportReport(unchanged=True)
        _setup(store.conn)
        start = 0
        if mark and not force and 0 < mark.offset <= st.st_size and can_resume(fh, mark):
            start = mark.offset
        prior = dict(mark.skipped) if mark and start else {}
        with _Run(store, computer, progress, replace=True) as run:
            return _import_file(run, fh, key, st, start, prior)


def _import_file(
    run: _Run, fh: BinaryIO, key: str, st: os.stat_result, start: int, prior: dict[str, int]
) -> ImportReport:
    """The file's pieces from `start` (its resume point), each committed with its mark."""
    run.report.resumed_from = start
    if start:
        run.recount(fh, start)
    fh.seek(start)
    run.tick(start, st.st_size, start)

    def marked_pieces() -> Iterator[tuple[int, bytes, TranscriptMark]]:
        end = start
        for length, data in pieces(fh, run.passed):
            end += length
            pos = fh.tell()
            head = fingerprint(fh, end)
            fh.seek(pos)
            new_mark = TranscriptMark(
                path=key,
                agent=DEFAULT_AGENT,
                size=st.st_size if end >= st.st_size else end,
                mtime_ns=st.st_mtime_ns,
                head=head,
                offset=end,
                skipped=_added(prior, run.passed),
            )
            yield end, data, new_mark

    with closing(_ahead(marked_pieces(), lambda p: run.prepare(p[1]))) as ahead:
        for (end, _, new_mark), prepared, start_next in ahead:
            run.commit(prepared, new_mark, start_next)
            run.report.bytes = end - start
            run.tick(end, st.st_size, start)
    report = run.finish()
    report.skipped = _added(report.skipped, prior)
    return report


def import_stream(
    store: Store,
    stream: BinaryIO,
    computer: str,
    total: int | None = None,
    progress: Progress | None = None,
) -> ImportReport:
    """Import JSONL read from `stream` (stdin) piece by piece; nothing to resume from,
    and nothing stored twice if the same lines are piped again."""
    _setup(store.conn)
    with _Run(store, computer, progress, replace=False) as run:
        run.tick(0, total, 0)
        source = pieces(stream, run.passed)
        with closing(_ahead(source, lambda p: run.prepare(p[1]))) as ahead:
            for (length, _), prepared, start_next in ahead:
                run.commit(prepared, None, start_next)
                run.report.bytes += length
                run.tick(run.report.bytes, total, 0)
        return run.finish()
