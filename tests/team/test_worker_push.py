"""`recall serve`'s worker pushes to the team after each pass when configured, and a team
it cannot reach costs one log line and a state entry, never the pass."""

from __future__ import annotations

from pathlib import Path

import pytest

from clihelp import call
from teamhelp import Team, write_import

pytestmark = pytest.mark.team

ONE = {"w-1": ("/work/app", [("user", "the flaky deploy script"), ("assistant", "pin the image")])}


def test_the_worker_pushes_after_its_pass(
    team: Team, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from recall.serve.worker import Worker

    monkeypatch.setenv("RECALL_EMBEDDING", "none")
    team.home("alice", "laptop", projects=["/work/*"])
    assert (
        call(capsys, "ingest", "--format", "jsonl", str(write_import(tmp_path / "i.jsonl", ONE)))[0]
        == 0
    )
    logged: list[str] = []
    worker = Worker("laptop", 60, logged.append)
    assert worker.run_once()
    assert "last_team_push" in worker.state and "team_error" not in worker.state
    assert any("team index: 1 sessions sent" in line for line in logged), logged
    with team.connect() as admin:
        assert admin.execute("SELECT session_id FROM recall.sessions").fetchall() == [("w-1",)]
    team.home("alice", "laptop", projects=["/work/*"], push_after_sync=False)
    call(capsys, "forget", "w-1")  # deletes in the team itself, then the worker has nothing to do
    logged.clear()
    assert worker.run_once() and not any("team" in line for line in logged)


def test_a_team_it_cannot_reach_is_one_log_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import socket

    from recall.serve.worker import Worker

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    home = tmp_path / "h"
    home.mkdir()
    (home / "config.toml").write_text(
        f'[team]\ndsn = "host=127.0.0.1 port={port} user=alice"\nprojects = ["/work/*"]\n'
        "timeout = 2\n"
    )
    monkeypatch.setenv("RECALL_HOME", str(home))
    monkeypatch.setenv("RECALL_EMBEDDING", "none")
    logged: list[str] = []
    worker = Worker("laptop", 60, logged.append)
    assert worker.run_once()
    assert "cannot connect" in worker.state["team_error"]
    assert [line for line in logged if "team" in line] == [f"worker: {worker.state['team_error']}"]
