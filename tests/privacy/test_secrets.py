"""Secrets never reach the index: a seeded corpus of 30 formats through each agent's transcripts.

Every check looks where a user or an attacker would: search results, `show`,
`show --json`, `show --raw`, recall.log, and the raw bytes of the database
file and its WAL (FTS tokens included, lowercased as FTS stores them).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from clihelp import call, call_json
from recall import config
from secretcorpus import (
    PATHLESS,
    agent_files,
    db_bytes,
    leaks,
    secrets,
    tokens,
    unreadable_in_folders,
    write_config,
)

SECRETS = secrets()


@pytest.fixture(autouse=True)
def _fresh_config() -> None:
    config._load.cache_clear()


@pytest.fixture
def corpus(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> dict[str, Path]:
    files = agent_files(tmp_path / "agents", SECRETS)
    for agent, path in files.items():
        code, _, err = call(capsys, "ingest", "--agent", agent, str(path))
        assert code == 0, err
    return files


def test_the_corpus_has_at_least_twenty_formats() -> None:
    assert len({s.kind for s in SECRETS}) >= 20
    assert all(tokens(s.needle) or len(s.needle) >= 12 for s in SECRETS)


def test_each_secret_is_in_the_transcripts_it_was_ingested_from(corpus: dict[str, Path]) -> None:
    for path in corpus.values():
        raw = path.read_text(encoding="utf-8")
        assert leaks(raw.replace("\\\\n", "\\n"), SECRETS) == [s.kind for s in SECRETS]


def test_no_secret_in_show_or_show_json(
    corpus: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    sessions = {"11111111", "0199aaaa", "gem00001"}
    for ref in sessions:
        shown = call_json(capsys, "show", ref)
        assert len(shown["messages"]) == 2 * len(SECRETS)
        assert leaks(json.dumps(shown), SECRETS) == []
        assert "[REDACTED:" in shown["messages"][0]["text"]
        code, out, err = call(capsys, "show", ref)
        assert code == 0, err
        assert leaks(out, SECRETS) == []


def test_titles_and_metadata_are_redacted(
    corpus: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    shown = call_json(capsys, "show", "11111111")
    assert shown["title"] == "deploy notes export OPENAI_API_KEY=[REDACTED:openai-key]"
    code, out, _ = call(capsys, "status", "--json")
    assert code == 0 and leaks(out, SECRETS) == []


def test_no_secret_in_search_results(
    corpus: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    for s in SECRETS:
        for query in [s.needle, *tokens(s.needle)[:2]]:
            out = call_json(capsys, "search", query)  # "query" echoes what the user typed
            assert leaks(json.dumps(out["results"]), SECRETS) == [], (s.kind, query)
    hits = call_json(capsys, "search", "REDACTED github token")
    assert hits["found"] >= 1


def test_no_secret_in_the_database_file_or_wal(corpus: dict[str, Path], recall_home: Path) -> None:
    data = db_bytes(recall_home)
    assert b"redacted" in data
    assert leaks(data, SECRETS) == []


def test_show_raw_passes_the_transcript_through_the_rules(corpus: dict[str, Path]) -> None:
    from clihelp import run

    for ref in ("11111111", "0199aaaa", "gem00001"):
        proc = run("show", ref, "--raw")
        assert proc.returncode == 0, proc.stderr
        out = proc.stdout
        assert leaks(out, SECRETS) == []
        for line in out.splitlines():
            json.loads(line)  # still one JSON document a line


def test_log_lines_are_redacted(recall_home: Path) -> None:
    from recall.log import log

    for s in SECRETS:
        log(f"hook failed for {s.text}")
    text = (recall_home / "recall.log").read_text(encoding="utf-8")
    assert len(text.splitlines()) == len(SECRETS)
    assert "[REDACTED:openai-key]" in text and leaks(text, SECRETS) == []


def test_a_sync_logs_and_prints_no_secret_from_a_path_it_passes_over(
    recall_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A real sync of every form: the transcripts carry each secret, and beside them sit
    files sync passes over in folders named with each secret, so the summary and
    recall.log both name paths that hold one."""
    home = Path(os.environ["HOME"])
    agent_files(home, SECRETS)
    folders = unreadable_in_folders(home / ".claude" / "projects", SECRETS)
    code, out, err = call(capsys, "sync", "--no-embed")
    assert code == 0, err
    assert out.count("passed over /") == len(folders) == len(SECRETS) - len(PATHLESS)
    assert "[REDACTED:github-token]" in out
    assert leaks(out + err, SECRETS) == []
    log = (recall_home / "recall.log").read_text(encoding="utf-8")
    assert log.count("passed over") == len(folders)
    assert "caf\\xe9.jsonl" in log and "[REDACTED:private-key]" in log
    assert leaks(log, SECRETS) == []
    assert leaks(db_bytes(recall_home), SECRETS) == []


def test_a_hook_never_stores_a_secret(
    tmp_path: Path, recall_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from clihelp import run

    files = agent_files(tmp_path / "agents", SECRETS[:5])
    payload = json.dumps({"session_id": "x", "transcript_path": str(files["claude"])})
    proc = run("ingest", "--event", "agent-stop", stdin=payload.encode())
    assert proc.returncode == 0 and proc.stdout == b""
    assert leaks(db_bytes(recall_home), SECRETS) == []
    assert call_json(capsys, "show", "11111111")["messages"]


def test_redaction_can_be_switched_off(
    tmp_path: Path, recall_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write_config(recall_home, "[redact]\nenabled = false\n")
    files = agent_files(tmp_path / "agents", SECRETS)
    assert call(capsys, "ingest", "--agent", "codex", str(files["codex"]))[0] == 0
    # proves the byte grep above can see a secret when one is there
    assert leaks(db_bytes(recall_home), SECRETS) == [s.kind for s in SECRETS]
