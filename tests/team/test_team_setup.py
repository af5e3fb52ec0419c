"""`[team]` settings and what goes wrong: one clear line and the right exit code each time,
a password never in config.toml, a schema this recall does not know refused, and an index
that never mixes two models' vectors."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from clihelp import call
from recall.config import forget_loaded
from teamhelp import Team, write_import

pytestmark = pytest.mark.team

ONE = {
    "s-1": ("/work/app", [("user", "tomato irrigation schedule"), ("assistant", "water at dawn")])
}


def _config(home: Path, text: str, monkeypatch: pytest.MonkeyPatch) -> None:
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.toml").write_text(text, encoding="utf-8")
    monkeypatch.setenv("RECALL_HOME", str(home))
    forget_loaded()  # as a new process would read it


def test_settings_that_cannot_work_are_one_line_each(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "h"
    code, _, err = call(capsys, "team", "push")
    assert code == 2 and "no team index is configured" in err
    _config(home, '[team]\ndsn = "postgresql://alice:hunter2@db/recall"\n', monkeypatch)
    code, _, err = call(capsys, "team", "status")
    assert code == 2 and "holds a password" in err and "hunter2" not in err
    _config(home, '[team]\ndsn = "host=db user=alice"\npassword_env = "NOPE_PW"\n', monkeypatch)
    code, _, err = call(capsys, "team", "push")
    assert code == 2 and "NOPE_PW, which is not set" in err
    secret = tmp_path / "pw"
    secret.write_text("pw\n")
    secret.chmod(0o644)
    _config(home, f'[team]\ndsn = "host=db user=alice"\npassword_file = "{secret}"\n', monkeypatch)
    code, _, err = call(capsys, "team", "push")
    assert code == 2 and "readable by others: chmod 600" in err
    code, _, err = call(capsys, "search", "x", "--person", "bob")
    assert code == 2 and "a person narrows the team's index: ask the team too (--team)" in err
    code, _, err = call(capsys, "search", "x", "--team", "--person", " ")
    assert code == 2 and "a person is a database role's name, not blank" in err
    _config(home, '[team]\ndsn = "   "\n', monkeypatch)  # blank: no team, not the local socket
    code, _, err = call(capsys, "team", "status")
    assert code == 2 and "no team index is configured" in err
    _config(home, '[team]\ndsn = "host=db user=alice"\ntimeout = -1\n', monkeypatch)
    code, _, err = call(capsys, "team", "status")
    assert code == 2 and "timeout must be seconds between 0 and 3600, not -1" in err


def test_an_unreachable_team_costs_one_line_and_local_results_still_print(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import socket

    with socket.socket() as s:  # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    home = tmp_path / "h"
    _config(
        home, f'[team]\ndsn = "host=127.0.0.1 port={port} user=alice"\ntimeout = 2\n', monkeypatch
    )
    monkeypatch.setenv("RECALL_EMBEDDING", "none")
    path = write_import(tmp_path / "i.jsonl", ONE)
    assert call(capsys, "ingest", "--format", "jsonl", str(path))[0] == 0
    code, _, err = call(capsys, "team", "push")
    assert code == 1 and err.count("\n") == 1 and "cannot connect" in err
    code, out, err = call(capsys, "search", "tomato", "--team")
    assert code == 0 and "tomato irrigation" in out
    assert err.startswith("recall: team: cannot connect") and err.count("\n") == 1


def test_password_from_a_private_file_and_a_schema_made_by_init(
    team: Team, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    secret = tmp_path / "alice.pw"
    secret.write_text(os.environ["TEAM_PASSWORD"] + "\n")
    secret.chmod(0o600)
    monkeypatch.delenv("TEAM_PASSWORD")
    home = team.home("alice", "laptop", projects=["/work/*"])
    text = (
        (home / "config.toml")
        .read_text()
        .replace('password_env = "TEAM_PASSWORD"', f'password_file = "{secret}"')
    )
    (home / "config.toml").write_text(text)
    code, out, err = call(capsys, "team", "status", "--json")
    assert code == 0, err
    status = json.loads(out)
    assert status["person"] == "alice" and status["migrations"][-1] == "t003_row_security"
    # a database without the schema: push says how to make it
    team.cluster.sql("CREATE DATABASE empty_one", db="postgres")  # type: ignore[attr-defined]
    (home / "config.toml").write_text(text.replace(f"dbname={team.db}", "dbname=empty_one"))
    forget_loaded()
    code, _, err = call(capsys, "team", "push")
    assert code == 1 and "`recall team init` creates it" in err


@pytest.mark.needs_model
def test_the_team_index_never_mixes_models(
    team: Team, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    with team.connect() as admin:  # as if the team had chosen another model at init
        admin.execute("UPDATE recall.settings SET value = 'another-model' WHERE key = 'model'")
    team.home("alice", "laptop", projects=["/work/*"])
    path = write_import(tmp_path / "i.jsonl", ONE)
    for argv in (["ingest", "--format", "jsonl", str(path)], ["embed"]):
        assert call(capsys, *argv)[0] == 0
    code, _, err = call(capsys, "team", "push")
    assert code == 1 and "never mixes models" in err and "another-model" in err
    with team.connect() as admin:
        assert admin.execute("SELECT count(*) FROM recall.chunks").fetchone() == (0,)
    monkeypatch.setenv("RECALL_EMBEDDING", "none")  # text alone may go
    code, out, err = call(capsys, "team", "push", "--json")
    assert code == 0 and json.loads(out)["sessions"] == 1, err
    monkeypatch.delenv("RECALL_EMBEDDING")
    code, out, err = call(capsys, "search", "tomato", "--computer", "team", "--mode", "hybrid")
    assert code == 0 and "tomato" in out
    assert "semantic search is off: the team's index holds no vectors yet" in err


def test_search_with_team_but_no_team_configured_is_a_setting_to_fix(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """`--team` names the team's index as `--computer team` and `show --team` do: with no
    `[team]` at all the command stops (exit 2, one line) rather than answering locally."""
    _config(tmp_path / "h", "", monkeypatch)
    monkeypatch.setenv("RECALL_EMBEDDING", "none")
    path = write_import(tmp_path / "i.jsonl", ONE)
    assert call(capsys, "ingest", "--format", "jsonl", str(path))[0] == 0
    for extra in ([], ["--json"], ["--person", "bob"]):
        code, out, err = call(capsys, "search", "tomato", "--team", *extra)
        assert code == 2 and out == "" and err.count("\n") == 1
        assert err.startswith("recall: no team index is configured")


def test_push_with_an_empty_allow_list_says_why_nothing_went(
    team: Team, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """No `projects`: nothing may leave. The push still runs (it takes back what an earlier
    allow-list sent), and says in one line why nothing was sent."""
    monkeypatch.setenv("RECALL_EMBEDDING", "none")
    team.home("alice", "laptop")
    path = write_import(tmp_path / "i.jsonl", ONE)
    assert call(capsys, "ingest", "--format", "jsonl", str(path))[0] == 0
    code, out, err = call(capsys, "team", "push")
    assert code == 0 and "nothing to send" in out
    assert err == "recall: [team] projects is empty: no session on this computer may leave\n"
