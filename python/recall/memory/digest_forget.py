"""Taking back what digests derived from forgotten sessions.

A digest's summary and facts carry its sessions' text into daily/D.md, the
review queue and MEMORY.md, which `forget` alone would leave behind. Each
digest records its sessions (`digest_sessions`: session id, agent, the
watermark before and after it), so once a session is tombstoned every digest
it fed is removed whole: its section of the daily log, its notes in
MEMORY.md, its queued facts, a pending copy. The other sessions of those
digests are not lost: their watermarks go back to before the removed digest,
so the next `recall digest` for that day summarises them again. A later
digest of such a session would then cover messages summarised again, so it
is removed too (a closure, usually of one digest). Files are rewritten
before the rows go, so a crash in between is finished by the next run.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from recall.memory import facts, sections
from recall.memory.files import Source, daily_dir, index_file, memory_file, remove, stored_name
from recall.record import Record, field
from recall.store import Store
from recall.store.locking import write_lock

Key = tuple[str, str]
"""(session_id, agent): what a tombstone names."""


class Taken(Record):
    digests: list[int] = field(default_factory=list)
    days: list[str] = field(default_factory=list)
    """Days whose daily log lost a digest (`recall digest --date D` writes them again)."""
    files: list[str] = field(default_factory=list)
    facts: int = 0
    """Queued facts dropped with their digests."""
    redo: int = 0
    """Other sessions whose messages will be summarised again."""


class _Removal(Record):
    digests: dict[int, str] = field(default_factory=dict)
    """Digest id → its day."""
    floors: dict[Key, int] = field(default_factory=dict)
    """Surviving session → the watermark it goes back to."""


def _closure(db: sqlite3.Connection, hit: set[int], gone: set[Key]) -> _Removal:
    rows = db.execute("SELECT digest, session_id, agent, day, after, upto FROM digest_sessions")
    entries: dict[Key, list[tuple[int, int, int]]] = {}
    days: dict[int, str] = {}
    for digest, sid, agent, day, after, upto in rows:
        entries.setdefault((sid, agent), []).append((digest, after, upto))
        days[digest] = day
    removed = set(hit)
    while True:
        floors = {
            key: min(a for d, a, _ in runs if d in removed)
            for key, runs in entries.items()
            if any(d in removed for d, _, _ in runs)
        }
        more = {
            d
            for key, low in floors.items()
            for d, _, upto in entries[key]
            if d not in removed and upto > low
        }
        if not more:
            break
        removed |= more
    survivors = {k: v for k, v in floors.items() if k not in gone}
    return _Removal(digests={d: days[d] for d in sorted(removed)}, floors=survivors)


def _forgotten_digests(db: sqlite3.Connection, keys: list[Key] | None) -> tuple[set[int], set[Key]]:
    """Digests fed by `keys` (by every tombstoned session when None), and those keys."""
    if keys is None:
        rows = db.execute(
            "SELECT DISTINCT d.digest, d.session_id, d.agent FROM digest_sessions d"
            " JOIN forgotten f ON f.session_id = d.session_id AND f.agent = d.agent"
        ).fetchall()
    else:
        rows = [
            (r[0], sid, agent)
            for sid, agent in keys
            for r in db.execute(
                "SELECT digest FROM digest_sessions WHERE session_id = ? AND agent = ?",
                (sid, agent),
            )
        ]
    return {r[0] for r in rows}, {(r[1], r[2]) for r in rows}


def affected(db: sqlite3.Connection, keys: list[Key]) -> Taken:
    """What forgetting `keys` would take back (for a dry run); nothing is changed."""
    hit, gone = _forgotten_digests(db, keys)
    plan = _closure(db, hit, gone) if hit else _Removal()
    return Taken(
        digests=list(plan.digests),
        days=sorted(set(plan.digests.values())),
        redo=len(plan.floors),
    )


def _rewrite_files(plan: _Removal) -> list[Path]:
    """Cut the removed digests out of their daily logs and MEMORY.md; the files changed."""
    changed: list[Path] = []
    by_day: dict[str, set[str]] = {}
    for digest, day in plan.digests.items():
        by_day.setdefault(day, set()).add(f"## Digest {digest}")
    for day, heads in sorted(by_day.items()):
        log = daily_dir() / f"{day}.md"
        if sections.drop(log, heads):
            changed.append(log)
            if sections.read(log).strip() == f"# {day}":
                log.unlink()
    notes = {facts.heading(day, d) for d, day in plan.digests.items()}
    if sections.drop(memory_file(), notes):
        changed.append(memory_file())
    return changed


def _reindex(store: Store, paths: list[Path]) -> None:
    for path in paths:
        if not path.exists():
            remove(store, [stored_name(path)])
        elif path == memory_file():
            index_file(store, Source(path, "memory_md"))
        else:
            day = path.name.removesuffix(".md")
            index_file(store, Source(path, "daily_log", day=day))


def purge(store: Store) -> Taken:
    """Remove every digest a tombstoned session fed (see the module); what was done."""
    hit, gone = _forgotten_digests(store.conn, None)
    if not hit:
        return Taken()
    plan = _closure(store.conn, hit, gone)
    with write_lock(store.lock_path):  # `digest` and `memory review` write them too
        changed = _rewrite_files(plan)
    ids = [(d,) for d in plan.digests]
    store.conn.execute("PRAGMA secure_delete=ON")
    with store.transaction() as db:
        dropped = sum(
            db.execute("DELETE FROM digest_facts WHERE digest = ?", i).rowcount for i in ids
        )
        db.executemany("DELETE FROM digest_pending WHERE id = ?", ids)
        db.executemany("DELETE FROM digest_sessions WHERE digest = ?", ids)
        for (sid, agent), low in plan.floors.items():
            rowids = "SELECT id FROM sessions WHERE session_id = ? AND agent = ?"
            if low < 0:
                db.execute(f"DELETE FROM digest_marks WHERE session IN ({rowids})", (sid, agent))
            else:
                db.execute(
                    "UPDATE digest_marks SET position = min(position, ?)"
                    f" WHERE session IN ({rowids})",
                    (low, sid, agent),
                )
    _reindex(store, changed)
    return Taken(
        digests=list(plan.digests),
        days=sorted(set(plan.digests.values())),
        files=[str(p) for p in changed],
        facts=dropped,
        redo=len(plan.floors),
    )


def describe(taken: Taken, dry_run: bool = False, source: str = "it") -> list[str]:
    """What `forget` says about the digests it took back (nothing when there were none);
    `source` names what they were made from."""
    if not taken.digests:
        return []
    verb = "would remove" if dry_run else "removed"
    lines = [
        f"{verb} {len(taken.digests)} digest(s) made from {source}, of {', '.join(taken.days)}"
        + ("" if dry_run else f" ({len(taken.files)} files rewritten")
        + ("" if dry_run else f", {taken.facts} proposed fact(s) dropped)")
    ]
    if taken.redo:
        again = " ".join(f"recall digest --date {d};" for d in taken.days).rstrip(";")
        lines.append(f"{taken.redo} other session(s) in them will be summarised again: {again}")
    return lines
