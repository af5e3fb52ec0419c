"""Migrations never change: each applies only its own frozen rules, never live code.

A migration runs when a user upgrades, which may be long after it landed; if
it called a live rule (the title rule, `textutil.one_line`) the same upgrade
would do different things in different releases.
"""

from __future__ import annotations

import ast
import inspect
import sqlite3
import sys
import types
from collections.abc import Iterator
from pathlib import Path

import pytest

from recall import textutil
from recall.store import migration_rules, migrations

pytestmark = pytest.mark.core_free  # no core: run once (scripts/test.sh)

FROZEN = {migrations.__name__, migration_rules.__name__}


def _names(code: types.CodeType) -> Iterator[str]:
    yield from code.co_names
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            yield from _names(const)


def _reached(func: types.FunctionType) -> Iterator[object]:
    """Every global object `func` refers to, and those its callees refer to."""
    seen: set[int] = set()
    todo = [func]
    while todo:
        current = todo.pop()
        if id(current) in seen:
            continue
        seen.add(id(current))
        for name in _names(current.__code__):
            if name not in current.__globals__:
                continue  # an attribute or a builtin
            found = current.__globals__[name]
            yield found
            if isinstance(found, types.FunctionType):
                todo.append(found)


def _owner(found: object) -> str:
    if isinstance(found, types.ModuleType):
        return found.__name__
    return getattr(found, "__module__", None) or ""


@pytest.mark.parametrize("migration", migrations.MIGRATIONS, ids=lambda m: m.__name__)
def test_a_migration_reaches_no_live_recall_code(migration: types.FunctionType) -> None:
    live = sorted(
        f"{_owner(found)}.{getattr(found, '__name__', found)}"
        for found in _reached(migration)
        if _owner(found).startswith("recall") and _owner(found) not in FROZEN
    )
    assert live == [], f"{migration.__name__} calls live code; freeze a copy in migration_rules"


@pytest.mark.parametrize("module", [migrations, migration_rules], ids=lambda m: m.__name__)
def test_the_migration_modules_import_only_the_standard_library_and_each_other(
    module: types.ModuleType,
) -> None:
    tree = ast.parse(Path(inspect.getfile(module)).read_text())
    imported: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            imported.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            imported.add(node.module)
    outside = {
        name
        for name in imported
        if name not in FROZEN and name.split(".")[0] not in sys.stdlib_module_names
    }
    assert outside == set()


def _pre_m006(path: Path) -> sqlite3.Connection:
    db = sqlite3.connect(path, isolation_level=None)
    for migration in migrations.MIGRATIONS[
        : migrations.MIGRATIONS.index(migrations.m006_summaries)
    ]:
        migration(db)
    return db


PROMPTS = {  # first user message -> the title m006 gives it, for good
    "## Bug report\n```python\nx = 1\n```": "Bug report x = 1",
    "> fix the **login** [page](https://x.test/a) and `run()` it": "fix the login page and run() it",
    "\x1b]52;c;aGk=\x07tidy   the\ttests": "tidy the tests",
    "word " * 30: ("word " * 15).strip() + "…",
}


def test_m006_titles_by_its_own_rule_even_when_the_live_rule_changes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    db = _pre_m006(tmp_path / "old.db")
    sessions = {}
    for n, prompt in enumerate(PROMPTS):
        rowid = db.execute(
            "INSERT INTO sessions(session_id, agent, computer, title, title_rank, updated_at)"
            " VALUES (?, 'claude', 'box', 'stale', 1, 0)",
            (f"s{n}",),
        ).lastrowid
        db.execute(
            "INSERT INTO messages(session, position, key, role, text) VALUES (?, 0, 'k', 'user', ?)",
            (rowid, prompt),
        )
        sessions[rowid] = PROMPTS[prompt]
    monkeypatch.setattr(textutil, "one_line", lambda text, limit=80: "changed later")
    monkeypatch.setattr(textutil, "shorten", lambda text, limit=80: "changed later")
    migrations.m006_summaries(db)
    got = dict(db.execute("SELECT id, title FROM sessions").fetchall())
    assert got == sessions
