"""A forgotten session does not live on in digests (issue 21, item 5): after `forget`,
`sync` and `redact --rescan`, nothing of it is found through search, MCP, the peer API
or context, while the other sessions of its digests are summarised again."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from clihelp import call, run
from daemons import body_json, get, start
from digesthelp import DAY, chat_file, configure
from mcphelp import SERVER, server_env

SECRET = "quokka"
KEPT = "pelican"


def _ingest(capsys: pytest.CaptureFixture[str], tmp_path: Path, name: str, turns: list) -> None:
    src = chat_file(tmp_path, name, turns)
    assert call(capsys, "ingest", "--format", "jsonl", str(src))[0] == 0


def _digest(capsys: pytest.CaptureFixture[str]) -> dict:
    code, out, err = call(capsys, "digest", "--date", DAY, "--json")
    assert code == 0, err
    return dict(json.loads(out))


def _mcp_search(query: str) -> str:
    lines = [
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": "2024-11-05",
                "capabilities": {},
                "clientInfo": {"name": "t", "version": "0"},
            },
        },
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {
            "jsonrpc": "2.0",
            "id": 2,
            "method": "tools/call",
            "params": {"name": "search_history", "arguments": {"query": query, "scope": "all"}},
        },
    ]
    done = subprocess.run(
        SERVER,
        input="".join(json.dumps(x) + "\n" for x in lines).encode(),
        capture_output=True,
        env=server_env(),
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    reply = json.loads(done.stdout.splitlines()[-1])
    assert reply["id"] == 2 and "error" not in reply, reply
    return json.dumps(json.loads(reply["result"]["content"][0]["text"])["results"])


def _context(hook_payloads: Path, prompt: str) -> str:
    payload = json.loads((hook_payloads / "claude-user-prompt-submit.json").read_text())
    payload["prompt"] = prompt
    done = run(
        "context",
        "--event",
        "prompt-submit",
        "--format",
        "text",
        stdin=json.dumps(payload).encode(),
    )
    assert done.returncode == 0
    return done.stdout.decode()


def _peer_search(word: str) -> str:
    daemon = start(Path(os.environ["RECALL_HOME"]), "testbox", Path.home())
    try:
        status, reply = get(daemon.port, f"/api/mirrors/search?q={word}&scope=all", daemon.token)
        assert status == 200
        return json.dumps(body_json(reply)["results"])  # type: ignore[index]
    finally:
        daemon.stop()


def _everywhere(capsys: pytest.CaptureFixture[str], hook_payloads: Path, word: str) -> dict:
    """What CLI search, MCP search, the peer API and context find of `word`."""
    code, out, _ = call(capsys, "search", word, "--scope", "all", "--json")
    assert code == 0
    return {
        "cli": json.dumps(json.loads(out)["results"]),
        "mcp": _mcp_search(word),
        "peer": _peer_search(word),
        "context": _context(hook_payloads, f"what about the {word} plan?"),
    }


def test_forget_takes_back_the_digests_made_from_a_session(
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    recall_home: Path,
    hook_payloads: Path,
) -> None:
    configure(tmp_path, recall_home)
    _ingest(
        capsys,
        tmp_path,
        "s1",
        [("user", f"the {SECRET} launch code is tangerine; fact: {SECRET}s ship on fridays")],
    )
    _ingest(capsys, tmp_path, "s2", [("user", f"fact: the {KEPT} rollout waits for QA")])
    assert _digest(capsys)["sessions"] == 2  # digest 1: both sessions
    assert call(capsys, "memory", "review", "accept", "all")[0] == 0
    _ingest(
        capsys,
        tmp_path,
        "s1",
        [
            ("user", f"the {SECRET} launch code is tangerine; fact: {SECRET}s ship on fridays"),
            ("user", f"second thoughts on the {SECRET}; fact: {SECRET} reviews are weekly"),
        ],
    )
    assert _digest(capsys)["sessions"] == 1  # digest 2: s1 only, its fact left queued
    log = recall_home / "daily" / f"{DAY}.md"
    memory = recall_home / "MEMORY.md"
    assert SECRET in log.read_text() and SECRET in memory.read_text()
    before = _everywhere(capsys, hook_payloads, SECRET)
    assert all(SECRET in text for text in before.values()), before

    code, out, err = call(capsys, "forget", "s1", "--dry-run")
    assert code == 0 and "would remove 2 digest(s) made from it" in out
    assert SECRET in log.read_text()  # a dry run changes nothing
    code, out, err = call(capsys, "forget", "s1")
    assert code == 0, err
    assert f"removed 2 digest(s) made from it, of {DAY} (2 files rewritten" in out
    assert f"1 other session(s) in them will be summarised again: recall digest --date {DAY}" in out
    assert call(capsys, "sync", "-q", "--no-embed")[0] == 0
    assert call(capsys, "redact", "--rescan")[0] == 0

    assert not log.exists() or SECRET not in log.read_text()
    assert SECRET not in memory.read_text() and KEPT not in memory.read_text()
    queued = json.loads(call(capsys, "memory", "review", "--json")[1])["proposed"]
    assert queued == []
    after = _everywhere(capsys, hook_payloads, SECRET)
    assert not any(SECRET in text for text in after.values()), after
    for name in ("recall.db", "recall.db-wal"):
        path = recall_home / name
        assert not path.exists() or SECRET.encode() not in path.read_bytes()

    again = _digest(capsys)  # the other session is summarised again, and only it
    assert again["sessions"] == 1 and again["proposed"] == 1
    assert KEPT in log.read_text() and SECRET not in log.read_text()


def test_forget_with_no_digest_says_nothing_about_digests(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, recall_home: Path
) -> None:
    configure(tmp_path, recall_home)
    _ingest(capsys, tmp_path, "s1", [("user", "a note about gannets")])
    code, out, _ = call(capsys, "forget", "s1")
    assert code == 0 and "digest" not in out


def test_forget_cuts_the_session_out_of_the_daily_log(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, recall_home: Path
) -> None:
    configure(tmp_path, recall_home)
    _ingest(capsys, tmp_path, "s1", [("user", f"the {SECRET} plan")])
    _ingest(capsys, tmp_path, "s2", [("user", f"the {KEPT} plan")])
    _digest(capsys)
    assert call(capsys, "forget", "s1")[0] == 0
    log = recall_home / "daily" / f"{DAY}.md"
    assert not log.exists() or SECRET not in log.read_text()
    found = json.loads(call(capsys, "search", SECRET, "--scope", "daily", "--json")[1])
    assert found["results"] == []


def test_later_digests_of_the_other_sessions_are_redone_once(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, recall_home: Path
) -> None:
    configure(tmp_path, recall_home)
    s2 = [("user", "heron line one")]
    _ingest(capsys, tmp_path, "s1", [("user", f"the {SECRET} plan")])
    _ingest(capsys, tmp_path, "s2", s2)
    _digest(capsys)  # digest 1: s1, s2
    s2 += [("user", "heron line two")]
    _ingest(capsys, tmp_path, "s2", s2)
    _ingest(capsys, tmp_path, "s3", [("user", "ibis line one")])
    _digest(capsys)  # digest 2: s2 (line two), s3
    _ingest(capsys, tmp_path, "s3", [("user", "ibis line one"), ("user", "ibis line two")])
    code, out, _ = call(capsys, "forget", "s1")
    assert code == 0 and "removed 2 digest(s)" in out  # digest 2 goes too: s2 is redone
    assert "2 other session(s)" in out
    while _digest(capsys)["messages"]:
        pass
    log = (recall_home / "daily" / f"{DAY}.md").read_text()
    for line in ("heron line one", "heron line two", "ibis line one", "ibis line two"):
        assert log.count(line) == 1, (line, log)
    assert SECRET not in log


def test_a_session_the_ignore_marker_removed_leaves_its_digests_at_the_next_rescan(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, recall_home: Path
) -> None:
    configure(tmp_path, recall_home)
    turns = [("user", f"the {SECRET} plan")]
    _ingest(capsys, tmp_path, "s1", turns)
    _ingest(capsys, tmp_path, "s2", [("user", f"the {KEPT} plan")])
    _digest(capsys)
    _ingest(capsys, tmp_path, "s1", [*turns, ("user", "recall:ignore this whole session")])
    code, out, _ = call(capsys, "redact", "--rescan")
    assert code == 0 and "removed 1 digest(s) made from forgotten sessions" in out
    log = recall_home / "daily" / f"{DAY}.md"
    assert not log.exists() or SECRET not in log.read_text()
    _digest(capsys)  # the other session is summarised again
    assert KEPT in log.read_text() and SECRET not in log.read_text()


def test_a_daily_log_forget_cannot_rewrite_is_finished_by_the_next_rescan(
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    recall_home: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from recall.memory import sections

    configure(tmp_path, recall_home)
    _ingest(capsys, tmp_path, "s1", [("user", f"the {SECRET} plan")])
    _ingest(capsys, tmp_path, "s2", [("user", f"the {KEPT} plan")])
    _digest(capsys)

    def refuse(target: Path, text: str) -> None:
        raise PermissionError(13, "Permission denied")

    with monkeypatch.context() as m:
        m.setattr(sections, "_replace", refuse)
        code, out, err = call(capsys, "forget", "s1")
    assert code == 0 and "forgot 1 sessions" in out
    assert "Permission denied" in err and "run `recall redact --rescan`" in err
    code, out, _ = call(capsys, "redact", "--rescan")
    assert code == 0 and "removed 1 digest(s)" in out
    log = recall_home / "daily" / f"{DAY}.md"
    assert not log.exists() or SECRET not in log.read_text()
    found = json.loads(call(capsys, "search", SECRET, "--scope", "all", "--json")[1])
    assert found["results"] == []
