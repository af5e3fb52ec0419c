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
import json
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

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


class Team:
    """One fresh database of the cluster, and how each person's computer reaches it."""

    def __init__(
        self, cluster: object, db: str, root: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        self.cluster = cluster
        self.db = db
        self.root = root
        self.monkeypatch = monkeypatch
        monkeypatch.setenv("TEAM_PASSWORD", cluster.password)  # type: ignore[attr-defined]

    def dsn(self, user: str) -> str:
        return self.cluster.dsn(user, self.db)  # type: ignore[attr-defined,no-any-return]

    def home(self, user: str, computer: str, **team: object) -> Path:
        """Become `user` on `computer`: its own RECALL_HOME, with `[team]` set to `team`."""
        home = self.root / f"{user}-{computer}"
        home.mkdir(exist_ok=True)
        lines = ["[team]", f'dsn = "{self.dsn(user)}"', 'password_env = "TEAM_PASSWORD"']
        lines += [f"{k} = {json.dumps(v)}" for k, v in team.items()]
        (home / "config.toml").write_text("\n".join(lines) + "\n", encoding="utf-8")
        self.monkeypatch.setenv("RECALL_HOME", str(home))
        self.monkeypatch.setenv("RECALL_COMPUTER", computer)
        return home

    def connect(self, user: str = "recall_admin"):  # type: ignore[no-untyped-def]
        return self.cluster.connect(user, db=self.db)  # type: ignore[attr-defined]


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


def write_import(path: Path, sessions: dict[str, tuple[str, list[tuple[str, str]]]]) -> Path:
    """A JSONL import file: session id → (project, [(role, text)])."""
    lines = []
    for n, (sid, (project, turns)) in enumerate(sessions.items()):
        for i, (role, text) in enumerate(turns):
            stamp = f"2026-03-{n + 1:02d}T10:00:{i:02d}+00:00"
            rec = {
                "session": sid,
                "role": role,
                "text": text,
                "timestamp": stamp,
                "project": project,
            }
            lines.append(json.dumps(rec))
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path
