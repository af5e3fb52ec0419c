"""A session forgotten while its digest is under way is never written into a digest.

`forget` takes back the digests a session fed, but a digest in flight had not
recorded its sessions yet (the summariser was still answering), or had recorded
them and not yet written its files or queued its facts. Each case wrote the
forgotten session's text into the daily log or the review queue, where `forget`
had already looked.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from clihelp import call, run
from digesthelp import DAY, chat_file, configure

SECRET = "quokka"
KEPT = "pelican"


def _ingest(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    for name, word in (("s1", KEPT), ("s2", SECRET)):
        turns = [("user", f"about the {word}: fact: the {word} nests at dawn"), ("assistant", "ok")]
        src = chat_file(tmp_path, name, turns)
        assert call(capsys, "ingest", "--format", "jsonl", str(src))[0] == 0


def _queued(recall_home: Path) -> list[str]:
    with sqlite3.connect(recall_home / "recall.db") as db:
        return [r[0] for r in db.execute("SELECT text FROM digest_facts")]


def _forget_s2() -> None:
    done = run("forget", "s2")
    assert done.returncode == 0, done.stderr


@pytest.mark.parametrize("when", ["summarising", "before_files", "before_marks"])
def test_a_session_forgotten_mid_digest_is_not_written(
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    recall_home: Path,
    monkeypatch: pytest.MonkeyPatch,
    when: str,
) -> None:
    from recall.memory import daily

    configure(tmp_path, recall_home)
    _ingest(capsys, tmp_path)
    saved = daily.finish, daily.apply_marks
    if when == "summarising":
        monkeypatch.setenv("STUB_FORGET", "s2")
    else:
        # before `finish` takes the write lock, or between its files and its marks
        target = "finish" if when == "before_files" else "apply_marks"
        real = getattr(daily, target)

        def forget_first(*args: object, **kwargs: object) -> object:
            _forget_s2()
            return real(*args, **kwargs)

        monkeypatch.setattr(daily, target, forget_first)
    code, _, err = call(capsys, "digest", "--date", DAY)
    assert "forgotten" in err, err
    assert code == (1 if when == "summarising" else 0)
    log = recall_home / "daily" / f"{DAY}.md"
    assert not log.exists() or SECRET not in log.read_text()
    assert all(SECRET not in f for f in _queued(recall_home))
    assert json.loads(call(capsys, "search", SECRET, "--json")[1])["found"] == 0

    monkeypatch.delenv("STUB_FORGET", raising=False)
    monkeypatch.setattr(daily, "finish", saved[0])
    monkeypatch.setattr(daily, "apply_marks", saved[1])
    code, out, err = call(capsys, "digest", "--date", DAY, "--json")
    assert code == 0, err
    assert json.loads(out)["messages"] == 2  # the other session, summarised now
    text = log.read_text()
    assert text.count(f"about the {KEPT}") == 1 and SECRET not in text
    assert _queued(recall_home) == [f"the {KEPT} nests at dawn"]
