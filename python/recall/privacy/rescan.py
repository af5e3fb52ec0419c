"""`recall redact --rescan`: apply today's rules and privacy settings to an existing index.

Rules improve and configs grow after text was indexed. A rescan rewrites
every stored text the current redactor changes (messages, titles, projects,
metadata, adapters' resume state, Claude summaries), deletes sessions that
an exclusion glob or the ignore marker now covers, then rebuilds the FTS
indexes and compacts the file (see `forget.compact`) so no copy of a removed secret survives in the
database or its WAL. recall.log is rewritten through the redactor too.
"""

from __future__ import annotations

import json
import os
import sqlite3

from recall import config
from recall.privacy import policy
from recall.privacy.forget import MARKER, compact, delete_sessions
from recall.privacy.projects import project_matches
from recall.privacy.redaction import Redactor
from recall.record import Record
from recall.store import Store
from recall.store.titles import forget_summaries

_BATCH = 2000


class RescanReport(Record):
    messages_scanned: int = 0
    messages_changed: int = 0
    sessions_changed: int = 0
    states_changed: int = 0
    sessions_removed: int = 0
    log_lines_changed: int = 0
    wal_emptied: bool = True


def _messages(store: Store, redactor: Redactor, report: RescanReport) -> None:
    last = 0
    while True:
        rows = store.conn.execute(
            "SELECT id, text FROM messages WHERE id > ? ORDER BY id LIMIT ?", (last, _BATCH)
        ).fetchall()
        if not rows:
            return
        last = rows[-1][0]
        report.messages_scanned += len(rows)
        changed = [(new, rid) for rid, text in rows if (new := redactor.redact(text)) != text]
        if changed:
            with store.transaction() as db:
                db.executemany("UPDATE messages SET text = ? WHERE id = ?", changed)
            report.messages_changed += len(changed)


def _clean_meta(redactor: Redactor, raw: str) -> str:
    meta = json.loads(raw or "{}")
    clean = redactor.redact_json(meta)
    return raw if clean == meta else json.dumps(clean, sort_keys=True)


def _sessions(db: sqlite3.Connection, redactor: Redactor, report: RescanReport) -> None:
    rows = db.execute(
        "SELECT id, title, project, metadata, transcript_path FROM sessions"
    ).fetchall()
    for rowid, title, project, meta, path in rows:
        new = (
            redactor.redact(title) if title else title,
            redactor.redact(project) if project else project,
            _clean_meta(redactor, meta),
            redactor.redact(path) if path else path,
        )
        if new != (title, project, meta, path):
            db.execute(
                "UPDATE sessions SET title = ?, project = ?, metadata = ?, transcript_path = ?"
                " WHERE id = ?",
                (*new, rowid),
            )
            report.sessions_changed += 1
    for path, state in db.execute("SELECT path, state FROM transcripts").fetchall():
        clean = _clean_meta(redactor, state)
        clean_path = redactor.redact(path)
        if (clean, clean_path) != (state, path):
            # a path that redacts to one already stored replaces it: both name one file
            db.execute(
                "UPDATE OR REPLACE transcripts SET state = ?, path = ? WHERE path = ?",
                (clean, clean_path, path),
            )
            report.states_changed += 1


def _summaries(db: sqlite3.Connection, redactor: Redactor, report: RescanReport) -> None:
    """Claude summaries waiting for (or titling) their leaf's session: text and source path."""
    rows = db.execute(
        "SELECT agent, leaf, text, source FROM summaries WHERE text IS NOT NULL"
    ).fetchall()
    for agent, leaf, text, source in rows:
        clean = (redactor.redact(text), redactor.redact(source) if source else source)
        if clean != (text, source):
            db.execute(
                "UPDATE summaries SET text = ?, source = ? WHERE agent = ? AND leaf = ?",
                (*clean, agent, leaf),
            )
            report.states_changed += 1


def _privacy(db: sqlite3.Connection, report: RescanReport) -> None:
    settings = policy.settings()
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
    for rowid, reason in doomed.items():
        if reason == policy.EXCLUDED:
            # Excluded by config, not forgotten: removing the glob and running
            # `sync --force` brings these back, so no tombstone.
            forget_summaries(db, rowid, tombstone=False)
            db.execute("DELETE FROM messages WHERE session = ?", (rowid,))
            db.execute("DELETE FROM sessions WHERE id = ?", (rowid,))
        else:
            delete_sessions(db, [rowid], reason)
        report.sessions_removed += 1


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


def rescan(store: Store, redactor: Redactor) -> RescanReport:
    """Apply `redactor` and the privacy settings to everything stored; compact afterwards."""
    report = RescanReport()
    store.conn.execute("PRAGMA secure_delete=ON")
    _messages(store, redactor, report)
    with store.transaction() as db:
        _sessions(db, redactor, report)
        _summaries(db, redactor, report)
        _privacy(db, report)
    report.wal_emptied = compact(store, rebuild=True)
    _log(redactor, report)
    return report
