"""User text inside FTS5 and LIKE patterns matches itself, whatever it holds."""

from __future__ import annotations

import sqlite3

import pytest

from recall.sqltext import fts_string, like_literal

pytestmark = pytest.mark.core_free

TEXTS = ['say "hi" OR NOT (x) AND NEAR', "100%_done", "back\\slash_%", "col:umn * ^start"]


@pytest.fixture
def db() -> sqlite3.Connection:
    conn = sqlite3.connect(":memory:")
    conn.execute("CREATE VIRTUAL TABLE t USING fts5(text)")
    conn.execute("CREATE TABLE plain(text)")
    for text in [*TEXTS, "100 done", "backslash", "say hi"]:
        conn.execute("INSERT INTO t VALUES (?)", (text,))
        conn.execute("INSERT INTO plain VALUES (?)", (text,))
    return conn


@pytest.mark.parametrize("text", TEXTS)
def test_an_fts_string_is_never_syntax(db: sqlite3.Connection, text: str) -> None:
    rows = db.execute("SELECT text FROM t WHERE t MATCH ?", (fts_string(text),)).fetchall()
    assert (text,) in rows


@pytest.mark.parametrize("text", TEXTS)
def test_a_like_literal_matches_only_itself(db: sqlite3.Connection, text: str) -> None:
    rows = db.execute(
        "SELECT text FROM plain WHERE text LIKE ? ESCAPE '\\'", (like_literal(text),)
    ).fetchall()
    assert rows == [(text,)]
