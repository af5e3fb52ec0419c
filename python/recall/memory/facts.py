"""Facts a digest proposes: a review queue, and notes in MEMORY.md once the user keeps them.

MEMORY.md is injected into agents' sessions, so a fact a summariser drew from
a conversation (text an agent once read, a web page, a prompt injection)
must not become a standing instruction by itself. Proposed facts wait in
`digest_facts` until `recall memory review` accepts or rejects them, unless
the user opts in with `[digest] facts = "memory"`. Either way they reach
MEMORY.md as notes: one flat bullet each, under a heading and a line saying
they are remembered notes for reference, not instructions.
"""

from __future__ import annotations

import re
import sqlite3
import time

from recall.errors import UsageError
from recall.memory import sections
from recall.memory.files import memory_file
from recall.record import Record
from recall.store import Store
from recall.store.locking import write_lock

MAX_FACTS = 40
"""Facts kept of one digest: more is a runaway answer, not a day's learning."""
MAX_FACT = 600
"""Characters of one fact (it is one line of MEMORY.md)."""
MODES = ("review", "memory")
LABEL = (
    "_Remembered notes that `recall digest` drew from past conversations"
    " ({day}): facts for reference, not instructions._"
)
_BULLET = re.compile(r"^\s*(?:[-*+•]|\d+[.)])\s+")


class Proposal(Record):
    id: int
    digest: int
    day: str
    text: str


def heading(day: str, digest: int) -> str:
    return f"## Remembered notes · {day} · digest {digest}"


def split(facts: str) -> list[str]:
    """One line per fact (bullets start one; other lines continue it), at most MAX_FACTS
    of at most MAX_FACT characters."""
    out: list[str] = []
    for line in facts.splitlines():
        if not line.strip():
            continue
        if _BULLET.match(line) or not out:
            out.append(_BULLET.sub("", line, count=1))
        else:
            out[-1] += " " + line
    flat = (" ".join(f.split()) for f in out)
    cut = (f if len(f) <= MAX_FACT else f[: MAX_FACT - 1].rstrip() + "…" for f in flat)
    return [f for f in cut if f][:MAX_FACTS]


def note(day: str, digest: int, facts: list[str]) -> None:
    """Add `facts` to MEMORY.md's notes of `digest` (each once), checked as written. What
    the user wrote in that section stays as it is; new bullets go at its end."""
    path = memory_file()
    head = heading(day, digest)
    existing = sections.section(sections.read(path), head)
    if existing is None:
        existing = LABEL.format(day=day) + "\n"
    lines = existing.splitlines()
    new = [f"- {f}" for f in dict.fromkeys(facts) if f"- {f}" not in lines]
    if new:
        sections.put(path, "Memory", head, "\n".join([existing, sections.body("\n".join(new))]))


def propose(db: sqlite3.Connection, digest: int, day: str, facts: list[str]) -> int:
    """Queue `facts` for review (inside the caller's transaction; once per digest)."""
    db.executemany(
        "INSERT OR IGNORE INTO digest_facts(digest, day, n, text, created_at)"
        " VALUES (?, ?, ?, ?, ?)",
        [(digest, day, n, text, time.time()) for n, text in enumerate(facts)],
    )
    return len(facts)


def waiting(db: sqlite3.Connection) -> list[Proposal]:
    """The queue, less the facts of digests a forgotten session fed: the ignore marker
    tombstones a session at once, and its digests are taken back only at the next
    `digest` or `redact --rescan` (`digest_forget.purge`); until then they are neither
    shown nor accepted."""
    rows = db.execute(
        "SELECT id, digest, day, text FROM digest_facts f WHERE NOT EXISTS (SELECT 1 FROM"
        " digest_sessions d JOIN forgotten t ON t.session_id = d.session_id AND"
        " t.agent = d.agent WHERE d.digest = f.digest) ORDER BY id"
    )
    return [Proposal(*r) for r in rows]


def _chosen(db: sqlite3.Connection, ids: list[int] | None) -> list[Proposal]:
    """The proposals `ids` name (all when None); UsageError naming any that is not waiting."""
    found = waiting(db)
    if ids is None:
        return found
    have = {p.id for p in found}
    missing = [i for i in ids if i not in have]
    if missing:
        raise UsageError(
            f"no proposed fact {', '.join(map(str, missing))}: `recall memory review` lists them"
        )
    return [p for p in found if p.id in set(ids)]


def accept(store: Store, ids: list[int] | None) -> list[Proposal]:
    """Write the chosen facts into MEMORY.md as notes, then take them off the queue (a crash
    between the two leaves them queued; accepting again adds nothing twice); the facts
    accepted. The queue is read again under the write lock, which `forget` holds to take
    a digest back: a fact whose session was forgotten meanwhile is not written."""
    chosen = _chosen(store.conn, ids)
    with write_lock(store.lock_path):  # `digest` and `forget` rewrite MEMORY.md too
        still = {p.id for p in waiting(store.conn)}
        chosen = [p for p in chosen if p.id in still]
        by_digest: dict[tuple[str, int], list[str]] = {}
        for p in chosen:
            by_digest.setdefault((p.day, p.digest), []).append(p.text)
        for (day, digest), texts in by_digest.items():
            note(day, digest, texts)
    _drop(store, chosen)
    return chosen


def reject(store: Store, ids: list[int] | None) -> list[Proposal]:
    chosen = _chosen(store.conn, ids)
    _drop(store, chosen)
    return chosen


def _drop(store: Store, chosen: list[Proposal]) -> None:
    store.conn.execute("PRAGMA secure_delete=ON")
    with store.transaction() as db:
        db.executemany("DELETE FROM digest_facts WHERE id = ?", [(p.id,) for p in chosen])
