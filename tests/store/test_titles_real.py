"""Titles on every shared real fixture: each session's title is its own.

Every transcript of ../shared/fixtures is indexed together, as one computer's
agents would be, and each title is checked against its source: a user's or
agent's title line in the session's own file, a summary whose leaf is one of
the session's messages, or its first prompt. Expected facts are read from the
files, never from recall's output.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from clihelp import call
from recall.textutil import one_line
from recall.types import TITLE_AGENT, TITLE_FIRST_PROMPT, TITLE_SUMMARY, TITLE_USER_GIVEN

OWN_TITLE_KEYS = {
    "claude": {TITLE_USER_GIVEN: "customTitle", TITLE_AGENT: "aiTitle"},
    "codex": {TITLE_AGENT: "thread_name"},
    "gemini": {TITLE_AGENT: "summary"},
}


def _values(doc: Any, key: str) -> set[str]:
    """Every string under `key` anywhere in a JSON value."""
    found: set[str] = set()
    if isinstance(doc, dict):
        for k, v in doc.items():
            if k == key and isinstance(v, str):
                found.add(v.strip())
            found |= _values(v, key)
    elif isinstance(doc, list):
        for v in doc:
            found |= _values(v, key)
    return found


def own_titles(path: Path, key: str) -> set[str]:
    """The `key` titles a transcript file (JSONL, or one JSON document) holds."""
    raw = path.read_bytes()
    docs: list[Any] = []
    for line in [raw] if path.suffix == ".json" else raw.splitlines():
        try:
            docs.append(json.loads(line))
        except ValueError:
            continue
    return set().union(*(_values(d, key) for d in docs)) if docs else set()


@pytest.fixture
def index(transcripts: Path, recall_home: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    for agent in OWN_TITLE_KEYS:
        code, _, err = call(capsys, "ingest", "--agent", agent, str(transcripts / agent))
        assert code == 0, err
    return recall_home / "recall.db"


def rows(db_path: Path) -> list[tuple[Any, ...]]:
    with sqlite3.connect(f"file:{db_path}?mode=ro", uri=True) as db:
        return db.execute(
            "SELECT id, session_id, agent, title, title_rank, transcript_path FROM sessions"
        ).fetchall()


def test_every_title_comes_from_its_own_session(index: Path) -> None:
    found = rows(index)
    assert len(found) > 15
    with sqlite3.connect(f"file:{index}?mode=ro", uri=True) as db:
        for rowid, sid, agent, title, rank, path in found:
            users = [
                r[0]
                for r in db.execute(
                    "SELECT text FROM messages WHERE session = ? AND role = 'user'"
                    " ORDER BY position",
                    (rowid,),
                )
            ]
            if rank in (TITLE_USER_GIVEN, TITLE_AGENT):
                assert title in own_titles(Path(path), OWN_TITLE_KEYS[agent][rank]), sid
            elif rank == TITLE_SUMMARY:
                leaves = db.execute(
                    "SELECT u.leaf FROM summaries u JOIN messages m ON m.key = u.leaf"
                    " WHERE m.session = ? AND u.text = ?",
                    (rowid, title),
                ).fetchall()
                assert leaves, f"{sid}: summary title {title!r} names none of its messages"
            elif rank == TITLE_FIRST_PROMPT:
                assert title == next(t for t in map(one_line, users) if t), sid
            else:
                assert title is None and not any(map(one_line, users)), sid


def test_known_fixture_titles(index: Path) -> None:
    by_id = {r[1]: (r[3], r[4]) for r in rows(index)}
    # claude-code-log: the summary's leaf is a message of the same file.
    assert by_id["edge_cases"][0].startswith("Tested various edge cases")
    assert by_id["edge_cases"][1] == TITLE_SUMMARY
    assert by_id["test_session"][0].startswith("User learned about Python decorators")
    # claude-code-transcripts: the summary names a leaf no file holds; its first prompt.
    assert by_id["test-session-id"] == ("Create a hello world function", TITLE_FIRST_PROMPT)
    # agent-sessions: custom-title (from /rename) beats the ai-title line.
    assert by_id["ses_stage0_small"] == ("Stage0 small fixture", TITLE_USER_GIVEN)
    # the markdown of edge_cases' prompt would be a title on one readable line
    assert "**" not in str(by_id["edge_cases"][0])
    titled_by_summary = [t for t, rank in by_id.values() if rank == TITLE_SUMMARY]
    assert len(titled_by_summary) == len(set(titled_by_summary)) == 2
