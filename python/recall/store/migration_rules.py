"""Frozen copies of the rules migrations apply, one set per migration.

A migration runs once, whenever a user upgrades: if it called live code (the
title rule in `store/titles.py`, `textutil.one_line`), a user upgrading next
year would get a different migration from one upgrading today. So each rule a
migration applies is copied here as it stood when the migration landed, named
after it, and never edited; `tests/store/test_migrations.py` fails if a
migration reaches any other recall module.
"""

from __future__ import annotations

import re
import sqlite3

# m006_summaries: first-prompt titles cleaned again to one line.

_M006_USER = "user"
_M006_TITLE_FIRST_PROMPT = 1
_M006_PROMPTS = 20
_M006_LIMIT = 80
_M006_FENCE = re.compile(r"^\s*(?:```|~~~)\S*\s*$")
_M006_MARKER = re.compile(r"^\s*(?:(?:#{1,6}|>|[-*+])\s+|>)+")
_M006_LINK = re.compile(r"!?\[([^\]\n]*)\]\([^)\s]*\)")
_M006_BOLD = re.compile(r"\*\*(?=\S)(.+?)(?<=\S)\*\*")
_M006_NOISE = re.compile(
    r"(?:\x1b\]|\x9d|\x1bP|\x90|\x1b[X^_]|[\x98\x9e\x9f])[^\x07\x1b\x9c]*(?:\x07|\x1b\\|\x9c)?"
    r"|(?:\x1b\[|\x9b)[0-?]*[ -/]*[@-~]?"
    r"|\x1b[ -/]*[0-~]?"
    r"|[\x00-\x08\x0b-\x1f\x7f-\x9f]|`+"
)


def m006_one_line(text: str) -> str:
    """A prompt as a one-line title (markdown marks, fences and escapes dropped,
    whitespace collapsed, cut at a word boundary to 80 characters)."""
    lines = (_M006_MARKER.sub("", ln) for ln in text.splitlines() if not _M006_FENCE.match(ln))
    words = _M006_BOLD.sub(r"\1", _M006_LINK.sub(r"\1", "\n".join(lines)))
    line = " ".join(_M006_NOISE.sub("", words).split())
    if len(line) <= _M006_LIMIT:
        return line
    cut = line[: _M006_LIMIT - 1].rsplit(" ", 1)[0] or line[: _M006_LIMIT - 1]
    return cut + "…"


def m006_first_prompt(db: sqlite3.Connection, session: int) -> None:
    """Title `session` (untitled, or titled by its first prompt) by its first user
    message that cleans to a non-empty line; a session with none keeps its title."""
    rows = db.execute(
        "SELECT text FROM messages WHERE session = ? AND role = ? ORDER BY position LIMIT ?",
        (session, _M006_USER, _M006_PROMPTS),
    )
    for (text,) in rows.fetchall():
        line = m006_one_line(text)
        if line:
            db.execute(
                "UPDATE sessions SET title = ?, title_rank = ? WHERE id = ?",
                (line, _M006_TITLE_FIRST_PROMPT, session),
            )
            return


# m009_title_groups: first-prompt titles that share a template show the part that differs.

_M009_SAMPLE = 50
_M009_LINE = 2000


def m009_one_line(text: str, limit: int) -> str:
    """m006's one-line rule with a limit of `limit` characters."""
    lines = (_M006_MARKER.sub("", ln) for ln in text.splitlines() if not _M006_FENCE.match(ln))
    words = _M006_BOLD.sub(r"\1", _M006_LINK.sub(r"\1", "\n".join(lines)))
    line = " ".join(_M006_NOISE.sub("", words).split())
    if len(line) <= limit:
        return line
    cut = line[: limit - 1].rsplit(" ", 1)[0] or line[: limit - 1]
    return cut + "…"


def m009_prompt_words(db: sqlite3.Connection, session: int) -> list[str]:
    """The words of the session's first prompt that cleans to a non-empty line."""
    rows = db.execute(
        "SELECT text FROM messages WHERE session = ? AND role = ? ORDER BY position LIMIT ?",
        (session, _M006_USER, _M006_PROMPTS),
    )
    for (text,) in rows.fetchall():
        line = m009_one_line(text, _M009_LINE)
        if line:
            return line.split()
    return []


def m009_shared(lines: list[list[str]]) -> int:
    n = 0
    for words in zip(*lines, strict=False):
        if any(w != words[0] for w in words):
            break
        n += 1
    return n


def m009_title_groups(db: sqlite3.Connection) -> None:
    """Group first-prompt titles by a digest of their text; retitle each group of two or
    more with the part of each prompt after the words the first 50 members share."""
    import hashlib

    rows = db.execute(
        "SELECT id, title FROM sessions WHERE title_rank = ? AND title IS NOT NULL ORDER BY id",
        (_M006_TITLE_FIRST_PROMPT,),
    ).fetchall()
    groups: dict[str, list[tuple[int, str]]] = {}
    for rowid, title in rows:
        group = hashlib.sha1(title.encode("utf-8", "surrogatepass")).hexdigest()
        db.execute("UPDATE sessions SET title_group = ? WHERE id = ?", (group, rowid))
        groups.setdefault(group, []).append((rowid, title))
    for members in groups.values():
        if len(members) < 2:
            continue
        words = {rowid: m009_prompt_words(db, rowid) for rowid, _ in members[:_M009_SAMPLE]}
        template = m009_shared(list(words.values()))
        first = words[members[0][0]]
        for rowid, title in members:
            own = words.get(rowid)
            shared = template
            if own is None:
                own = m009_prompt_words(db, rowid)
                shared = min(template, m009_shared([own, first]))
            if shared <= 0 or shared >= len(own):
                continue
            if shared > 1 and own[shared - 1].endswith((":", "=")):
                shared -= 1
            new = "…" + m009_one_line(" ".join(own[shared:]), 79)
            if new != title:
                db.execute("UPDATE sessions SET title = ? WHERE id = ?", (new, rowid))
