"""Privacy controls: `redact --rescan`, `forget`, the ignore marker and excluded projects."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from clihelp import call, call_json
from recall import config
from secretcorpus import (
    agent_files,
    claude_transcript,
    db_bytes,
    leaks,
    secrets,
    write_config,
    write_jsonl,
)

SECRETS = secrets()
CLAUDE_ID = "11111111-2222-4333-8444-555555555555"


@pytest.fixture(autouse=True)
def _fresh_config() -> None:
    config._load.cache_clear()


def ingest(capsys: pytest.CaptureFixture[str], agent: str, path: Path) -> None:
    code, _, err = call(capsys, "ingest", "--agent", agent, str(path))
    assert code == 0, err


def sessions(capsys: pytest.CaptureFixture[str]) -> int:
    return int(call_json(capsys, "status")["index"]["sessions"])


# --- redact --rescan ---------------------------------------------------------------


def test_rescan_removes_secrets_indexed_before_the_rules_applied(
    tmp_path: Path, recall_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write_config(recall_home, "[redact]\nenabled = false\n")
    files = agent_files(tmp_path / "agents", SECRETS)
    for agent, path in files.items():
        ingest(capsys, agent, path)
    assert leaks(db_bytes(recall_home), SECRETS) == [s.kind for s in SECRETS]

    write_config(recall_home, "")
    code, out, err = call(capsys, "redact", "--rescan")
    assert code == 0, err
    assert "FTS rebuilt" in out
    assert leaks(db_bytes(recall_home), SECRETS) == []
    wal = recall_home / "recall.db-wal"
    assert not wal.exists() or wal.stat().st_size == 0
    shown = call_json(capsys, "show", "0199aaaa")
    assert "[REDACTED:github-token]" in json.dumps(shown)
    assert call_json(capsys, "search", "REDACTED")["found"] == 3
    # a second rescan has nothing left to do
    report = call_json(capsys, "redact", "--rescan")
    assert report["messages_changed"] == 0 and report["messages_scanned"] > 0


def test_rescan_applies_a_pattern_added_to_the_config_later(
    tmp_path: Path, recall_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    token = "acme_live_" + "q7Xk2Lm9Pz4Rt8Vb"
    path = tmp_path / "p" / f"{CLAUDE_ID}.jsonl"
    item = secrets()[0]
    item.text = f"the acme code {token} works"
    claude_transcript(path, CLAUDE_ID, "/work/app", [item])
    ingest(capsys, "claude", path)
    assert token.lower().encode() in db_bytes(recall_home)

    write_config(
        recall_home,
        '[[redact.extra]]\nname = "acme-token"\npattern = "acme_live_[A-Za-z0-9]{16}"\n',
    )
    report = call_json(capsys, "redact", "--rescan")
    assert report["messages_changed"] == 2 and report["sessions_changed"] == 1
    assert token.lower().encode() not in db_bytes(recall_home)
    assert b"q7xk2lm9pz4rt8vb" not in db_bytes(recall_home)  # nor its FTS token
    assert "[REDACTED:acme-token]" in call_json(capsys, "show", "11111111")["title"]


def test_redact_filters_text_as_the_index_would_store_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    note = tmp_path / "note.txt"
    note.write_text("\n".join(s.text for s in SECRETS), encoding="utf-8")
    code, out, _ = call(capsys, "redact", str(note))
    assert code == 0 and leaks(out, SECRETS) == [] and out.count("[REDACTED:") >= 30
    assert call(capsys, "redact", str(tmp_path / "nope"))[0] == 1
    assert call(capsys, "redact", "--rescan", str(note))[0] == 2


def test_config_allow_list_disable_and_extra(
    recall_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from recall.privacy.redaction import current

    stripe = next(s for s in SECRETS if s.kind == "stripe-live").needle
    github = next(s for s in SECRETS if s.kind == "github-classic").needle
    write_config(
        recall_home,
        f'[redact]\nallow = ["{stripe}"]\ndisable = ["jwt"]\n'
        'allow_patterns = ["AKIA[A-Z0-9]{16}"]\n'
        '[[redact.extra]]\nname = "ticket-secret"\npattern = "TKS-([0-9]{6})"\n',
    )
    r = current()
    assert r.redact(f"k={stripe}") == f"k={stripe}"
    assert r.redact("AKIAABCDEFGHIJKLMNOP") == "AKIAABCDEFGHIJKLMNOP"
    jwt = next(s for s in SECRETS if s.kind == "jwt").needle
    assert r.redact(jwt) == jwt
    assert r.redact("code TKS-123456 now") == "code TKS-[REDACTED:ticket-secret] now"
    assert r.redact(github) == "[REDACTED:github-token]"


def test_bad_config_pattern_is_a_one_line_error(
    recall_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write_config(recall_home, '[[redact.extra]]\nname = "x"\npattern = "(unclosed"\n')
    code, _, err = call(capsys, "redact", "-")
    assert code == 2 and "bad pattern in [redact]" in err and len(err.strip().splitlines()) == 1


# --- forget ----------------------------------------------------------------------------


def _two_sessions(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> tuple[Path, Path]:
    a = tmp_path / "p" / "aaaaaaaa-0000-4000-8000-000000000001.jsonl"
    b = tmp_path / "p" / "bbbbbbbb-0000-4000-8000-000000000002.jsonl"
    one, two = secrets(1)[:1], secrets(2)[:1]
    one[0].text = "the zanzibarquokka migration plan"
    two[0].text = "the walrusfiddle cache plan"
    claude_transcript(a, a.stem, "/work/alpha", one)
    claude_transcript(b, b.stem, "/work/beta/api", two)
    ingest(capsys, "claude", a)
    ingest(capsys, "claude", b)
    return a, b


def test_forget_deletes_a_session_everywhere_and_for_good(
    tmp_path: Path, recall_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    a, _ = _two_sessions(tmp_path, capsys)
    assert b"zanzibarquokka" in db_bytes(recall_home)
    code, out, err = call(capsys, "forget", "aaaaaaaa")
    assert code == 0, err
    assert "forgot 1 sessions (2 messages)" in out
    assert b"zanzibarquokka" not in db_bytes(recall_home)
    assert call_json(capsys, "search", "zanzibarquokka")["found"] == 0
    assert call(capsys, "show", "aaaaaaaa")[0] == 1
    assert sessions(capsys) == 1
    # neither a re-read nor a hook brings it back
    ingest(capsys, "claude", a)
    assert call(capsys, "ingest", "--force", "--agent", "claude", str(a))[0] == 0
    assert sessions(capsys) == 1 and b"zanzibarquokka" not in db_bytes(recall_home)
    assert call(capsys, "forget", "aaaaaaaa")[0] == 1  # nothing left to forget


def test_forget_project_by_directory_or_glob(
    tmp_path: Path, recall_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _two_sessions(tmp_path, capsys)
    dry = call_json(capsys, "forget", "--project", "/work/beta", "--dry-run")
    assert dry["dry_run"] and dry["sessions"] == ["bbbbbbbb-0000-4000-8000-000000000002"]
    assert sessions(capsys) == 2
    code, out, _ = call(capsys, "forget", "--project", "/work/b*")
    assert code == 0 and "exclude_projects" in out
    assert sessions(capsys) == 1 and b"walrusfiddle" not in db_bytes(recall_home)
    assert call(capsys, "forget", "--project", "/nowhere")[0] == 1
    assert call(capsys, "forget")[0] == 2
    assert call(capsys, "forget", "x", "--project", "/work")[0] == 2


# --- ignore marker and excluded projects -------------------------------------------


def test_marker_keeps_a_session_out_and_deletes_it_if_indexed(
    tmp_path: Path, recall_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    a, _ = _two_sessions(tmp_path, capsys)
    lines = [json.loads(x) for x in a.read_text().splitlines()]
    turn = dict(
        lines[1], uuid="late-1", message={"role": "user", "content": "Recall:Ignore this one"}
    )
    write_jsonl(a, [*lines, turn])
    ingest(capsys, "claude", a)
    assert sessions(capsys) == 1 and b"zanzibarquokka" not in db_bytes(recall_home)
    # later turns of the marked session stay out too
    after = dict(
        lines[1], uuid="late-2", message={"role": "user", "content": "more zanzibarquokka"}
    )
    write_jsonl(a, [*lines, turn, after])
    ingest(capsys, "claude", a)
    assert sessions(capsys) == 1
    assert call_json(capsys, "search", "zanzibarquokka")["found"] == 0


def test_marker_in_an_assistant_message_does_not_count(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "p" / f"{CLAUDE_ID}.jsonl"
    item = secrets()[0]
    item.text = "write docs for recall:ignore"
    claude_transcript(path, CLAUDE_ID, "/w", [item])
    lines = [json.loads(x) for x in path.read_text().splitlines()]
    lines[1]["message"]["content"] = "write the docs"  # user no longer says it
    write_jsonl(path, lines)
    ingest(capsys, "claude", path)
    assert sessions(capsys) == 1


def test_excluded_projects_are_never_indexed(
    tmp_path: Path, recall_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write_config(recall_home, '[privacy]\nexclude_projects = ["/work/beta"]\n')
    _two_sessions(tmp_path, capsys)
    assert sessions(capsys) == 1  # /work/beta/api is below /work/beta
    assert b"walrusfiddle" not in db_bytes(recall_home)


def test_rescan_applies_new_exclusions(
    tmp_path: Path, recall_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _two_sessions(tmp_path, capsys)
    write_config(recall_home, '[privacy]\nexclude_projects = ["~/nothing", "/work/al*"]\n')
    report = call_json(capsys, "redact", "--rescan")
    assert report["sessions_removed"] == 1
    assert sessions(capsys) == 1 and b"zanzibarquokka" not in db_bytes(recall_home)


def test_project_glob_matching() -> None:
    from recall.privacy.projects import project_matches

    assert project_matches("/home/me/clients/acme/api", ["/home/me/clients/*"])
    assert project_matches("/home/me/secret", ["/home/me/secret/"])
    assert not project_matches("/home/me/secretary", ["/home/me/secret"])
    assert not project_matches("/home/me/app", [])


def test_a_hook_deletes_a_marked_session_and_sync_finishes_the_compaction(
    tmp_path: Path, recall_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import sqlite3

    from clihelp import run

    a, _ = _two_sessions(tmp_path, capsys)
    lines = [json.loads(x) for x in a.read_text().splitlines()]
    turn = dict(lines[1], uuid="late-1", message={"role": "user", "content": "recall:ignore"})
    write_jsonl(a, [*lines, turn])
    payload = json.dumps({"session_id": a.stem, "transcript_path": str(a)})
    proc = run("ingest", "--event", "agent-stop", stdin=payload.encode())
    assert proc.returncode == 0 and proc.stdout == b""
    assert sessions(capsys) == 1
    with sqlite3.connect(recall_home / "recall.db") as db:
        assert db.execute("SELECT reason, compacted FROM forgotten").fetchall() == [("marker", 0)]
    assert call(capsys, "sync", "--quiet")[0] == 0
    with sqlite3.connect(recall_home / "recall.db") as db:
        assert db.execute("SELECT compacted FROM forgotten").fetchall() == [(1,)]
    assert b"zanzibarquokka" not in db_bytes(recall_home)


def test_a_reader_holding_the_wal_is_reported_and_a_rescan_finishes_later(
    tmp_path: Path,
    recall_home: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import sqlite3

    from recall.privacy import forget

    monkeypatch.setattr(forget, "CHECKPOINT_TRIES", 2)
    _two_sessions(tmp_path, capsys)
    reader = sqlite3.connect((recall_home / "recall.db").as_uri() + "?mode=ro", uri=True)
    reader.execute("BEGIN")
    reader.execute("SELECT count(*) FROM messages").fetchone()  # pins a snapshot
    code, out, err = call(capsys, "forget", "aaaaaaaa")
    assert code == 0 and "forgot 1 sessions" in out
    assert "could not be emptied" in err
    reader.close()
    report = call_json(capsys, "redact", "--rescan")
    assert report["wal_emptied"] is True
    assert b"zanzibarquokka" not in db_bytes(recall_home)
