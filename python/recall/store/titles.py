"""Which title a session shows: its own, a summary of its leaf, or its first prompt.

A session keeps the best title it has been given (`sessions.title_rank`,
ranks in `recall.types`): the user's, then the agent's own, both from the
parse. Below those the store decides. A Claude `summary` line
(`{summary, leafUuid}`) titles the session holding the message whose key is
its leaf, which is often in another file of the project, read before or
after it, in another sync or by a hook. Every summary is therefore kept by
leaf (`summaries`, migration m006), and a session is retitled whenever a
summary or a leaf message arrives second. A summary whose leaf is never
stored titles nothing. Failing all of these, the first real user prompt,
cleaned to one line (`textutil.one_line`); when several sessions' prompts
share a template, the part of each that differs (`store/title_groups.py`).
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterable, Iterator

from recall.store.title_groups import regroup
from recall.textutil import one_line, scrub
from recall.types import TITLE_FIRST_PROMPT, TITLE_SUMMARY, USER

_CHUNK = 500
"""Keys per `IN (…)` look-up, well under SQLite's variable limit."""
_PROMPTS = 20
"""User messages tried for a first-prompt title (one that cleans to nothing is passed over)."""


def _chunks(items: list[str]) -> Iterator[list[str]]:
    for start in range(0, len(items), _CHUNK):
        yield items[start : start + _CHUNK]


def folder_of(path: str | None) -> str | None:
    """The folder a stored transcript path names (a Claude project's folder)."""
    return os.path.dirname(path) if path else None


def record_summaries(
    db: sqlite3.Connection,
    agent: str,
    summaries: Iterable[tuple[str, str]],
    transcript: str | None,
) -> None:
    """Keep summaries read from `transcript` (text already redacted) and retitle the
    sessions holding their leaves. The same leaf again takes the later text; a leaf
    whose session was forgotten (its text NULL) stays forgotten."""
    rows = {scrub(leaf): scrub(text) for leaf, text in summaries}
    db.executemany(
        """INSERT INTO summaries(agent, leaf, text, source) VALUES (?, ?, ?, ?)
           ON CONFLICT(agent, leaf) DO UPDATE SET text = excluded.text,
               source = excluded.source WHERE text IS NOT NULL""",
        [(agent, leaf, text, transcript) for leaf, text in rows.items()],
    )
    retitle_leaves(db, agent, list(rows))


def summarised(db: sqlite3.Connection, agent: str, keys: list[str]) -> list[str]:
    """Which of `keys` (messages just written) are the leaf of a stored summary."""
    found: list[str] = []
    for chunk in _chunks(keys):
        marks = ",".join("?" * len(chunk))
        found += [
            r[0]
            for r in db.execute(
                f"SELECT leaf FROM summaries WHERE agent = ? AND leaf IN ({marks})",
                (agent, *chunk),
            )
        ]
    return found


def retitle_leaves(db: sqlite3.Connection, agent: str, leaves: list[str]) -> None:
    """Retitle every session of `agent` holding a message keyed by one of `leaves`."""
    sessions: set[int] = set()
    for chunk in _chunks(leaves):
        marks = ",".join("?" * len(chunk))
        sessions.update(
            r[0]
            for r in db.execute(
                f"""SELECT m.session FROM messages m JOIN sessions s ON s.id = m.session
                    WHERE s.agent = ? AND m.key IN ({marks})""",
                (agent, *chunk),
            )
        )
    for session in sorted(sessions):
        retitle(db, session)


def owner(db: sqlite3.Connection, agent: str, leaf: str, source: str | None) -> int | None:
    """The session a summary's leaf belongs to.

    A line uuid is not global (a session can carry another's uuid with other
    text), so when several sessions hold the key the one whose transcript is in
    the summary's folder (the same project) wins, then the smallest session id:
    the same choice whatever order the files were read in.
    """
    rows = db.execute(
        """SELECT s.id, s.session_id, s.transcript_path FROM messages m
           JOIN sessions s ON s.id = m.session WHERE m.key = ? AND s.agent = ?""",
        (leaf, agent),
    ).fetchall()
    if not rows:
        return None
    folder = folder_of(source)
    best = min(rows, key=lambda r: (folder_of(r[2]) != folder, r[1]))
    return int(best[0])


def summary_for(db: sqlite3.Connection, session: int, agent: str) -> str | None:
    """The text of the summary whose leaf is the session's latest (the branch it ended on)."""
    rows = db.execute(
        """SELECT u.text, u.leaf, u.source FROM messages m
           JOIN summaries u ON u.agent = ? AND u.leaf = m.key
           WHERE m.session = ? AND u.text IS NOT NULL ORDER BY m.position DESC""",
        (agent, session),
    )
    for text, leaf, source in rows:
        if owner(db, agent, leaf, source) == session:
            return str(text)
    return None


def retitle(db: sqlite3.Connection, session: int) -> None:
    """Give `session` its leaf's summary unless it has a better title; a session whose
    summary went to another (or was forgotten) falls back to its first prompt."""
    agent, title, rank = db.execute(
        "SELECT agent, title, title_rank FROM sessions WHERE id = ?", (session,)
    ).fetchone()
    if rank > TITLE_SUMMARY:
        return
    text = summary_for(db, session, agent)
    if text is not None:
        if (title, rank) != (text, TITLE_SUMMARY):
            db.execute(
                "UPDATE sessions SET title = ?, title_rank = ? WHERE id = ?",
                (text, TITLE_SUMMARY, session),
            )
    elif rank == TITLE_SUMMARY:
        db.execute("UPDATE sessions SET title = NULL, title_rank = 0 WHERE id = ?", (session,))
        first_prompt(db, session)


def first_prompt(db: sqlite3.Connection, session: int, force: bool = False) -> None:
    """Title an untitled session (any title of first-prompt rank or below, with
    `force`) by its first user message that cleans to a non-empty line."""
    (rank,) = db.execute("SELECT title_rank FROM sessions WHERE id = ?", (session,)).fetchone()
    if rank >= TITLE_FIRST_PROMPT and not (force and rank == TITLE_FIRST_PROMPT):
        return
    rows = db.execute(
        "SELECT text FROM messages WHERE session = ? AND role = ? ORDER BY position LIMIT ?",
        (session, USER, _PROMPTS),
    )
    for (text,) in rows:
        line = one_line(text)
        if line:
            db.execute(
                "UPDATE sessions SET title = ?, title_rank = ? WHERE id = ?",
                (line, TITLE_FIRST_PROMPT, session),
            )
            regroup(db, session, line)
            return


def forget_summaries(db: sqlite3.Connection, session: int, tombstone: bool) -> None:
    """Before `session` is deleted: drop the summaries naming its messages, and those
    read from its transcript (text the user asked to forget, whatever it names).

    With `tombstone` (forgotten for good) a summary naming its messages keeps
    its leaf with no text, so read again from another file it still titles
    nothing; without (excluded by config, which may be lifted) it is deleted.
    """
    row = db.execute(
        "SELECT agent, transcript_path FROM sessions WHERE id = ?", (session,)
    ).fetchone()
    if row is None:
        return
    agent, transcript = row
    leaves = "leaf IN (SELECT key FROM messages WHERE session = ?)"
    if tombstone:
        sql = f"UPDATE summaries SET text = NULL, source = NULL WHERE agent = ? AND {leaves}"
    else:
        sql = f"DELETE FROM summaries WHERE agent = ? AND {leaves}"
    db.execute(sql, (agent, session))
    if transcript:
        args = (agent, transcript)
        where = "WHERE agent = ? AND source = ?"
        read = [r[0] for r in db.execute(f"SELECT leaf FROM summaries {where}", args)]
        db.execute(f"DELETE FROM summaries {where}", args)
        retitle_leaves(db, agent, read)  # sessions those summaries titled fall back
