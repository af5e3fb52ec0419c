"""What every adapter whose sessions are rows of an agent's database has in common.

OpenCode, Crush and Goose keep their sessions in SQLite (`SessionStore`): no
file is one session, so the file-adapter half of the protocol is the same for
all of them (nothing to discover or own, nothing to parse incrementally); a
session is listed with a fingerprint of its rows' update times and counts and
read whole. `RowStore` says that once; each adapter says only where its
databases are, what its fingerprint query is, and how its rows become messages.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

from recall.agents.base import StoredSession, store_key
from recall.agents.rows import fingerprint
from recall.types import Origin, Parsed, SessionPart


class RowStore:
    """The file half of the adapter protocol for a database-only agent, and
    `read_session` around the agent's own `read_part`."""

    name: str
    incremental = False

    def discover(self, root: Path) -> Iterable[Path]:
        return []

    def owns(self, path: Path) -> bool:
        return False

    def whole_file(self, path: Path) -> bool:
        return True

    def origin(self, path: Path) -> Origin:
        return (path.stem, None, None, True)

    def parse(self, path: Path, data: bytes, offset: int, state: dict[str, Any]) -> Parsed:
        return Parsed(offset=len(data))

    def read_part(self, stored: StoredSession, parsed: Parsed) -> SessionPart | None:
        """The session's part (None when it is gone); bad rows counted in `parsed`."""
        raise NotImplementedError

    def read_session(self, stored: StoredSession) -> Parsed:
        parsed = Parsed()
        part = self.read_part(stored, parsed)
        if part is not None:
            parsed.parts.append(part)
        return parsed


def stored_sessions(source: Path, rows: Iterable[Sequence[Any]]) -> Iterator[StoredSession]:
    """`(session id, *what says it changed)` rows as the sessions sync compares."""
    for sid, *marks in rows:
        if isinstance(sid, str) and sid:
            yield StoredSession(
                key=store_key(source, sid),
                fingerprint=fingerprint(*marks),
                source=source,
                session_id=sid,
            )


def session_row(
    conn: sqlite3.Connection, table: str, have: set[str], sid: str, wanted: Sequence[str]
) -> dict[str, Any] | None:
    """The session's row: `id` and those of `wanted` the table has (`have`, its columns:
    formats drift, so what is missing is left out, not queried); None when it is gone."""
    names = ["id", *(c for c in wanted if c in have and c != "id")]
    row = conn.execute(f"SELECT {', '.join(names)} FROM {table} WHERE id = ?", (sid,)).fetchone()
    return dict(zip(names, row, strict=True)) if row is not None else None


__all__ = ["RowStore", "session_row", "stored_sessions"]
