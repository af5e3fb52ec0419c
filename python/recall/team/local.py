"""What this computer may push to the team, read from its own index.

Only sessions whose project an allow-list glob covers (`[team] projects`;
empty: nothing), never one a `[privacy] exclude_projects` glob covers or a
tombstone names, and only mirrors: the stored messages, redacted when they
were stored and once more here with today's rules (a rule added since, and
not yet applied by `recall redact --rescan`, still holds), never a raw
transcript or a path to one. Vectors go with them when they are of the
team's model.

Each session carries a digest of everything pushed for it, so a push sends
only sessions whose digest the team does not already hold.
"""

from __future__ import annotations

import hashlib
import re
import sqlite3
from collections.abc import Iterator

from recall.config import TeamConfig, load_config
from recall.privacy.projects import project_matches
from recall.privacy.redaction import Redactor, current
from recall.record import Record, field
from recall.team.vectors import VectorBytes, from_float32

_WORD = re.compile(r"\w+")
BATCH = 200
"""Sessions read (and pushed) per round: bounds memory on a large index."""


class Chunk(Record):
    position: int
    piece: int
    start: int
    stop: int
    vector: VectorBytes


class Message(Record):
    position: int
    role: str
    text: str
    ts: float | None
    words: int = 0
    """Its length in words, as BM25 counts a document's length."""


class Session(Record):
    agent: str
    session_id: str
    project: str | None
    title: str | None
    parent_session_id: str | None
    started_at: float | None
    ended_at: float | None
    shared: bool
    messages: list[Message] = field(default_factory=list)
    chunks: list[Chunk] = field(default_factory=list)
    digest: str = ""


Key = tuple[str, str]
"""(agent, session id): a session on this computer."""


def allowed(project: str | None, team: TeamConfig) -> bool:
    """Whether a session of `project` may leave this computer."""
    if not project or not project_matches(project, team.projects):
        return False
    return not project_matches(project, load_config().privacy.exclude_projects)


def candidates(db: sqlite3.Connection, team: TeamConfig) -> dict[Key, tuple[int, bool]]:
    """Every session that may be pushed: (agent, id) → (rowid, shared)."""
    tombstones = set(db.execute("SELECT agent, session_id FROM forgotten").fetchall())
    out: dict[Key, tuple[int, bool]] = {}
    for rowid, agent, session_id, project in db.execute(
        "SELECT id, agent, session_id, project FROM sessions"
    ):
        if (agent, session_id) in tombstones or not allowed(project, team):
            continue
        out[(agent, session_id)] = (int(rowid), project_matches(project, team.share))
    return out


def read(
    db: sqlite3.Connection, rows: list[tuple[int, bool]], model: str | None
) -> Iterator[Session]:
    """The sessions at these rowids, redacted, with their chunks of `model` (None: none)."""
    redactor = current()
    for i in range(0, len(rows), BATCH):
        part = dict(rows[i : i + BATCH])
        marks = ",".join("?" * len(part))
        sessions: dict[int, Session] = {}
        for r in db.execute(
            "SELECT id, agent, session_id, project, title, parent_session_id, started_at,"
            f" ended_at FROM sessions WHERE id IN ({marks})",
            list(part),
        ):
            sessions[int(r[0])] = Session(
                agent=r[1],
                session_id=r[2],
                project=_clean(redactor, r[3]),
                title=_clean(redactor, r[4]),
                parent_session_id=r[5],
                started_at=r[6],
                ended_at=r[7],
                shared=part[int(r[0])],
            )
        for sid, position, role, text, ts in db.execute(
            f"SELECT session, position, role, text, ts FROM messages WHERE session IN ({marks})"
            " ORDER BY session, position",
            list(part),
        ):
            clean = redactor.redact(text)
            sessions[sid].messages.append(Message(position, role, clean, ts, _words(clean)))
        if model is not None:
            _add_chunks(db, sessions, marks, model)
        for session in sessions.values():
            session.digest = digest(session)
            yield session


def _add_chunks(
    db: sqlite3.Connection, sessions: dict[int, Session], marks: str, model: str
) -> None:
    for sid, position, piece, start, stop, blob in db.execute(
        "SELECT m.session, m.position, c.piece, c.start, c.end, c.vector"
        " FROM chunks c JOIN messages m ON m.id = c.message"
        f" WHERE m.session IN ({marks}) AND c.model = ? AND c.piece >= 0"  # openings: not yet
        " ORDER BY m.session, m.position, c.piece",
        [*sessions, model],
    ):
        sessions[sid].chunks.append(Chunk(position, piece, start, stop, from_float32(blob)))


def _words(text: str) -> int:
    return sum(1 for _ in _WORD.finditer(text))


def _clean(redactor: Redactor, text: str | None) -> str | None:
    return None if text is None else redactor.redact(text)


def digest(s: Session) -> str:
    """A hash of everything pushed for `s`: equal digests, nothing to send."""
    h = hashlib.sha256()

    def put(value: object) -> None:
        data = value if isinstance(value, bytes) else repr(value).encode("utf-8", "replace")
        h.update(len(data).to_bytes(8, "little"))
        h.update(data)

    for value in (s.project, s.title, s.parent_session_id, s.started_at, s.ended_at, s.shared):
        put(value)
    for m in s.messages:
        put((m.position, m.role, m.ts))
        put(m.text)
    for c in s.chunks:
        put((c.position, c.piece, c.start, c.stop))
        put(c.vector)
    return h.hexdigest()
