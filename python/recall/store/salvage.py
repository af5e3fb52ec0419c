"""Salvaging a damaged index: every row SQLite can still read, copied into a new one.

`sqlite3 … .recover` needs a CLI that Debian's 3.40 build lacks, so recall
does it with Python's sqlite3: it opens the damaged file read-only, reads
each table in rowid ranges (a range that fails is read row by row, and a row
that fails is counted and passed over), writes what it read into a freshly
migrated index, rebuilds the full-text indexes, and only then swaps the
files, keeping the damaged one as `recall.db.broken-<time>`. Vectors are not
copied: `recall embed` makes them again from the messages.
"""

from __future__ import annotations

import os
import sqlite3
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from recall.record import Record, field
from recall.store.db import open_writer

TABLES = ("sessions", "messages", "transcripts", "forgotten", "forgotten_messages", "summaries")
"""What is copied, parents before children. Not `chunks`/`embedded`: derived."""
BATCH = 500


class SalvageReport(Record):
    copied: dict[str, int] = field(default_factory=dict)
    lost: dict[str, int] = field(default_factory=dict)
    """Rows (or, where a range could not even be counted, ranges) that could not be read."""
    kept_as: str = ""


def _columns(conn: sqlite3.Connection, table: str) -> list[str]:
    try:
        return [r[1] for r in conn.execute(f"PRAGMA table_info({table})")]
    except sqlite3.DatabaseError:
        return []


def _rows(
    src: sqlite3.Connection, table: str, cols: list[str], lost: dict[str, int]
) -> Iterator[Any]:
    """Every readable row of `table`, by rowid range; unreadable ones are counted in `lost`."""
    select = f"SELECT {', '.join(cols)} FROM {table}"
    try:
        (top,) = src.execute(f"SELECT coalesce(max(rowid), 0) FROM {table}").fetchone()
    except sqlite3.DatabaseError:
        top = 1 << 40  # the b-tree's edge is unreadable: walk ranges until rows stop
    start = 0
    empty_ranges = 0
    while start <= top and empty_ranges < 64:
        end = start + BATCH
        try:
            rows = src.execute(f"{select} WHERE rowid >= ? AND rowid < ?", (start, end)).fetchall()
        except sqlite3.DatabaseError:
            rows = []
            for rowid in range(start, end):
                try:
                    rows += src.execute(f"{select} WHERE rowid = ?", (rowid,)).fetchall()
                except sqlite3.DatabaseError:
                    lost[table] = lost.get(table, 0) + 1
        empty_ranges = 0 if rows or top < (1 << 40) else empty_ranges + 1
        yield from rows
        start = end


def salvage(db: Path) -> SalvageReport:
    """Copy what is readable of `db` into a new index, then swap it in; returns the counts."""
    report = SalvageReport()
    fresh = db.with_name(db.name + ".salvage")
    for leftover in fresh.parent.glob(fresh.name + "*"):
        leftover.unlink()
    src = sqlite3.connect(f"{db.resolve().as_uri()}?mode=ro", uri=True)
    try:
        with open_writer(fresh) as store, store.transaction() as out:
            for table in TABLES:
                cols = [c for c in _columns(src, table) if c in _columns(out, table)]
                if not cols:
                    continue
                marks = ", ".join("?" * len(cols))
                insert = f"INSERT OR IGNORE INTO {table}({', '.join(cols)}) VALUES ({marks})"
                copied = 0
                for row in _rows(src, table, cols, report.lost):
                    try:
                        out.execute(insert, row)
                    except sqlite3.IntegrityError:
                        # its parent row was on a lost page: an orphan cannot be shown
                        report.lost[table] = report.lost.get(table, 0) + 1
                        continue
                    copied += 1
                report.copied[table] = copied
            for fts in ("messages_fts", "sessions_fts"):
                out.execute(f"INSERT INTO {fts}({fts}) VALUES ('rebuild')")
            out.execute("DELETE FROM transcripts")  # re-read every file: offsets may be stale
    finally:
        src.close()
    stamp = time.strftime("%Y%m%d-%H%M%S")
    broken = db.with_name(f"{db.name}.broken-{stamp}")
    for suffix in ("", "-wal", "-shm"):
        old = db.with_name(db.name + suffix)
        if old.exists():
            os.replace(old, broken.with_name(broken.name + suffix))
    os.replace(fresh, db)
    for suffix in ("-wal", "-shm"):
        side = fresh.with_name(fresh.name + suffix)
        if side.exists():
            os.replace(side, db.with_name(db.name + suffix))
    fresh.with_name(fresh.name + ".lock").unlink(missing_ok=True)
    report.kept_as = str(broken)
    return report
