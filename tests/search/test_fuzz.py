"""Bounded fuzzing: hook payloads, queries and arbitrary transcript bytes never crash recall.

Each test is a hypothesis search with a fixed example budget, so the whole
file stays well under a minute per core in CI. RECALL_FUZZ_SCALE multiplies
every budget for a longer run on demand (e.g. RECALL_FUZZ_SCALE=50).
"""

from __future__ import annotations

import io
import json
import os
import sqlite3
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from recall.agents import ADAPTERS
from recall.cli import main
from recall.errors import UsageError
from recall.hooks import read_payload, transcripts_from_payload
from recall.ingest import ingest_path
from recall.search.keyword import search
from recall.search.query import MAX_TERMS, match_all, match_any, parse
from recall.search.results import Filters
from recall.store import open_writer
from recall.store.health import index_problems

SCALE = float(os.environ.get("RECALL_FUZZ_SCALE", "1"))


def budget(n: int) -> Any:
    return settings(
        max_examples=max(1, int(n * SCALE)),
        deadline=None,
        suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
    )


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=12), inner, max_size=4)
    ),
    max_leaves=12,
)
HOOK_KEYS = [
    "session_id",
    "transcript_path",
    "agent_transcript_path",
    "cwd",
    "hook_event_name",
    "thread-id",
    "type",
    "turn-id",
    "input-messages",
    "last-assistant-message",
]
PAYLOADS = st.dictionaries(st.sampled_from(HOOK_KEYS) | st.text(max_size=8), JSON, max_size=6)


# --- the hook payload reader -----------------------------------------------------------


@budget(300)
@given(st.binary(max_size=300) | st.text(max_size=300) | PAYLOADS.map(json.dumps))
def test_any_payload_is_read_or_refused_with_a_usage_error(raw: bytes | str) -> None:
    try:
        payload = read_payload(raw)
    except UsageError:
        return
    assert isinstance(payload, dict)


@budget(200)
@given(PAYLOADS, st.sampled_from([None, "claude", "codex", "gemini", "nope"]))
def test_any_payload_names_transcripts_or_is_refused(
    payload: dict[str, Any], agent: str | None
) -> None:
    try:
        targets = transcripts_from_payload(payload, agent)
    except UsageError:
        return
    assert targets and all(a.name in ADAPTERS for a, _ in targets)


@budget(60)
@given(raw=st.binary(max_size=200) | PAYLOADS.map(lambda p: json.dumps(p).encode()))
def test_the_hook_command_exits_0_silently_whatever_it_is_sent(
    raw: bytes, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(raw)))
    assert main(["ingest", "--event", "agent-stop"]) == 0
    out, _ = capsys.readouterr()
    assert out == ""


# --- the query parser --------------------------------------------------------------------

QUERY_PIECES = st.sampled_from(
    [
        '"',
        "-",
        "*",
        "(",
        ")",
        ":",
        "^",
        "+",
        "AND",
        "OR",
        "NOT",
        "NEAR",
        "NEAR(",
        "\x00",
        " ",
        "  ",
        "foo",
        "bär",
        "日本語",
        "🙂",
        "\ud83d",
        "PAY-1234",
        "--no-verify",
        "a*",
        "*b",
        '""',
        "col:val",
        "{x y}",
        "'",
        "\\",
        "%",
        "_",
    ]
)
QUERIES = st.lists(QUERY_PIECES | st.text(max_size=6), max_size=24).map("".join) | st.text()


@pytest.fixture(scope="module")
def fts() -> sqlite3.Connection:
    conn = sqlite3.connect(":memory:")
    conn.execute(
        "CREATE VIRTUAL TABLE t USING fts5(text, tokenize='porter unicode61 remove_diacritics 2')"
    )
    conn.executemany(
        "INSERT INTO t(text) VALUES (?)",
        [("foo bar baz",), ("日本語のテキスト",), ("PAY-1234 --no-verify",), ("bär café",)],
    )
    return conn


@budget(600)
@given(QUERIES)
def test_any_query_parses_to_valid_fts5(fts: sqlite3.Connection, query: str) -> None:
    terms = parse(query).terms
    assert len(terms) <= MAX_TERMS
    for expr in (match_all(terms), match_any(terms)):
        if expr is not None:
            fts.execute("SELECT rowid FROM t WHERE t MATCH ?", (expr,)).fetchall()


@pytest.fixture(scope="module")
def index(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from paths import TRANSCRIPTS

    db = tmp_path_factory.mktemp("fuzz-index") / "recall.db"
    with open_writer(db) as store:
        for p in sorted((TRANSCRIPTS / "claude" / "claude-code-viewer").rglob("*.jsonl")):
            ingest_path(store, ADAPTERS["claude"], p.resolve(), "box")
    return db


@budget(300)
@given(QUERIES, st.sampled_from([None, "sample", "%_\\"]))
def test_any_query_searches(index: Path, query: str, project: str | None) -> None:
    conn = sqlite3.connect(f"{index.resolve().as_uri()}?mode=ro", uri=True)
    try:
        out = search(conn, parse(query), Filters(project=project), 5)
    finally:
        conn.close()
    assert out.found == len(out.results)


# --- arbitrary bytes as each agent's transcript -------------------------------------------

SAMPLES = {
    "claude": "claude/claude-code-viewer/sample-project/5c0375b4-57a5-4f26-b12d-d022ee4e51b7.jsonl",
    "codex": "codex/agent-sessions/small.jsonl",
    "gemini": "gemini/agent-sessions/jsonl_v040.jsonl",
}


@st.composite
def mangled(draw: st.DrawFn, agent: str) -> bytes:
    """A real transcript of `agent`, cut, spliced, duplicated and byte-flipped."""
    from paths import TRANSCRIPTS

    lines = (TRANSCRIPTS / SAMPLES[agent]).read_bytes().splitlines(keepends=True)
    start = draw(st.integers(0, len(lines) - 1))
    picked = lines[start : start + draw(st.integers(1, 12))]
    out = []
    for line in picked:
        op = draw(st.sampled_from(["keep", "keep", "cut", "flip", "twice", "junk", "retype"]))
        if op == "cut":
            line = line[: draw(st.integers(0, len(line)))]
        elif op == "flip" and line:
            i = draw(st.integers(0, len(line) - 1))
            line = line[:i] + bytes([draw(st.integers(0, 255))]) + line[i + 1 :]
        elif op == "twice":
            line = line + line
        elif op == "junk":
            line = draw(st.binary(max_size=40)) + b"\n"
        elif op == "retype":
            try:
                obj = json.loads(line)
                if isinstance(obj, dict) and obj:
                    key = draw(st.sampled_from(sorted(obj)))
                    obj[key] = draw(JSON)
                line = json.dumps(obj).encode() + b"\n"
            except ValueError:
                pass
        out.append(line)
    return b"".join(out)


@pytest.mark.parametrize("agent", sorted(SAMPLES))
def test_arbitrary_bytes_as_a_transcript_never_crash_and_keep_the_store_consistent(
    agent: str, tmp_path: Path
) -> None:
    adapter = ADAPTERS[agent]
    db = tmp_path / "recall.db"
    target = tmp_path / ("session-fuzz.jsonl" if agent == "gemini" else "rollout-fuzz.jsonl")
    seen = 0

    @budget(90)
    @given(st.binary(max_size=400) | mangled(agent), st.booleans())
    def ingest_any(data: bytes, grow: bool) -> None:
        nonlocal seen
        with open(target, "ab" if grow else "wb") as fh:
            fh.write(data)
        with open_writer(db) as store:
            ingest_path(store, adapter, target.resolve(), "box")
        seen += 1

    ingest_any()
    assert seen > 0
    assert index_problems(db) == []


@pytest.mark.parametrize(
    "argv",
    [["show", "\udcff"], ["search", "abc", "--project", "\udcff"], ["search", "x\udcfe"]],
)
def test_non_utf8_bytes_in_arguments_are_a_one_line_error_or_just_text(
    argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    """What a byte that is not UTF-8 becomes in sys.argv (a lone surrogate) never crashes."""
    from clihelp import call

    code, _, err = call(capsys, *argv)
    assert code in (1, 2) and "Traceback" not in err
    assert err.count("\n") <= 1


def _mirrors(db: Path) -> dict[str, Any]:
    from recall.store import open_reader
    from recall.store.queries import load_mirror

    with open_reader(db) as store:
        rows = store.conn.execute("SELECT id, session_id FROM sessions").fetchall()
        return {sid: load_mirror(store.conn, rowid) for rowid, sid in rows}


REAL = {
    "claude": [
        SAMPLES["claude"],
        "claude/agent-sessions/small.jsonl",
        "claude/claude-code-log/edge_cases.jsonl",
    ],
    "codex": [SAMPLES["codex"], "codex/agent-sessions/large.jsonl"],
    "gemini": [SAMPLES["gemini"]],
}


@pytest.mark.parametrize("agent", sorted(REAL))
def test_a_transcript_read_while_it_grows_equals_one_read_wherever_the_cuts_fall(
    agent: str, tmp_path: Path
) -> None:
    """Hooks read files mid-write: any byte cuts (mid-line too) give what one whole read gives."""
    from paths import TRANSCRIPTS

    adapter = ADAPTERS[agent]
    name = "session-fuzz.jsonl" if agent == "gemini" else "rollout-fuzz.jsonl"
    runs = 0

    @budget(40)
    @given(st.sampled_from(REAL[agent]), st.lists(st.floats(0, 1), min_size=1, max_size=3))
    def growing_equals_whole(rel: str, fractions: list[float]) -> None:
        nonlocal runs
        runs += 1
        data = (TRANSCRIPTS / rel).read_bytes()
        cuts = sorted({int(f * len(data)) for f in fractions} | {len(data)})
        here = tmp_path / str(runs)
        parts, whole = here / "parts", here / "whole"
        for d in (parts, whole):
            d.mkdir(parents=True)
        (whole / name).write_bytes(data)
        with open_writer(whole / "recall.db") as store:
            ingest_path(store, adapter, (whole / name).resolve(), "box")
        target = parts / name
        target.write_bytes(b"")
        with open_writer(parts / "recall.db") as store:
            done = 0
            for cut in cuts:
                with open(target, "ab") as fh:
                    fh.write(data[done:cut])
                done = cut
                ingest_path(store, adapter, target.resolve(), "box")
        got, want = _mirrors(parts / "recall.db"), _mirrors(whole / "recall.db")
        for mirror in (*got.values(), *want.values()):
            mirror.transcript_path = None
            if agent == "codex":  # known gap, reported to the adapters' owners: which
                mirror.metadata.pop("model", None)  # model wins depends on where slices end
        assert got == want

    growing_equals_whole()
