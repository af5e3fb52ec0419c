"""The command line's contract: JSON shapes (README, "Searching"), exit codes, prefixes, raw transcripts."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from clihelp import SESSION_FIELDS, call, call_json, run

VIEWER = "claude/claude-code-viewer/sample-project"
SESSION = "5c0375b4-57a5-4f26-b12d-d022ee4e51b7"


@pytest.fixture
def indexed(transcripts: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    """The claude-code-viewer project, copied so tests may delete transcripts."""
    project = tmp_path / "projects" / "-path-to-Demo"
    shutil.copytree(transcripts / VIEWER, project)
    code, _, err = call(capsys, "ingest", "--agent", "claude", str(project))
    assert code == 0, err
    return project


def test_search_json_contract(indexed: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = call_json(capsys, "search", "slash command")
    # the README's --json keys, plus `corrected` (additive: the typo correction shown, or null)
    assert set(out) == {"query", "found", "results", "errors", "corrected"}
    assert out["query"] == "slash command" and out["errors"] == []
    assert out["found"] == len(out["results"]) > 0
    for r in out["results"]:
        assert set(r) >= SESSION_FIELDS
        assert r["agent"] == "claude" and r["computer"] == "testbox"
        assert r["source"] == "session" and isinstance(r["score"], float)
        assert r["date"] is None or r["date"].endswith("+00:00")
        assert "\x02" not in r["snippet"] and "\x03" not in r["snippet"]


def test_message_index_points_at_the_matching_message(
    indexed: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    hit = call_json(capsys, "search", "slash command")["results"][0]
    shown = call_json(capsys, "show", hit["session_id"])
    text = shown["messages"][hit["message_index"]]["text"].lower()
    assert "slash" in text or "command" in text


def test_show_json_contract_and_prefix(indexed: Path, capsys: pytest.CaptureFixture[str]) -> None:
    full = call_json(capsys, "show", SESSION)
    assert set(full) >= {
        "session_id",
        "agent",
        "project",
        "computer",
        "title",
        "started_at",
        "ended_at",
        "transcript_path",
        "messages",
    }
    assert full["session_id"] == SESSION and full["project"] == "/path/to/Demo"
    assert full["messages"] and all(
        set(m) == {"role", "text", "timestamp"} for m in full["messages"]
    )
    assert {m["role"] for m in full["messages"]} == {"user", "assistant"}
    assert call_json(capsys, "show", SESSION[:8]) == full


def test_show_unknown_and_ambiguous(indexed: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = call(capsys, "show", "zzzz-no-such")
    assert code == 1 and out == "" and "no session" in err
    assert err.count("\n") == 1


def test_show_raw_prints_the_transcript_and_survives_its_deletion(
    indexed: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = indexed / f"{SESSION}.jsonl"
    before = call_json(capsys, "show", SESSION)
    assert before["messages"]
    proc = run("show", SESSION, "--raw")
    assert proc.returncode == 0 and proc.stdout == path.read_bytes()
    path.unlink()
    code, _, err = call(capsys, "show", SESSION, "--raw")
    assert code == 1 and "gone" in err
    # The mirror outlives the transcript, through sync too.
    call(capsys, "sync", "--quiet")
    assert call_json(capsys, "show", SESSION) == before
    assert call_json(capsys, "search", "slash command")["found"] > 0


def test_usage_errors_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert call(capsys, "search", "x", "--limit", "0")[0] == 2
    assert call(capsys, "search", "x", "--since", "last tuesday-ish")[0] == 2
    assert call(capsys, "search")[0] == 2
    assert call(capsys, "ingest")[0] == 2
    assert call(capsys, "ingest", "--agent", "nope", "/")[0] == 2
    assert call(capsys, "frobnicate")[0] == 2
    code, _, err = call(capsys, "sync", "--agent", "vim")
    assert code == 2 and "unknown agent" in err


def test_ingest_missing_file(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, _, err = call(capsys, "ingest", "--agent", "claude", str(tmp_path / "nope.jsonl"))
    assert code == 1 and "no such file" in err


def test_no_results_is_not_a_crash(indexed: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = call(capsys, "search", "xylophoneqqq")
    assert code == 1 and "No results" in out
    assert call_json(capsys, "search", "xylophoneqqq")["found"] == 0


def test_filters(indexed: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert call_json(capsys, "search", "command", "--agent", "codex")["found"] == 0
    assert call_json(capsys, "search", "command", "--agent", "claude")["found"] > 0
    assert call_json(capsys, "search", "command", "--project", "Demo")["found"] > 0
    assert call_json(capsys, "search", "command", "--project", "elsewhere")["found"] == 0
    assert call_json(capsys, "search", "command", "--since", "2000-01-01")["found"] > 0
    assert call_json(capsys, "search", "command", "--until", "2001-01-01")["found"] == 0
    assert call_json(capsys, "search", "command", "--since", "1d")["found"] == 0


def test_status_reports_core_and_counts(indexed: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from recall import _accel

    out = call_json(capsys, "status")
    assert out["core"] == _accel.IMPL
    assert out["index"]["sessions"] >= 2 and out["index"]["messages"] > 10
    code, text, _ = call(capsys, "status")
    assert code == 0 and f"core: {_accel.IMPL}" in text


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = call(capsys, "--version")
    assert code == 0 and out.startswith("recall 0.1.0")


@pytest.mark.needs_model
def test_demo_runs_without_touching_the_users_index(
    recall_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = call(capsys, "demo")
    assert code == 0, err
    assert ("backoff" in out and "polars" in out.lower()) or "dataframe" in out
    assert "3 sessions" in out
    assert "searches are hybrid" in out and "semantic search is off" not in err
    assert not (recall_home / "recall.db").exists()


def test_demo_without_a_model_says_so_once_and_searches_keywords(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("RECALL_MODEL_DIR", str(tmp_path / "no-model"))
    code, out, err = call(capsys, "demo")
    assert code == 0, err
    assert out.count("semantic search is off") == 1 and "semantic" not in err
    assert "exponential backoff" in out


def test_import_jsonl_from_stdin_is_idempotent(capsys: pytest.CaptureFixture[str]) -> None:
    lines = [
        {
            "session": "s1",
            "role": "user",
            "text": "Which queue did we pick?",
            "timestamp": "2026-01-01T10:00:00Z",
            "project": "/srv/app",
            "title": "Queue choice",
        },
        {
            "session": "s1",
            "role": "assistant",
            "text": "We picked NATS JetStream.",
            "timestamp": "2026-01-01T10:00:05Z",
        },
        {"session": "s2", "role": "user", "text": "hello", "agent": "chatgpt"},
        {"session": "s3", "role": "narrator", "text": "bad role"},
    ]
    data = "\n".join(json.dumps(x) for x in lines).encode() + b"\n{broken\n"
    for _ in range(2):
        proc = run("ingest", "--format", "jsonl", "-", stdin=data)
        assert proc.returncode == 0, proc.stderr
        assert b"2 sessions" in proc.stdout and b"broken JSON" in proc.stdout
    shown = call_json(capsys, "show", "s1")
    assert shown["title"] == "Queue choice" and shown["project"] == "/srv/app"
    assert [m["text"] for m in shown["messages"]] == [
        "Which queue did we pick?",
        "We picked NATS JetStream.",
    ]
    assert call_json(capsys, "show", "s2")["agent"] == "chatgpt"
    hits = call_json(capsys, "search", "JetStream")["results"]
    assert [h["session_id"] for h in hits] == ["s1"]


def test_every_command_is_documented_in_the_readme() -> None:
    import argparse

    from paths import REPO
    from recall.cli.parser import build_parser

    readme = (REPO / "README.md").read_text(encoding="utf-8")
    subs = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    for name in subs.choices:
        assert f"recall {name}" in readme, f"README does not mention `recall {name}`"


def test_example_config_is_valid_when_uncommented(tmp_path: Path) -> None:
    import re
    import tomllib

    from paths import REPO
    from recall.config import Config
    from recall.record import convert

    text = (REPO / "config.example.toml").read_text(encoding="utf-8")
    uncommented = re.sub(
        r"^# (?=\[+[\w.]+\]+|\w+ = )",
        "",
        text,
        flags=re.MULTILINE,
    )
    config = convert(tomllib.loads(uncommented), Config)
    assert config.computer == "laptop" and set(config.agents) == {
        "claude",
        "codex",
        "gemini",
        "aider",
    }
    # the privacy sections, at their defaults plus the one example extra rule
    assert config.redact.enabled and config.privacy.ignore_marker == "recall:ignore"
    assert [x.name for x in config.redact.extra] == ["acme-token"]


def test_sync_on_a_machine_without_transcripts_says_where_it_looked(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, err = call(capsys, "sync")
    assert code == 0
    assert "0 sessions" in out
    home = Path(os.environ["HOME"])
    assert str(home / ".claude" / "projects") in err
    assert str(home / ".codex" / "sessions") in err
    assert "recall demo" in err


@pytest.mark.parametrize("decay", ["nan", "inf", "-1"])
def test_a_decay_that_is_not_a_finite_rate_is_a_usage_error(
    indexed: Path, capsys: pytest.CaptureFixture[str], decay: str
) -> None:
    code, out, err = call(capsys, "search", "slash command", "--decay", decay)
    assert (
        code == 2
        and out == ""
        and "decay must be a finite number" in err
        and len(err.splitlines()) == 1
    )


@pytest.mark.parametrize("flag", ["--since", "--until"])
@pytest.mark.parametrize("when", ["0001-01-01", "0001-01-01T00:00:00", "9999-12-31T23:59:59+14:00"])
def test_a_date_at_the_edge_of_the_calendar_is_a_usage_error_or_works(
    flag: str, when: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = call(capsys, "search", "anything", flag, when)
    assert code in (1, 2), err  # nothing found, or one clear line: never a traceback
    assert "Traceback" not in err and len(err.strip().splitlines()) <= 2
    if code == 2:
        assert "out of range" in err


def test_progress_lines_for_counts_and_downloads(capsys: pytest.CaptureFixture[str]) -> None:
    """One helper draws both: `sync`/`embed` counts and `model install`'s megabytes."""
    from recall.cli import model
    from recall.cli.render import progress

    show = progress("Indexing transcripts")
    show(1, 2)
    show(2, 2)
    model._progress("model.onnx", 1_500_000, 0)  # the server sent no length
    model._progress("model.onnx", 3_000_000, 3_000_000)
    err = capsys.readouterr().err
    assert err == (
        "\rIndexing transcripts 1/2\rIndexing transcripts 2/2\n"
        "\rDownloading model.onnx 1.5 MB\rDownloading model.onnx 3.0/3.0 MB\n"
    )


@pytest.mark.parametrize(
    "argv",
    [
        ("search", "--limit", "abc", "x"),
        ("search", "--scope", "bogus", "x"),
        ("remember", "-i", "x", "t"),
        ("memories", "edit", "abc"),
        ("nosuchcommand",),
    ],
)
def test_a_bad_flag_is_one_line_and_exit_2(capsys: pytest.CaptureFixture[str], argv: tuple) -> None:
    code, out, err = call(capsys, *argv)
    assert code == 2 and out == ""
    assert len(err.strip().splitlines()) == 1, err
    assert err.startswith("recall") and "--help" in err


@pytest.mark.parametrize("flag", ["--since", "--until"])
def test_an_empty_time_is_a_usage_error_not_no_filter(
    flag: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = call(capsys, "search", "anything", flag, "")
    assert code == 2 and out == "" and "cannot read the time" in err
