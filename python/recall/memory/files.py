"""Markdown files as sources: MEMORY.md, daily logs, and the guidance files of indexed projects.

Which files: recall's own `MEMORY.md` and `daily/YYYY-MM-DD.md` in the data
directory; in each indexed project's directory, the `GUIDANCE` files
(CLAUDE.md and its local variants, AGENTS.md, GEMINI.md); and Claude Code's
machine-local project memory, `<claude root>/<encoded project>/memory/MEMORY.md`,
for projects whose
transcripts are indexed. `index_file` costs an unchanged file one read and
one hash; a changed file is cut into heading chunks (`chunking`) and only
the chunks whose hash changed are written. `sync_files` indexes every source
and removes the ones whose file is gone. Files are read as transcripts are:
regular files only, bounded (`safeio`).
"""

from __future__ import annotations

import os
import re
import sqlite3
import time
from datetime import date, datetime
from pathlib import Path

from recall.config import data_dir
from recall.digest import sha1_hex
from recall.log import log
from recall.memory.chunking import Chunk, chunk_markdown
from recall.memory.vectors import embed_quietly
from recall.privacy.redaction import current
from recall.record import Record, field
from recall.safeio import open_regular
from recall.store import Store

MAX_FILE = 4 * 1024 * 1024
"""A guidance or memory file larger than this is not a note: it is passed over, and logged."""
GUIDANCE = {
    "CLAUDE.md": "claude",
    "CLAUDE.local.md": "claude",
    ".claude/CLAUDE.md": "claude",
    "AGENTS.md": "codex",
    "GEMINI.md": "gemini",
}
"""Workspace guidance files in a project's directory, and the agent each is written for."""
SHARED_NAMES = frozenset({*(Path(name).name for name in GUIDANCE), "MEMORY.md"})
"""What a guidance file may lead to outside its project, in an agent's folder: another
guidance file, never the agent's plans, history or credentials."""
_DAY = re.compile(r"^(\d{4}-\d{2}-\d{2})\.md$")


def memory_file() -> Path:
    """The user's long-term memory file (`recall memory path`)."""
    return data_dir() / "MEMORY.md"


def daily_dir() -> Path:
    return data_dir() / "daily"


class Source(Record, frozen=True):
    path: Path
    kind: str
    """memory_md, daily_log or guidance (`search.source_sql` maps kinds to sources)."""
    agent: str = ""
    project: str | None = None
    day: str | None = None


class Written(Record):
    """What indexing one file wrote: chunk rows inserted, rewritten and deleted."""

    inserted: int = 0
    updated: int = 0
    deleted: int = 0
    changed: bool = False
    """False: the file's hash was unchanged and nothing was written."""


class FilesReport(Record):
    files: int = 0
    changed: int = 0
    removed: int = 0
    chunks_written: int = 0
    passed_over: list[str] = field(default_factory=list)


def _day_ts(day: str) -> float:
    """Local midnight of `day`: a daily log is dated by its day, as `--since DAY` reads it."""
    return datetime.combine(date.fromisoformat(day), datetime.min.time()).astimezone().timestamp()


def _diff(db: sqlite3.Connection, file_id: int, chunks: list[Chunk]) -> Written:
    """Bring the file's chunk rows to `chunks`: rows whose hash is still wanted stay as
    they are; the rest are rewritten in place, then inserted or deleted for the excess."""
    rows = db.execute("SELECT id, hash FROM file_chunks WHERE file = ? ORDER BY id", (file_id,))
    unused: dict[str, list[int]] = {}
    for rowid, digest in rows:
        unused.setdefault(digest, []).append(rowid)
    fresh = []
    for chunk in chunks:
        if unused.get(chunk.hash):
            unused[chunk.hash].pop()
        else:
            fresh.append(chunk)
    stale = sorted(rowid for ids in unused.values() for rowid in ids)
    done = Written(changed=True)
    for rowid, chunk in zip(stale, fresh, strict=False):
        db.execute(
            "UPDATE file_chunks SET heading = ?, text = ?, hash = ? WHERE id = ?",
            (chunk.heading, chunk.text, chunk.hash, rowid),
        )
        done.updated += 1
    for chunk in fresh[len(stale) :]:
        db.execute(
            "INSERT INTO file_chunks(file, heading, text, hash) VALUES (?, ?, ?, ?)",
            (file_id, chunk.heading, chunk.text, chunk.hash),
        )
        done.inserted += 1
    extra = stale[len(fresh) :]
    db.executemany("DELETE FROM file_chunks WHERE id = ?", [(r,) for r in extra])
    done.deleted = len(extra)
    return done


def _read(path: Path) -> bytes:
    with open_regular(path) as fh:
        size = os.fstat(fh.fileno()).st_size
        if size > MAX_FILE:
            raise OSError(f"{path} is {size} bytes, over the {MAX_FILE} a note may have")
        return fh.read(MAX_FILE + 1)[:MAX_FILE]


class LeadsOut(OSError):
    """A guidance file whose real path is outside its project and the agents' folders."""


def _agent_folders() -> list[Path]:
    """The user's agent folders, real paths: each agent's home (`~/.claude`, `~/.codex`,
    `~/.gemini`, or where their variables move them) and Claude's configured roots."""
    from recall.agents import ADAPTERS

    homes = [root.parent for a in ADAPTERS.values() for root in a.default_roots()]
    folders = [Path(os.path.realpath(p)) for p in [*homes, *_claude_roots()]]
    # Aider searches the home folder itself (its files sit in project folders): the
    # home, or a folder above it, is no agent's folder.
    user = Path(os.path.realpath(Path.home()))
    return [p for p in folders if not user.is_relative_to(p)]


def _confined(source: Source) -> Path:
    """The real path to read for `source`: a guidance file must really live inside its
    project, or be a guidance file by name (`SHARED_NAMES`) inside the user's agent
    folders (a shared `~/.gemini/GEMINI.md`, Claude's project memory).

    A repository decides what its AGENTS.md is, and `AGENTS.md -> ~/.bash_history`
    would put the shell history in the index, searchable, served to peers and
    injected into every project's context. The real path is opened, not the link, so
    the link cannot be turned elsewhere between the check and the read. OSError when
    the file leads out."""
    if source.kind != "guidance":
        return source.path
    real = Path(os.path.realpath(source.path))
    if source.project and real.is_relative_to(os.path.realpath(source.project)):
        return real
    if real.name in SHARED_NAMES and any(real.is_relative_to(p) for p in _agent_folders()):
        return real
    raise LeadsOut(f"it leads to {real}, outside the project and the agents' folders")


def stored_name(path: Path) -> str:
    """How the index names a file: its path, secrets redacted (as transcripts' paths)."""
    return current().redact(str(path))


def index_file(store: Store, source: Source, force: bool = False) -> Written:
    """Index one file; an unchanged file costs a read and a hash (`force`: it is cut and
    redacted again all the same, as `redact --rescan` does under new rules). Raises
    OSError when it cannot be read (the caller decides whether that removes the source).

    The whole text is redacted before it is chunked: a long paragraph is cut at 4,000
    characters, and a token cut there would leave two halves no rule matches."""
    data = _read(_confined(source))
    digest = sha1_hex(data)
    name = stored_name(source.path)
    row = store.conn.execute("SELECT hash FROM files WHERE path = ?", (name,)).fetchone()
    if not force and row is not None and row[0] == digest:
        return Written()
    redactor = current()
    chunks = chunk_markdown(redactor.redact(data.decode("utf-8", errors="replace")))
    ts = _day_ts(source.day) if source.day else os.stat(source.path).st_mtime
    project = redactor.redact(source.project) if source.project else None
    with store.transaction() as db:
        db.execute(
            "INSERT INTO files(path, kind, agent, project, day, ts, hash, indexed_at)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT(path) DO UPDATE SET kind = excluded.kind,"
            " agent = excluded.agent, project = excluded.project, day = excluded.day,"
            " ts = excluded.ts, hash = excluded.hash, indexed_at = excluded.indexed_at",
            (name, source.kind, source.agent, project, source.day, ts, digest, time.time()),
        )
        (file_id,) = db.execute("SELECT id FROM files WHERE path = ?", (name,)).fetchone()
        return _diff(db, file_id, chunks)


def chunk_texts(db: sqlite3.Connection, name: str, heading: str) -> list[str]:
    """The texts of the chunks of the file stored as `name` under `heading` (a long
    section is several chunks), for a surface that shows a snippet within its chunk."""
    rows = db.execute(
        "SELECT c.text FROM file_chunks c JOIN files f ON f.id = c.file"
        " WHERE f.path = ? AND c.heading = ? ORDER BY c.id",
        (name, heading),
    )
    return [str(r[0]) for r in rows]


def remove(store: Store, names: list[str]) -> int:
    """Drop indexed files (by stored name) and their chunks; how many there were."""
    if not names:
        return 0
    with store.transaction() as db:
        db.executemany(
            "DELETE FROM file_chunks WHERE file IN (SELECT id FROM files WHERE path = ?)",
            [(n,) for n in names],
        )
        cur = db.executemany("DELETE FROM files WHERE path = ?", [(n,) for n in names])
        return cur.rowcount


def drop_orphans(store: Store) -> int:
    """Remove the guidance files of projects no session is left of (after `forget
    --project`): they were indexed because the project was, and stayed searchable until
    the next `sync`. The caller compacts. How many files went."""
    rows = store.conn.execute(
        "SELECT path FROM files WHERE kind = 'guidance' AND project IS NOT NULL AND NOT EXISTS"
        " (SELECT 1 FROM sessions s WHERE s.project = files.project)"
    )
    return remove(store, [r[0] for r in rows])


def _own_sources() -> list[Source]:
    found = [Source(memory_file(), "memory_md")]
    folder = daily_dir()
    if folder.is_dir():
        for path in sorted(folder.iterdir()):
            m = _DAY.match(path.name)
            if m:
                found.append(Source(path, "daily_log", day=m.group(1)))
    return found


def _claude_roots() -> list[Path]:
    from recall.agents import ADAPTERS
    from recall.sync import roots_for

    return roots_for(ADAPTERS["claude"])


def _project_sources(db: sqlite3.Connection) -> list[Source]:
    """Guidance files of every indexed project that lives on this computer, and Claude
    Code's own memory of each project whose transcripts are indexed."""
    found: list[Source] = []
    projects = [
        r[0] for r in db.execute("SELECT DISTINCT project FROM sessions WHERE project IS NOT NULL")
    ]
    for project in sorted(projects):
        if "[REDACTED:" in project or not os.path.isabs(project) or not os.path.isdir(project):
            continue
        for name, agent in GUIDANCE.items():
            found.append(Source(Path(project) / name, "guidance", agent, project))
    roots = [r for r in _claude_roots() if r.is_dir()]
    seen: set[Path] = set()
    rows = db.execute(
        "SELECT project, transcript_path FROM sessions WHERE agent = 'claude'"
        " AND transcript_path IS NOT NULL GROUP BY project, transcript_path"
    )
    for project, transcript in rows:
        for root in roots:
            try:
                first = Path(transcript).relative_to(root).parts[0]
            except (ValueError, IndexError):
                continue
            folder = root / first
            if folder not in seen:
                seen.add(folder)
                found.append(Source(folder / "memory" / "MEMORY.md", "guidance", "claude", project))
    return found


def sync_files(store: Store, embed: bool = True, force: bool = False) -> FilesReport:
    """Index every file source; a source whose file is gone (or no longer a source) is removed.
    With `embed`, memories and chunks still without a vector get one (when a model is present);
    with `force`, unchanged files are redacted and chunked again too (`index_file`)."""
    report = FilesReport()
    wanted: set[str] = set()
    led_out: set[str] = set()
    for source in _own_sources() + _project_sources(store.conn):
        if not source.path.is_file():
            continue
        try:
            written = index_file(store, source, force)
        except OSError as exc:
            log(f"sync: passed over {source.path}: {exc}")
            report.passed_over.append(f"{source.path}: {exc}")
            if isinstance(exc, LeadsOut):
                led_out.add(stored_name(source.path))
            continue
        wanted.add(stored_name(source.path))
        report.files += 1
        report.changed += written.changed
        report.chunks_written += written.inserted + written.updated + written.deleted
    known = [r[0] for r in store.conn.execute("SELECT path FROM files")]
    gone = [n for n in known if n not in wanted]
    report.removed = remove(store, gone)
    if led_out.intersection(gone):
        from recall.privacy.forget import compact

        compact(store)  # what an older recall read through the link leaves the file too
    if embed:
        embed_quietly(store)
    return report
