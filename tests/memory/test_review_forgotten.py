"""`recall memory review accept` never writes a fact drawn from a forgotten session.

A session the ignore marker removes is tombstoned at once by the hook, but its
digests are taken back only at the next `digest` or `redact --rescan`; meanwhile
its facts still waited in the queue, and accepting them put its text into
MEMORY.md, which every agent session is shown. And a `forget` between the
queue's read and MEMORY.md's write was not seen at all.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from clihelp import call, run
from digesthelp import DAY, chat_file, configure

SECRET = "quokka"
KEPT = "pelican"


def _turns(word: str) -> list[tuple[str, str]]:
    return [("user", f"about the {word}: fact: the {word} nests at dawn"), ("assistant", "ok")]


def _setup(capsys: pytest.CaptureFixture[str], tmp_path: Path, recall_home: Path) -> None:
    """Two digests, one of each session, each with one fact queued."""
    configure(tmp_path, recall_home)
    for name, word in (("s1", KEPT), ("s2", SECRET)):
        src = chat_file(tmp_path, name, _turns(word))
        assert call(capsys, "ingest", "--format", "jsonl", str(src))[0] == 0
        code, out, err = call(capsys, "digest", "--date", DAY)
        assert code == 0 and "1 proposed fact(s)" in out, err


def _queue(capsys: pytest.CaptureFixture[str]) -> list[str]:
    code, out, err = call(capsys, "memory", "review", "--json")
    assert code == 0, err
    return [p["text"] for p in json.loads(out)["proposed"]]


def test_a_fact_of_a_session_the_marker_removed_is_never_accepted(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, recall_home: Path
) -> None:
    _setup(capsys, tmp_path, recall_home)
    marked = chat_file(tmp_path, "s2", [*_turns(SECRET), ("user", "recall:ignore this one")])
    assert call(capsys, "ingest", "--format", "jsonl", str(marked))[0] == 0  # tombstoned
    assert _queue(capsys) == [f"the {KEPT} nests at dawn"]
    code, out, err = call(capsys, "memory", "review", "accept", "all")
    assert code == 0 and "accepted 1 fact(s)" in out, err
    memory = (recall_home / "MEMORY.md").read_text()
    assert KEPT in memory and SECRET not in memory


def test_a_forget_between_reading_the_queue_and_writing_is_seen(
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    recall_home: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from recall.memory import facts

    _setup(capsys, tmp_path, recall_home)
    real = facts._chosen

    def then_forget(*args: object) -> object:
        found = real(*args)  # type: ignore[arg-type]
        done = run("forget", "s2")
        assert done.returncode == 0, done.stderr
        return found

    monkeypatch.setattr(facts, "_chosen", then_forget)
    code, out, err = call(capsys, "memory", "review", "accept", "all")
    assert code == 0 and "accepted 1 fact(s)" in out, err
    memory = (recall_home / "MEMORY.md").read_text()
    assert KEPT in memory and SECRET not in memory
    assert _queue(capsys) == []
