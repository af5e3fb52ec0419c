"""A Claude `uuid` is not global: keys are per session, copies appear once, forgotten stays gone."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from clihelp import call, call_json


def _line(uuid: str, session: str, text: str, parent: str | None = None) -> str:
    return json.dumps(
        {
            "type": "user",
            "uuid": uuid,
            "parentUuid": parent,
            "sessionId": session,
            "message": {"role": "user", "content": text},
        }
    )


def _write(folder: Path, session: str, *lines: str) -> None:
    (folder / f"{session}.jsonl").write_text("\n".join(lines) + "\n")


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    path = tmp_path / "user-home" / ".claude" / "projects" / "-work-app"
    path.mkdir(parents=True)
    return path


def _texts(capsys: pytest.CaptureFixture[str], session: str) -> list[str]:
    return [m["text"] for m in call_json(capsys, "show", session, "--json")["messages"]]


def test_two_sessions_sharing_a_uuid_with_other_text_keep_both_messages(
    folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _write(folder, "A", _line("same-uuid", "A", "the queue uses kafka"))
    _write(folder, "B", _line("same-uuid", "B", "the cache uses redis"))
    code, out, _ = call(capsys, "sync", "--no-embed")
    assert code == 0 and "Index: 2 sessions, 2 messages" in out
    assert _texts(capsys, "A") == ["the queue uses kafka"]
    assert _texts(capsys, "B") == ["the cache uses redis"]


def test_a_resumed_sessions_copied_history_appears_once(
    folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    first = _line("u1", "A", "pick a database for the ledger")
    _write(folder, "A", first)
    assert call(capsys, "sync", "--no-embed")[0] == 0
    # `claude --resume` wrote a new file that repeats the earlier line, then goes on
    _write(
        folder,
        "B",
        first.replace('"sessionId": "A"', '"sessionId": "B"'),
        _line("u2", "B", "postgres, with serializable transactions", parent="u1"),
    )
    code, out, _ = call(capsys, "sync", "--no-embed")
    assert code == 0 and "Index: 2 sessions, 2 messages" in out
    assert _texts(capsys, "B") == ["postgres, with serializable transactions"]


def test_a_forgotten_message_does_not_come_back_through_another_sessions_copy(
    folder: Path, recall_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    secret_plan = _line("u1", "A", "the acquisition of initech closes in march")
    _write(folder, "A", secret_plan)
    assert call(capsys, "sync", "--no-embed")[0] == 0
    _write(
        folder,
        "B",
        secret_plan.replace('"sessionId": "A"', '"sessionId": "B"'),
        _line("u2", "B", "draft the press release", parent="u1"),
    )
    assert call(capsys, "sync", "--no-embed")[0] == 0
    assert call(capsys, "forget", "A")[0] == 0
    assert call(capsys, "sync", "--no-embed", "--force")[0] == 0
    assert _texts(capsys, "B") == ["draft the press release"]
    code, _, _ = call(capsys, "search", "initech", "--mode", "keyword")
    assert code == 1
    db = b"".join(p.read_bytes() for p in recall_home.glob("recall.db*"))
    assert b"initech" not in db.lower()
