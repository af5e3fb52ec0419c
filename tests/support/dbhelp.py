"""Putting an index into states doctor must find, by writing to it as damage would."""

from __future__ import annotations

import sqlite3
from pathlib import Path


def unindex_first_message(db: Path) -> None:
    """Drop the first message from the full-text index only: FTS out of step with its table."""
    conn = sqlite3.connect(db)
    rowid, text = conn.execute("SELECT id, text FROM messages ORDER BY id LIMIT 1").fetchone()
    conn.execute(
        "INSERT INTO messages_fts(messages_fts, rowid, text) VALUES ('delete', ?, ?)",
        (rowid, text),
    )
    conn.commit()
    conn.close()
