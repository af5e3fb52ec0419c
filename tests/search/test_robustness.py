"""Bad input: broken transcripts and hostile queries give results or none, never a traceback."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from clihelp import call, call_json, run
from recall.search.keyword import search
from recall.search.query import parse
from recall.search.results import Filters
from recall.store import open_reader, open_writer

DEMO = "claude/claude-code-viewer/sample-project"

BAD_TRANSCRIPTS = {
    "empty": b"",
    "binary": bytes(range(256)) * 64,
    "truncated": b'{"type":"user","uuid":"t1","sessionId":"s-trunc","message":{"role":"user","con',
    "not-json": b"hello\nworld\n",
    "json-scalars": b'1\n"x"\nnull\n[1,2]\n',
    "bad-utf8": b'{"type":"user","uuid":"b1","sessionId":"s-utf","message":{"role":"user",'
    b'"content":"caf\xe9"}}\n',
    "deep": b'{"a":' * 5000 + b"1" + b"}" * 5000 + b"\n",
    "wrong-types": b'{"type":"user","message":5}\n{"type":"assistant","message":{"content":7}}\n'
    b'{"type":["user"],"message":{"content":[null,1,{"type":"text","text":9}]}}\n',
}


@pytest.mark.parametrize("agent", ["claude", "codex", "gemini"])
@pytest.mark.parametrize("kind", sorted(BAD_TRANSCRIPTS))
def test_bad_transcript_is_skipped_and_keeps_the_index(
    agent: str, kind: str, transcripts: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    shutil.copytree(transcripts / DEMO, tmp_path / "good")
    assert call(capsys, "ingest", "--agent", "claude", str(tmp_path / "good"))[0] == 0
    before = call_json(capsys, "status")["index"]
    bad = tmp_path / "bad" / f"{kind}.jsonl"
    bad.parent.mkdir()
    bad.write_bytes(BAD_TRANSCRIPTS[kind])
    code, _, err = call(capsys, "ingest", "--agent", agent, str(bad))
    assert code == 0, err
    after = call_json(capsys, "status")["index"]
    assert after["messages"] >= before["messages"]
    assert call_json(capsys, "search", "command")["found"] > 0


def test_skipped_lines_are_counted_in_sync_summary(
    transcripts: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = Path(os.environ["HOME"]) / ".claude" / "projects" / "-x"
    root.mkdir(parents=True)
    shutil.copy(transcripts / "claude/claude-code-log/edge_cases.jsonl", root / "e.jsonl")
    (root / "broken.jsonl").write_bytes(b'{"type":"user"\n{nope\n')
    code, out, _ = call(capsys, "sync")
    assert code == 0
    assert "broken JSON" in out and "not an object" in out
    code, out, _ = call(capsys, "sync")  # idempotent: nothing new the second time
    assert code == 0 and out.startswith("0 sessions updated from 0 changed of 2 transcripts")


HOSTILE = [
    '"',
    '""',
    '"unbalanced phrase',
    "a AND",
    "AND OR NOT",
    "(",
    ")(",
    "NEAR(a b)",
    "col:on",
    "title:x",
    "-",
    "--",
    "--no-verify",
    "*",
    "a*",
    "**",
    "^start",
    "{x}",
    "[x]",
    "'",
    "\\",
    "PAY-1234",
    "foo.bar/baz.py:12",
    "🙂🙂",
    "🔥 deploy",
    "日本語",
    "SELECT * FROM messages;",
    "x" * 10_000,
    "word " * 2_000,
    "\x00",
    "\t\n",
    "%",
    "_",
    "a%b_c",
]


@pytest.fixture
def small_index(transcripts: Path) -> Path:
    from recall.agents import ADAPTERS
    from recall.ingest import ingest_path

    with open_writer() as store:
        for p in sorted((transcripts / DEMO).glob("*.jsonl")):
            ingest_path(store, ADAPTERS["claude"], p, "box")
        return store.path


@pytest.mark.parametrize("query", HOSTILE, ids=range(len(HOSTILE)))
def test_hostile_query_in_process(query: str, small_index: Path) -> None:
    with open_reader(small_index) as store:
        out = search(store.conn, parse(query), Filters(), 10)
    assert out.found == len(out.results)


@pytest.mark.parametrize("query", HOSTILE[:12], ids=range(12))
def test_hostile_query_from_the_cli(query: str, small_index: Path) -> None:
    proc = run("search", query, "--json")
    if proc.returncode == 2:  # nothing to search for: a usage error, in one line
        assert not parse(query).terms and len(proc.stderr.splitlines()) == 1, proc.stderr
    else:
        assert proc.returncode == 0, proc.stderr
    assert b"Traceback" not in proc.stderr


@settings(
    max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)  # read-only use
@given(st.text(max_size=60))
def test_any_text_is_a_query(small_index: Path, query: str) -> None:
    with open_reader(small_index) as store:
        search(store.conn, parse(query), Filters(), 5)


def test_exact_identifiers_and_japanese(
    small_index: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with open_reader(small_index) as store:
        jp = search(store.conn, parse("アップデート"), Filters(), 5)
        phrase = search(store.conn, parse('"CLAUDE.md"'), Filters(), 5)
    assert jp.found >= 1 and "アップデート" in jp.results[0].snippet.replace("\x02", "").replace(
        "\x03", ""
    )
    assert phrase.found >= 1
