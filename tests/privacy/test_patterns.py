"""User patterns that could backtrack for ever are refused, by name, before they run."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from clihelp import call
from recall.privacy.pattern_check import why_unsafe

CATASTROPHIC = ["(a+)+$", "(?:ab|a)*c", r"(\w*\s?)*x", r"(\w)\1", "(x+x+)+y", "((a|b)c+)*d"]
FINE = [
    r"acme_[A-Za-z0-9]{32}",
    r"token=([A-Za-z0-9]{20,})",
    r"password:\s*(\S+)",
    "(foo|bar)-[0-9]+",
    r"(?:ab|cd){1,3}",
    "(a|b)+",  # single characters: a character class, one way to match
]


@pytest.mark.parametrize("pattern", CATASTROPHIC)
def test_shapes_that_backtrack_exponentially_are_refused(pattern: str) -> None:
    assert why_unsafe(pattern)


@pytest.mark.parametrize("pattern", FINE)
def test_ordinary_secret_patterns_are_allowed(pattern: str) -> None:
    assert why_unsafe(pattern) is None


def _config(home: Path, pattern: str) -> None:
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.toml").write_text(
        f'[[redact.extra]]\nname = "acme"\npattern = {json.dumps(pattern)}\n', encoding="utf-8"
    )
    from recall import config

    config._load.cache_clear()


def test_sync_names_the_refused_pattern_and_stops_at_once(
    recall_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _config(recall_home, "(a+)+$")
    code, _, err = call(capsys, "sync", "--no-embed")
    assert code == 2
    assert "'acme' pattern '(a+)+$' refused" in err and len(err.strip().splitlines()) == 1


def _hook(recall_home: Path, tmp_path: Path, content: str) -> subprocess.Popen[bytes]:
    """A hook ingesting a one-turn transcript whose text is `content`, started and fed."""
    transcript = tmp_path / "s.jsonl"
    record = {
        "type": "user",
        "uuid": "u1",
        "sessionId": "s",
        "message": {"role": "user", "content": content},
    }
    transcript.write_text(json.dumps(record) + "\n")
    payload = json.dumps({"session_id": "s", "transcript_path": str(transcript)})
    hook = subprocess.Popen(
        [sys.executable, "-m", "recall", "ingest", "--event", "agent-stop", "--agent", "claude"],
        stdin=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env={**os.environ, "RECALL_HOME": str(recall_home)},
    )
    assert hook.stdin is not None
    hook.stdin.write(payload.encode())
    hook.stdin.close()
    return hook


def test_a_hook_with_a_catastrophic_pattern_never_holds_the_lock(
    recall_home: Path, tmp_path: Path
) -> None:
    """The hook meets `(a+)+$` and a turn of 'aaaa…!', yet another writer gets the lock
    at once: the pattern is refused before any text is read, let alone the lock taken."""
    _config(recall_home, "(a+)+$")
    start = time.monotonic()
    with _hook(recall_home, tmp_path, "a" * 5000 + "!") as hook:
        from recall.store import open_writer  # another writer, while the hook runs

        with open_writer() as store, store.transaction():
            waited = time.monotonic() - start
        assert hook.wait(timeout=60) == 0
    assert waited < 5.0
    log = (recall_home / "recall.log").read_text(encoding="utf-8")
    assert "refused" in log


def test_a_slow_pattern_that_is_allowed_still_never_holds_the_lock(
    recall_home: Path, tmp_path: Path
) -> None:
    """Polynomial patterns pass the check (`(?:a.*){3}z` on 'aaaa…'); redaction runs
    before the lock is taken, so however long it runs, other writers never wait on it."""
    _config(recall_home, "(?:a.*){3}z")
    with _hook(recall_home, tmp_path, "a" * 20000) as hook:
        time.sleep(1.5)  # the hook is deep in its pattern by now
        try:
            assert hook.poll() is None, "the pattern should still be running"
            from recall.store import open_writer

            start = time.monotonic()
            with open_writer() as store, store.transaction():
                waited = time.monotonic() - start
        finally:
            hook.kill()
    assert waited < 2.0, f"a writer waited {waited:.1f} s on a hook's pattern"


LOCK_BOUND_S = 1.0
"""The longest another writer may wait on a rescan: one batch of writes, measured at ~150 ms
at most (docs/privacy.md), with room for a loaded machine."""


def test_rescan_runs_a_slow_pattern_without_holding_the_lock(
    recall_home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Titles of 150 `a`s under `(?:a.*){3}z` (allowed: polynomial, ~1 s each): another
    writer takes the lock over and over while the rescan runs, and never waits long."""
    import sqlite3

    src = tmp_path / "chats.jsonl"
    rows = [{"session": f"s{i}", "role": "user", "text": f"note {i}"} for i in range(8)]
    src.write_text("".join(json.dumps(r) + "\n" for r in rows))
    assert call(capsys, "ingest", "--format", "jsonl", str(src))[0] == 0
    db = sqlite3.connect(recall_home / "recall.db")
    with db:  # titles an older recall stored before the pattern was configured
        db.execute("UPDATE sessions SET title = ?", ("a" * 150,))
    db.close()
    _config(recall_home, "(?:a.*){3}z")
    waits = []
    from recall.store import open_writer

    with (
        subprocess.Popen(
            [sys.executable, "-m", "recall", "redact", "--rescan", "--json"],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        ) as rescan,
        open_writer() as store,
    ):
        while rescan.poll() is None:
            start = time.monotonic()
            with store.transaction():
                waits.append(time.monotonic() - start)
            time.sleep(0.05)
        out, err = rescan.communicate()
    assert rescan.returncode == 0, err
    assert json.loads(out)["sessions_changed"] == 0  # nothing to redact: only slow
    print(f"{len(waits)} writes during the rescan; the longest wait {max(waits) * 1000:.0f} ms")
    assert max(waits) < LOCK_BOUND_S, f"a writer waited {max(waits):.2f} s on a rescan"
    assert len(waits) >= 20, "the rescan should have run for seconds"
