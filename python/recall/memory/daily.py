"""`recall digest`: a day's conversations summarised into daily/D.md, facts queued for review.

The summariser is the user's command (any LLM CLI reading a prompt on stdin,
run with bounds by `summariser`); the prompt is `digest_prompt.md`. What is
sent: each session's messages of the day after its watermark (`digest_marks`,
the last position summarised), oldest session first, up to a token budget;
what did not fit waits for the next run. A digest is carried from the
summariser's answer to the watermark by a `digest_pending` row, so a crash
anywhere between them neither repeats nor loses anything: the next run
finishes a pending digest first, putting in only the sections its files do
not hold as written (each carries its digest id in its heading, and no text
under a heading can pose as one: `sections`) and moving the watermarks only
once they are there. Each digest records its sessions (`digest_sessions`) so
that `recall forget` can take back what it derived (`digest_forget`).

The summariser's own session must never be indexed: the prompt's first line
is the ignore marker (so `sync` and every hook refuse that session, with a
tombstone), and its environment carries `RECALL_DIGEST_CHILD=1`, which a hook
honours even when the marker is switched off (docs/memory.md).
"""

from __future__ import annotations

import json
import re
import sqlite3
import time
from datetime import date, datetime, timedelta
from pathlib import Path

from recall.config import DigestConfig
from recall.errors import ConfigError, RecallError
from recall.memory import facts as queue
from recall.memory import sections
from recall.memory.files import daily_dir, memory_file
from recall.memory.summariser import summarise
from recall.privacy.policy import settings as privacy_settings
from recall.privacy.redaction import current
from recall.record import Record, field
from recall.store import Store
from recall.store.locking import write_lock

CHARS_PER_TOKEN = 4
"""A token budget becomes a character budget at about 4 characters a token (English)."""
PROMPT = Path(__file__).with_name("digest_prompt.md")


class Plan(Record):
    text: str = ""
    marks: dict[int, int] = field(default_factory=dict)
    """Session rowid → the last position this digest covers."""
    before: dict[int, int] = field(default_factory=dict)
    """Session rowid → its watermark when planned (-1: none), to notice a digest run meanwhile."""
    keys: dict[int, tuple[str, str]] = field(default_factory=dict)
    """Session rowid → (session id, agent) when planned, to notice it was forgotten meanwhile
    (a rowid alone could be a new session's by then)."""
    sessions: int = 0
    messages: int = 0
    left: int = 0
    """Messages of the day that did not fit the budget (the next run takes them)."""


class Digest(Record):
    id: int
    day: str
    summary: str
    facts: str
    marks: dict[int, int]


def _day_bounds(day: str) -> tuple[float, float]:
    start = datetime.combine(date.fromisoformat(day), datetime.min.time()).astimezone()
    return start.timestamp(), (start + timedelta(days=1)).timestamp()


def plan(store: Store, day: str, max_tokens: int) -> Plan:
    """The day's messages not yet summarised, as the text to send, within the budget."""
    start, end = _day_bounds(day)
    rows = store.conn.execute(
        """SELECT s.id, s.title, s.agent, s.project, m.position, m.role, m.text,
                  coalesce(d.position, -1), s.session_id
           FROM messages m JOIN sessions s ON s.id = m.session
           LEFT JOIN digest_marks d ON d.session = s.id
           WHERE coalesce(m.ts, s.ended_at) >= ? AND coalesce(m.ts, s.ended_at) < ?
             AND m.position > coalesce(d.position, -1)
           ORDER BY coalesce(s.started_at, s.ended_at), s.id, m.position""",
        (start, end),
    ).fetchall()
    budget = max_tokens * CHARS_PER_TOKEN
    out = Plan()
    parts: list[str] = []
    used = 0
    current_session = None
    for n, (sid, title, agent, project, position, role, text, mark, key) in enumerate(rows):
        header = ""
        if sid != current_session:
            header = f"\n### {title or '(untitled)'} ({agent}{', ' + project if project else ''})\n"
        line = f"{'User' if role == 'user' else 'Assistant'}: {text.strip()}\n"
        room = budget - used - len(header)
        if len(line) > room:
            if out.messages or room < 200:
                out.left = len(rows) - n
                break
            line = line[: room - 2] + "…\n"  # one message longer than the budget: its start
        parts.append(header + line)
        used += len(header) + len(line)
        if sid != current_session:
            out.sessions += 1
            current_session = sid
        out.marks[sid] = position
        out.before[sid] = mark
        out.keys[sid] = (key, agent)
        out.messages += 1
    out.text = "".join(parts).strip()
    return out


def prompt(day: str, conversations: str) -> str:
    marker = privacy_settings().ignore_marker
    text = PROMPT.read_text(encoding="utf-8")
    return (
        text.replace("{marker}", marker)
        .replace("{day}", day)
        .replace("{conversations}", conversations)
    )


_SECTION = re.compile(
    r"^#{1,3}\s*(daily summary|long[- ]term facts)\s*$", re.IGNORECASE | re.MULTILINE
)


def split_answer(answer: str) -> tuple[str, str]:
    """(summary, facts) from the answer's two sections; no sections: all of it is the summary.
    Text before the first section heading is summary too (a summariser that skipped the
    `## Daily Summary` heading, or wrote a line before it): dropped, it was lost for good,
    as the watermark moves past its messages."""
    found = list(_SECTION.finditer(answer))
    if not found:
        return answer.strip(), ""
    parts = {"daily summary": [answer[: found[0].start()].strip()], "long-term facts": []}
    for n, m in enumerate(found):
        end = found[n + 1].start() if n + 1 < len(found) else len(answer)
        key = m.group(1).lower().replace("long term", "long-term")
        parts[key].append(answer[m.end() : end].strip())
    facts = "\n\n".join(x for x in parts["long-term facts"] if x)
    if facts.strip(" .*-\n").lower() in ("none", "n/a", ""):
        facts = ""
    return "\n\n".join(x for x in parts["daily summary"] if x), facts


BUSY = "another `recall digest` ran meanwhile, so this one wrote nothing: run it again"
FORGOTTEN = (
    "a session of this digest was forgotten (or left the index) while the summariser ran,"
    " so its answer was discarded and nothing was written: run `recall digest` again"
)


def _gone(db: sqlite3.Connection, keys: dict[int, tuple[str, str]]) -> bool:
    """Whether any of these sessions is no longer the one planned: deleted (`forget`, an
    exclusion rescan), replaced by a new session under its rowid, or tombstoned."""
    for sid, key in keys.items():
        row = db.execute("SELECT session_id, agent FROM sessions WHERE id = ?", (sid,))
        if row.fetchone() != key:
            return True
        tomb = "SELECT 1 FROM forgotten WHERE session_id = ? AND agent = ?"
        if db.execute(tomb, key).fetchone() is not None:
            return True
    return False


def record(store: Store, day: str, summary: str, facts: str, work: Plan) -> Digest:
    """Keep the answer (redacted) and its watermarks until its files are written; refuse
    (RecallError) if another digest moved a watermark or is finishing since `work` was
    planned (its messages would be summarised twice), or if one of its sessions was
    forgotten meanwhile (the answer carries that session's text)."""
    redact = current().redact
    summary, facts = redact(summary), redact(facts)
    marks = work.marks
    with store.transaction() as db:
        if db.execute("SELECT 1 FROM digest_pending LIMIT 1").fetchone() is not None:
            raise RecallError(BUSY)
        for sid, mark in work.before.items():
            row = db.execute("SELECT position FROM digest_marks WHERE session = ?", (sid,))
            now = row.fetchone()
            if (now[0] if now else -1) != mark:
                raise RecallError(BUSY)
        if _gone(db, work.keys):
            raise RecallError(FORGOTTEN)
        cur = db.execute(
            "INSERT INTO digest_pending(day, marks, summary, facts, created_at)"
            " VALUES (?, ?, ?, ?, ?)",
            (day, json.dumps(marks), summary, facts, time.time()),
        )
        db.executemany(  # which sessions it came from, for `recall forget` (digest_forget)
            "INSERT INTO digest_sessions(digest, session_id, agent, day, after, upto)"
            " SELECT ?, session_id, agent, ?, ?, ? FROM sessions WHERE id = ?",
            [(cur.lastrowid, day, work.before[sid], pos, sid) for sid, pos in marks.items()],
        )
    return Digest(int(cur.lastrowid or 0), day, summary, facts, marks)


def pending(store: Store) -> list[Digest]:
    rows = store.conn.execute(
        "SELECT id, day, summary, facts, marks FROM digest_pending ORDER BY id"
    )
    return [
        Digest(i, d, s, f, {int(k): v for k, v in json.loads(m).items()}) for i, d, s, f, m in rows
    ]


MAX_SUMMARY = 32 * 1024
"""Characters of one digest's summary kept in the daily log (a day's summary is a few
thousand); a longer answer is cut, and says so."""


def bounded(summary: str) -> str:
    """`summary` cut to MAX_SUMMARY characters, at a line where it can be."""
    if len(summary) <= MAX_SUMMARY:
        return summary
    cut = summary[:MAX_SUMMARY]
    cut = cut[: cut.rfind("\n")] if "\n" in cut else cut
    return f"{cut}\n\n(cut: the summariser wrote {len(summary) - len(cut)} more characters)"


def facts_mode(config: DigestConfig) -> str:
    if config.facts not in queue.MODES:
        raise ConfigError(f"[digest] facts must be review or memory, not {config.facts!r}")
    return config.facts


class Written(Record):
    files: list[Path]
    mode: str
    """Where the facts went: "memory", or "review" (also when MEMORY.md could not take them)."""
    warning: str = ""


def write_files(digest: Digest, mode: str) -> Written:
    """Put the digest's section into daily/D.md and, with `mode` "memory", its facts into
    MEMORY.md as notes; each is read back before anything is marked done (`sections.put`).
    Facts MEMORY.md cannot take (too big, not a file) are queued for review instead."""
    log = daily_dir() / f"{digest.day}.md"
    sections.put(log, digest.day, f"## Digest {digest.id}", sections.body(digest.summary))
    done = Written([log], mode)
    found = queue.split(digest.facts)
    if found and mode == "memory":
        try:
            queue.note(digest.day, digest.id, found)
            done.files.append(memory_file())
        except RecallError as exc:
            done.mode, done.warning = "review", f"{exc}; its facts wait in `recall memory review`"
    return done


def apply_marks(store: Store, digest: Digest, mode: str = "review") -> int:
    """Move the watermarks (never backwards), queue the facts for review (`mode` "review")
    and close the digest, in one transaction; how many facts were queued. A digest
    `forget` took back meanwhile (its pending row is gone) changes nothing: its facts
    carry a forgotten session's text, and the other sessions are to be summarised again."""
    queued = 0
    with store.transaction() as db:
        if db.execute("SELECT 1 FROM digest_pending WHERE id = ?", (digest.id,)).fetchone() is None:
            return 0
        db.executemany(
            "INSERT INTO digest_marks(session, position, digested_at) SELECT ?, ?, ?"
            " WHERE EXISTS (SELECT 1 FROM sessions WHERE id = ?)"
            " ON CONFLICT(session) DO UPDATE SET position = max(position, excluded.position),"
            " digested_at = excluded.digested_at",
            [(sid, pos, time.time(), sid) for sid, pos in digest.marks.items()],
        )
        if mode == "review":
            queued = queue.propose(db, digest.id, digest.day, queue.split(digest.facts))
        db.execute("DELETE FROM digest_pending WHERE id = ?", (digest.id,))
    return queued


def _taken_back(db: sqlite3.Connection, digest: Digest) -> bool:
    """Whether `digest` may no longer be written: `forget` removed it (its pending row is
    gone), or one of its sessions is forgotten or gone from the index (its text is in the
    answer). Read under the write lock, which `forget` holds to rewrite the files."""
    if db.execute("SELECT 1 FROM digest_pending WHERE id = ?", (digest.id,)).fetchone() is None:
        return True
    keys = db.execute(
        "SELECT d.session_id, d.agent, s.id IS NOT NULL, f.session_id IS NOT NULL"
        " FROM digest_sessions d"
        " LEFT JOIN sessions s ON s.session_id = d.session_id AND s.agent = d.agent"
        " LEFT JOIN forgotten f ON f.session_id = d.session_id AND f.agent = d.agent"
        " WHERE d.digest = ?",
        (digest.id,),
    ).fetchall()
    return len(keys) < len(digest.marks) or any(not alive or tomb for _, _, alive, tomb in keys)


def _discard(digest: Digest) -> list[Path]:
    """Take back a digest that may not be written (under the write lock): its sections,
    should a crashed run have written them, then its rows; the files changed. Its
    sessions' watermarks never moved, so the next run summarises the others again."""
    changed = []
    if sections.drop(daily_dir() / f"{digest.day}.md", {f"## Digest {digest.id}"}):
        changed.append(daily_dir() / f"{digest.day}.md")
    if sections.drop(memory_file(), {queue.heading(digest.day, digest.id)}):
        changed.append(memory_file())
    return changed


def finish(store: Store, digest: Digest, mode: str) -> tuple[Written, int]:
    """Write the digest's files (under the write lock: `recall memory review` and `forget`
    rewrite them too), then mark it done; (what was written, facts queued). A digest
    whose session was forgotten since its answer came is discarded instead, unwritten."""
    with write_lock(store.lock_path):
        gone = _taken_back(store.conn, digest)
        if gone:
            changed = _discard(digest)
        else:
            written = write_files(digest, mode)
    if gone:
        store.conn.execute("PRAGMA secure_delete=ON")
        with store.transaction() as db:
            db.execute("DELETE FROM digest_pending WHERE id = ?", (digest.id,))
            db.execute("DELETE FROM digest_sessions WHERE digest = ?", (digest.id,))
        why = (
            f"digest {digest.id} of {digest.day} was discarded: a session of it was forgotten"
            f" before it was written; `recall digest --date {digest.day}` summarises the rest"
        )
        return Written(changed, mode, why), 0
    return written, apply_marks(store, digest, written.mode)


class Outcome(Record):
    day: str
    sessions: int = 0
    messages: int = 0
    left: int = 0
    recovered: int = 0
    proposed: int = 0
    """Facts queued for `recall memory review`."""
    files: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


def digest(store: Store, day: str, config: DigestConfig) -> Outcome:
    """Finish any digest a crash left pending, then digest `day` (see the module)."""
    mode = facts_mode(config)
    out = Outcome(day)
    for left_over in pending(store):
        written, queued = finish(store, left_over, mode)
        out.files += [str(p) for p in written.files]
        out.warnings += [written.warning] if written.warning else []
        out.proposed += queued
        out.recovered += 1
    work = plan(store, day, config.max_tokens)
    if work.messages == 0:
        return out
    assert config.command is not None
    answer = summarise(config.command, prompt(day, work.text), config.timeout)
    summary, found = split_answer(answer)
    done = record(store, day, bounded(summary), found, work)
    written, queued = finish(store, done, mode)
    out.files = sorted({*out.files, *(str(p) for p in written.files)})
    out.warnings += [written.warning] if written.warning else []
    out.proposed += queued
    out.sessions, out.messages, out.left = work.sessions, work.messages, work.left
    return out
