"""First-prompt titles that tell sessions apart when their prompts share a template.

Benchmarks and scripted runs start hundreds of sessions with one template
("Fix this bug to solve the issue based on manual.yaml: instance_id: …"),
and an 80-character title cuts each just before the part that differs. So a
session titled by its first prompt also records its group: a digest of that
80-character title (`sessions.title_group`, migration m009). While a group
has one member, the title is the prompt as it was. From two members on, each
member's title is the part of its prompt after the words the group shares,
led by "…" (a label such as `instance_id:` kept in front of its value):
`…instance_id: django__django-11099 Problem: …`. A member whose whole prompt
is the template keeps the shared title: nothing in it differs.

The template is the words the first `SAMPLE` members (by rowid) share, so a
growing group costs one look-up per new member once it is that large (the
sample's template is kept per process); a later member that departs from the
template earlier is cut where it departs.
The title is stored, so search, show, context, MCP and peers all show it.
"""

from __future__ import annotations

import sqlite3

from recall.digest import sha1_hex
from recall.textutil import one_line
from recall.types import TITLE_FIRST_PROMPT, USER

SAMPLE = 50
"""Members whose shared words define a group's template."""
LINE = 2000
"""Characters of a prompt compared with its group (the part that differs is in them)."""
_PROMPTS = 20
"""User messages tried for the prompt, as `titles.first_prompt` tries them."""
_TEMPLATES: dict[tuple[str, tuple[int, ...]], tuple[int, list[str]]] = {}
"""A full sample's template (shared word count, first member's words) by group and sample
rowids: a sync adding hundreds of newcomers to one group reads the sample once. A sample
that changes (a member forgotten, retitled) is another key."""


def group_of(title: str) -> str:
    """The group key of a first-prompt title: sessions whose 80-character titles are
    the same text cannot be told apart by them."""
    return sha1_hex(title.encode("utf-8", "surrogatepass"))


def prompt_line(db: sqlite3.Connection, session: int) -> str | None:
    """The session's first prompt that cleans to a non-empty line, up to `LINE` characters."""
    rows = db.execute(
        "SELECT text FROM messages WHERE session = ? AND role = ? ORDER BY position LIMIT ?",
        (session, USER, _PROMPTS),
    )
    for (text,) in rows.fetchall():
        line = one_line(text, LINE)
        if line:
            return line
    return None


def shared_words(lines: list[list[str]]) -> int:
    """How many leading words every one of `lines` has in common."""
    if not lines:
        return 0
    n = 0
    for words in zip(*lines, strict=False):
        if any(w != words[0] for w in words):
            break
        n += 1
    return n


def distinct(words: list[str], shared: int, fallback: str) -> str:
    """The title of a prompt (`words`) whose first `shared` words are its group's template."""
    if shared <= 0 or shared >= len(words):
        return fallback
    if shared > 1 and words[shared - 1].endswith((":", "=")):
        shared -= 1  # `instance_id: X`: the label stays with its value
    return "…" + one_line(" ".join(words[shared:]), 79)


def regroup(db: sqlite3.Connection, session: int, title: str) -> None:
    """Record `session`'s group (it was just titled `title` by its first prompt) and
    retitle what the group's new member changes: every member while the group is
    within `SAMPLE` (the template may shrink), else the new member alone."""
    group = group_of(title)
    db.execute("UPDATE sessions SET title_group = ? WHERE id = ?", (group, session))
    sample = db.execute(
        "SELECT id, title FROM sessions WHERE title_group = ? AND title_rank = ?"
        " ORDER BY id LIMIT ?",
        (group, TITLE_FIRST_PROMPT, SAMPLE),
    ).fetchall()
    if len(sample) < 2:
        return
    ids = tuple(rowid for rowid, _ in sample)
    if session in ids:
        lines = {rowid: (prompt_line(db, rowid) or "").split() for rowid in ids}
        template = shared_words(list(lines.values()))
        targets = [(rowid, old, lines[rowid]) for rowid, old in sample]
    else:
        key = (db.execute("PRAGMA database_list").fetchone()[2] + group, ids)
        if key not in _TEMPLATES:
            sampled = [(prompt_line(db, rowid) or "").split() for rowid in ids]
            if len(_TEMPLATES) > 64:
                _TEMPLATES.clear()
            _TEMPLATES[key] = (shared_words(sampled), sampled[0])
        template, first = _TEMPLATES[key]
        mine = (prompt_line(db, session) or "").split()
        template = min(template, shared_words([mine, first]))
        targets = [(session, title, mine)]
    for rowid, old, own_words in targets:
        new = distinct(own_words, template, title)
        if new != old:
            db.execute("UPDATE sessions SET title = ? WHERE id = ?", (new, rowid))
