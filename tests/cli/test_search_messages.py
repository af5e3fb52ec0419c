"""What `recall search` says around its results: each message true and useful."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from clihelp import call


def test_before_any_sync_it_says_to_run_sync(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = call(capsys, "search", "kafka")
    assert code == 1
    assert "nothing is indexed yet: run `recall sync`" in err
    assert "recall embed" not in err


def test_an_empty_query_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    for query in ("", "   "):
        code, _, err = call(capsys, "search", query)
        assert code == 2 and "the query is empty" in err


@pytest.fixture
def indexed(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src = tmp_path / "chats.jsonl"
    rows = [
        {
            "session": "s1",
            "agent": "claude",
            "role": "user",
            "text": "the kafka retry budget",
            "timestamp": "2025-01-02T10:00:00+00:00",
        }
    ]
    src.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    assert call(capsys, "ingest", "--format", "jsonl", str(src))[0] == 0


def test_no_results_names_the_filters_that_hid_everything(
    indexed: None, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = call(capsys, "search", "kafka", "--since", "7d", "--agent", "claude")
    assert code == 1
    assert out.strip() == "No results for 'kafka' with --agent claude, --since 7d."


def test_agents_match_in_any_case_and_an_unknown_one_is_named(
    indexed: None, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = call(capsys, "search", "kafka", "--agent", "Claude")
    assert code == 0 and "kafka" in out
    code, _, err = call(capsys, "search", "kafka", "--agent", "windsurf")
    assert code == 2
    assert "unknown agent 'windsurf'" in err
    assert all(
        f"{a}," in err or f"{a})" in err
        for a in ("claude", "codex", "cursor", "opencode", "gemini", "qwen")
    )


def test_text_output_in_a_pipe_is_plain_short_ids_and_whole_words(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    long_id = "5c0375b4-57a5-4f26-b12d-d022ee4e51b7"
    text = (
        "We added ****Retry** decorators** around the flaky payment client calls, with "
        "exponential backoff and jitter, because the upstream gateway times out under load "
        "and retrying immediately only made the thundering herd worse for everyone involved"
    )
    src = tmp_path / "chats.jsonl"
    src.write_text(json.dumps({"session": long_id, "role": "user", "text": text}) + "\n")
    assert call(capsys, "ingest", "--format", "jsonl", str(src))[0] == 0
    code, out, _ = call(capsys, "search", "retry", "decorators", "--mode", "keyword")
    assert code == 0
    assert "[5c0375b4]" in out and long_id not in out  # JSON keeps the whole id
    assert "\x1b[" not in out  # no colour codes in a pipe
    assert "**Retry**" not in out.replace("****Retry** decorators**", "")  # no added markers
    words = set(text.split())
    *results, footer = out.splitlines()
    assert footer == "open: recall show 5c0375b4"  # an import: nothing can resume it
    for line in results:
        assert len(line) <= 80, line
        for word in line.split():
            if word.isalpha() and len(word) > 3:
                assert word in words or word in (
                    "score",
                    "import",
                    "testbox",
                    "matched",
                    "every",
                    "word",
                ), word
    doc = json.loads(call(capsys, "search", "retry", "--json")[1])
    assert doc["results"][0]["session_id"] == long_id


def test_a_path_project_matches_with_a_trailing_slash_or_as_dot(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    app = tmp_path / "app"
    app.mkdir()
    src = tmp_path / "chats.jsonl"
    row = {"session": "p1", "agent": "claude", "project": str(app), "role": "user"}
    src.write_text(json.dumps({**row, "text": "the zeppelin budget"}) + "\n")
    assert call(capsys, "ingest", "--format", "jsonl", str(src))[0] == 0
    monkeypatch.chdir(app)
    for project in (str(app), f"{app}/", f"{app}//", "."):
        code, out, _ = call(capsys, "search", "zeppelin", "--project", project)
        assert code == 0 and "zeppelin" in out, project
    code, out, _ = call(capsys, "forget", "--dry-run", "--project", f"{app}/")
    assert code == 0 and "p1" in out
    code, out, _ = call(capsys, "forget", "--dry-run", "--project", ".")
    assert code == 0 and "p1" in out
