"""The team index's tests: one real PostgreSQL (with pgvector and pg_trgm) per test session.

Started once (`pgcluster`, about two seconds), with two people's login roles,
`alice` and `bob`, members of the team's group role; each test gets a fresh
database. Without PostgreSQL or pgvector the tests fail, saying how to install
them (`bash scripts/install_postgres.sh`): deselect them with `-m "not team"`.
They skip only where scripts/test.sh found the install script cannot work on
the machine (no apt, or no PostgreSQL 15 in it), with its one-line reason.
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from teamhelp import Team

PEOPLE = ("alice", "bob")
_numbers = itertools.count()


@pytest.fixture(scope="session")
def cluster() -> Iterator[object]:
    unavailable = os.environ.get("RECALL_TEAM_TESTS_SKIP")
    if unavailable:  # set by scripts/test.sh only where the install script cannot work
        pytest.skip(unavailable)
    try:
        import psycopg  # noqa: F401
    except ImportError:
        pytest.fail("psycopg is not installed: pip install -e '.[dev]' (or '.[team]')")
    import pgcluster

    try:
        started = pgcluster.start()
    except pgcluster.Missing as exc:
        pytest.fail(f"the team index's tests need PostgreSQL with pgvector: {exc}")
    try:
        with started.connect(db="postgres") as conn:
            conn.execute("CREATE ROLE recall_member NOLOGIN")
            for name in PEOPLE:
                conn.execute(  # type: ignore[call-overload]
                    f"CREATE ROLE {name} LOGIN PASSWORD '{started.password}' IN ROLE recall_member"
                )
        yield started
    finally:
        started.stop()


@pytest.fixture
def team(cluster: object, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Team:
    """A fresh database, its schema created by `recall team init` as its owner."""
    from clihelp import main

    db = f"t{next(_numbers)}"
    cluster.sql(f"CREATE DATABASE {db}", db="postgres")  # type: ignore[attr-defined]
    made = Team(cluster, db, tmp_path, monkeypatch)
    made.home("recall_admin", "admin")
    from recall.team.jobs import local_model

    model = local_model() or "all-MiniLM-L6-v2-int8"  # a team without vectors yet
    assert main(["team", "init", "--model", model, "--dims", "384"]) == 0
    return made
