"""`recall redact --rescan`: apply today's rules and privacy settings to an existing index.

Rules improve and configs grow after text was indexed. A rescan rewrites
every stored text the current redactor changes (messages, titles, projects,
metadata, adapters' resume state, Claude summaries, memories, file chunks, and
the facts and pending answers of digests),
deletes sessions that an exclusion glob or the ignore marker now covers, then
rebuilds the FTS
indexes and compacts the file (see `forget.compact`) so no copy of a removed secret survives in the
database or its WAL. recall.log is rewritten through the redactor too.

No user pattern or glob runs under the write lock: each batch is read and
redacted first, then written in a short transaction (docs/privacy.md).
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterator
from typing import Any

from recall import config
from recall.privacy import policy
from recall.privacy.forget import MARKER, compact, delete_sessions
from recall.privacy.projects import project_matches
from recall.privacy.redaction import Redactor
from recall.record import Record
from recall.store import Store
from recall.store.titles import forget_summaries

_BATCH = 500
"""Rows read, redacted (outside the lock) and then written (under it) at a time: the
most any one rescan transaction writes (docs/privacy.md gives its measured hold)."""
_DELETE_BATCH = 100
"""Sessions deleted a transaction, for the exclusion globs and the ignore marker."""


class RescanReport(Record):
    messages_scanned: int = 0
    messages_changed: int = 0
    sessions_changed: int = 0
    states_changed: int = 0
    sessions_removed: int = 0
    log_lines_changed: int = 0
    sources_changed: int = 0
    """Memories, file chunks and file records (docs/memory.md) the redactor changed."""
    notes_reindexed: int = 0
    """Note files (MEMORY.md, daily logs, guidance) read, redacted whole and chunked again
    (`rescan`'s `notes`)."""
    wal_emptied: bool = True


def _batches(store: Store, sql: str) -> Iterator[list[Any]]:
    """The rows of `sql` (whose first column is the key it orders by, and which takes
    the last key seen and a limit), `_BATCH` at a time, read without the lock."""
    last: Any = None
    while True:
        rows = store.conn.execute(sql, (last, _BATCH)).fetchall()
        if not rows:
            return
        last = rows[-1][0]
        yield rows


def _messages(store: Store, redactor: Redactor, report: RescanReport) -> None:
    sql = "SELECT id, text FROM messages WHERE id > coalesce(?, 0) ORDER BY id LIMIT ?"
    for rows in _batches(store, sql):
        report.messages_scanned += len(rows)
        changed = [(new, rid, text) for rid, text in rows if (new := redactor.redact(text)) != text]
        if changed:  # a row another writer changed meanwhile was written by today's rules
            with store.transaction() as db:
                db.executemany("UPDATE messages SET text = ? WHERE id = ? AND text = ?", changed)
            report.messages_changed += len(changed)


_SOURCE_TEXTS = (
    ("memories", ("text", "project")),
    ("file_chunks", ("heading", "text")),
    ("files", ("path", "project")),
    ("digest_facts", ("text",)),
    ("digest_pending", ("summary", "facts")),
)


def _sources(store: Store, redactor: Redactor, report: RescanReport) -> None:
    """Memories and markdown sources (docs/memory.md): redacted before the lock, written
    under it only where the row is unchanged."""
    for table, cols in _SOURCE_TEXTS:
        sql = (
            f"SELECT id, {', '.join(cols)} FROM {table}"
            " WHERE id > coalesce(?, 0) ORDER BY id LIMIT ?"
        )
        for rows in _batches(store, sql):
            changed = []
            for rowid, *old in rows:
                new = [redactor.redact(v) if v else v for v in old]
                if new != old:
                    changed.append((*new, rowid, *old))
            if not changed:
                continue
            sets = ", ".join(f"{c} = ?" for c in cols)
            same = " AND ".join(f"{c} IS ?" for c in cols)
            with store.transaction() as db:
                for row in changed:
                    report.sources_changed += db.execute(
                        f"UPDATE OR REPLACE {table} SET {sets} WHERE id = ? AND {same}", row
                    ).rowcount


def _clean_meta(redactor: Redactor, raw: str) -> str:
    meta = json.loads(raw or "{}")
    clean = redactor.redact_json(meta)
    return raw if clean == meta else json.dumps(clean, sort_keys=True)


def _sessions(store: Store, redactor: Redactor, report: RescanReport) -> None:
    """Titles, projects, metadata and paths, then resume states: redacted a batch at a
    time before the lock is taken, written under it only where the row is unchanged."""
    sql = (
        "SELECT id, title, project, metadata, transcript_path FROM sessions"
        " WHERE id > coalesce(?, 0) ORDER BY id LIMIT ?"
    )
    for rows in _batches(store, sql):
        changed = []
        for rowid, *old in rows:
            title, project, meta, path = old
            new = [
                redactor.redact(title) if title else title,
                redactor.redact(project) if project else project,
                _clean_meta(redactor, meta),
                redactor.redact(path) if path else path,
            ]
            if new != old:
                changed.append((*new, rowid, *old))
        if changed:
            with store.transaction() as db:
                for row in changed:
                    report.sessions_changed += db.execute(
                        "UPDATE sessions SET title = ?, project = ?, metadata = ?,"
                        " transcript_path = ? WHERE id = ? AND title IS ? AND project IS ?"
                        " AND metadata IS ? AND transcript_path IS ?",
                        row,
                    ).rowcount
    sql = "SELECT path, state FROM transcripts WHERE path > coalesce(?, '') ORDER BY path LIMIT ?"
    for rows in _batches(store, sql):
        marks = []
        for path, state in rows:
            clean, clean_path = _clean_meta(redactor, state), redactor.redact(path)
            if (clean, clean_path) != (state, path):
                marks.append((clean, clean_path, path, state))
        if marks:
            with store.transaction() as db:
                for mark in marks:
                    # a path that redacts to one already stored replaces it: both name one file
                    report.states_changed += db.execute(
                        "UPDATE OR REPLACE transcripts SET state = ?, path = ?"
                        " WHERE path = ? AND state = ?",
                        mark,
                    ).rowcount


def _summaries(store: Store, redactor: Redactor, report: RescanReport) -> None:
    """Claude summaries waiting for (or titling) their leaf's session: text and source
    path, redacted before the lock and written only where the row is unchanged."""
    rows = store.conn.execute(
        "SELECT agent, leaf, text, source FROM summaries WHERE text IS NOT NULL"
    ).fetchall()
    changed = []
    for agent, leaf, text, source in rows:
        clean = (redactor.redact(text), redactor.redact(source) if source else source)
        if clean != (text, source):
            changed.append((*clean, agent, leaf, text, source))
    for at in range(0, len(changed), _BATCH):
        with store.transaction() as db:
            for row in changed[at : at + _BATCH]:
                report.states_changed += db.execute(
                    "UPDATE summaries SET text = ?, source = ? WHERE agent = ? AND leaf = ?"
                    " AND text IS ? AND source IS ?",
                    row,
                ).rowcount


def _doomed(store: Store) -> dict[int, str]:
    """Sessions an exclusion glob or the ignore marker now covers, found without the lock
    (globs and a scan of every user message are the user's to make slow)."""
    settings = policy.settings()
    db = store.conn
    doomed: dict[int, str] = {}
    if settings.exclude_projects:
        for rowid, project in db.execute("SELECT id, project FROM sessions"):
            if project and project_matches(project, settings.exclude_projects):
                doomed[rowid] = policy.EXCLUDED
    if settings.ignore_marker:
        needle = settings.ignore_marker.casefold()
        for rowid, text in db.execute("SELECT session, text FROM messages WHERE role = 'user'"):
            if needle in text.casefold():
                doomed.setdefault(rowid, MARKER)
                for (child,) in db.execute(
                    "SELECT c.id FROM sessions c JOIN sessions p ON c.parent_session_id ="
                    " p.session_id AND c.agent = p.agent WHERE p.id = ?",
                    (rowid,),
                ):
                    doomed.setdefault(child, MARKER)
    return doomed


def _privacy(store: Store, report: RescanReport) -> None:
    doomed = list(_doomed(store).items())
    for at in range(0, len(doomed), _DELETE_BATCH):
        with store.transaction() as db:
            for rowid, reason in doomed[at : at + _DELETE_BATCH]:
                if reason == policy.EXCLUDED:
                    # Excluded by config, not forgotten: removing the glob and running
                    # `sync --force` brings these back, so no tombstone.
                    forget_summaries(db, rowid, tombstone=False)
                    db.execute("DELETE FROM messages WHERE session = ?", (rowid,))
                    gone = db.execute("DELETE FROM sessions WHERE id = ?", (rowid,)).rowcount
                else:
                    gone = len(delete_sessions(db, [rowid], reason).sessions)
                report.sessions_removed += gone


def _log(redactor: Redactor, report: RescanReport) -> None:
    log = config.log_path()
    for path in (log, log.with_suffix(".log.1")):
        try:
            text = path.read_text(encoding="utf-8", errors="replace")
        except FileNotFoundError:
            continue
        lines = text.splitlines(keepends=True)
        clean = [redactor.redact(line) for line in lines]
        changed = sum(a != b for a, b in zip(lines, clean, strict=True))
        if changed:
            tmp = path.with_suffix(path.suffix + ".tmp")
            tmp.write_text("".join(clean), encoding="utf-8")
            os.replace(tmp, path)
            report.log_lines_changed += changed


def rescan(
    store: Store, redactor: Redactor, notes: Callable[[], int] | None = None
) -> RescanReport:
    """Apply `redactor` and the privacy settings to everything stored; compact afterwards.
    `notes` re-indexes the note files (the caller's: this layer may not import memory/)
    once sessions the settings now exclude are gone, so their projects' guidance files
    go too, and before the compaction drops the old chunks' pages; how many it changed."""
    report = RescanReport()
    store.conn.execute("PRAGMA secure_delete=ON")
    _messages(store, redactor, report)
    _sessions(store, redactor, report)
    _summaries(store, redactor, report)
    _sources(store, redactor, report)
    _privacy(store, report)
    if notes is not None:
        report.notes_reindexed = notes()
    report.wal_emptied = compact(store, rebuild=True)
    _log(redactor, report)
    return report
