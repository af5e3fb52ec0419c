"""What the team index's tests share besides their fixtures (`tests/team/conftest.py`): a
person's view of one fresh database, and an import file. A module of its own, not the
conftest: `from conftest import ...` finds whichever folder's conftest loaded first."""

from __future__ import annotations

import json
from pathlib import Path

import pytest


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
