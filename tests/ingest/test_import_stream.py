"""The streamed JSONL import (issue 28): pieces, resume after a kill, growth, rewrites."""

from __future__ import annotations

import io
import json
import os
import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from clihelp import call, run
from recall import imports
from recall.agents import IMPORT
from recall.store import open_writer


def _lines(sessions: int, turns: int, repeat_every: int = 0) -> list[dict[str, str]]:
    """Interleaved sessions; with `repeat_every`, some turns repeat an earlier one word for
    word (no timestamp), which the import must keep as separate messages."""
    out = []
    for t in range(turns):
        for s in range(sessions):
            text = f"session {s} turn {t} talks about widget{s}x{t} and the deploy"
            if repeat_every and t % repeat_every == 0:
                text = f"ok, carry on in session {s}"
            out.append({"session": f"s{s}", "role": "user" if t % 2 else "assistant", "text": text})
    return out


def _write(path: Path, lines: list[dict[str, str]]) -> Path:
    path.write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")
    return path


def _stored(home: Path) -> list[tuple[str, str, str]]:
    db = sqlite3.connect(home / "recall.db")
    try:
        return db.execute(
            "SELECT s.session_id, m.key, m.text FROM messages m JOIN sessions s"
            " ON s.id = m.session ORDER BY s.session_id, m.position"
        ).fetchall()
    finally:
        db.close()


def _fts_ok(home: Path) -> None:
    db = sqlite3.connect(home / "recall.db")
    try:
        db.execute("INSERT INTO messages_fts(messages_fts, rank) VALUES ('integrity-check', 1)")
    finally:
        db.close()


def test_pieces_key_repeated_lines_as_one_whole_read_does(
    tmp_path: Path, recall_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    lines = _lines(sessions=3, turns=30, repeat_every=4)
    src = _write(tmp_path / "h.jsonl", lines)
    whole = IMPORT.parse(src, src.read_bytes(), 0, {})
    want = sorted((p.info.session_id, m.key, m.text) for p in whole.parts for m in p.messages)
    assert any(key.endswith(".3") for _, key, _ in want)  # repeats numbered, kept apart
    monkeypatch.setattr(imports, "PIECE_BYTES", 200)  # a repeat's copies span many pieces
    with open_writer() as store:
        report = imports.import_file(store, src, "testbox")
    assert report.sessions == 3 and report.messages == len(lines)
    assert sorted(_stored(recall_home)) == want
    _fts_ok(recall_home)


_KILLER = """
    import os, signal, sys
    from pathlib import Path
    from recall import imports
    from recall.store import open_writer

    imports.PIECE_BYTES = 300
    commit = imports._Run.commit
    count = 0

    def dying(self, prepared, mark, start_next):
        global count
        commit(self, prepared, mark, start_next)
        count += 1
        if count == 5:  # five pieces committed: killed as a power cut would
            os.kill(os.getpid(), signal.SIGKILL)

    imports._Run.commit = dying
    with open_writer() as store:
        imports.import_file(store, Path(sys.argv[1]), "testbox")
"""


def test_an_import_killed_half_way_resumes_without_duplicating(
    tmp_path: Path, recall_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    lines = _lines(sessions=4, turns=20, repeat_every=3)
    src = _write(tmp_path / "h.jsonl", lines)
    child = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(_KILLER), str(src)],
        env=os.environ,
        capture_output=True,
        timeout=120,
        check=False,
    )
    assert child.returncode == -9, child.stderr
    before = _stored(recall_home)
    assert 0 < len(before) < len(lines)
    monkeypatch.setattr(imports, "PIECE_BYTES", 300)
    with open_writer() as store:
        report = imports.import_file(store, src, "testbox")
    assert report.resumed_from > 0  # went on from the last committed piece
    assert report.messages == len(lines) - len(before)
    after = _stored(recall_home)
    assert len(after) == len(lines) == len({(s, k) for s, k, _ in after})
    whole = IMPORT.parse(src, src.read_bytes(), 0, {})
    assert sorted(after) == sorted(
        (p.info.session_id, m.key, m.text) for p in whole.parts for m in p.messages
    )
    _fts_ok(recall_home)
    # and then the file is as its import left it: nothing is read again
    with open_writer() as store:
        assert imports.import_file(store, src, "testbox").unchanged


def test_a_grown_file_reads_only_its_new_lines_and_a_rewritten_one_replaces(
    tmp_path: Path, recall_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lines = _lines(sessions=2, turns=6)
    src = _write(tmp_path / "h.jsonl", lines)
    assert call(capsys, "ingest", "--format", "jsonl", str(src))[0] == 0
    grown = [*lines, {"session": "s0", "role": "user", "text": "one more thing about the cache"}]
    _write(src, grown)
    with open_writer() as store:
        report = imports.import_file(store, src, "testbox")
    assert report.resumed_from == len("".join(json.dumps(x) + "\n" for x in lines).encode())
    assert report.messages == 1
    assert len(_stored(recall_home)) == len(grown)
    _write(src, grown[2:])  # rewritten: the first two lines are gone from the file
    assert call(capsys, "ingest", "--format", "jsonl", str(src))[0] == 0
    texts = [t for _, _, t in _stored(recall_home)]
    assert len(texts) == len(grown) - 2 and grown[0]["text"] not in texts
    _fts_ok(recall_home)


def test_stdin_twice_stores_everything_once(tmp_path: Path, recall_home: Path) -> None:
    lines = _lines(sessions=3, turns=10, repeat_every=5)
    data = "".join(json.dumps(x) + "\n" for x in lines).encode()
    for _ in range(2):
        proc = run("ingest", "--format", "jsonl", "-", stdin=data)
        assert proc.returncode == 0, proc.stderr
        assert proc.stdout == b"ingested 3 sessions from stdin\n"
        assert proc.stderr == b""  # no progress line in a pipe
    stored = _stored(recall_home)
    assert len(stored) == len(lines) == len({(s, k) for s, k, _ in stored})


def test_a_line_longer_than_any_transcript_line_is_passed_over_and_counted(
    tmp_path: Path, recall_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(imports, "MAX_LINE", 1000)
    monkeypatch.setattr(imports, "PIECE_BYTES", 256)
    big = {"session": "s9", "role": "user", "text": "x " * 2000}
    lines = [*_lines(1, 3), big, *_lines(1, 2)]
    src = _write(tmp_path / "h.jsonl", lines)
    with open_writer() as store:
        report = imports.import_file(store, src, "testbox")
    assert report.skipped == {"line over 64 MB": 1}
    assert len(_stored(recall_home)) == 5


def test_a_too_long_line_is_passed_over_wherever_the_pieces_fall(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Whichever block its newline arrives in, a line over the limit is never handed on,
    and it is counted once: two imports of one file treat it alike."""
    monkeypatch.setattr(imports, "MAX_LINE", 1000)
    monkeypatch.setattr(imports, "PIECE_BYTES", 256)
    long_line = b'{"text": "' + b"y" * 1100 + b'"}\n'
    for pad in range(0, 300, 7):
        data = b'{"pad": "' + b"p" * pad + b'"}\n' + long_line + b'{"n": 1}\n{"n": 2}\n'
        skipped: dict[str, int] = {}
        got = list(imports.pieces(io.BytesIO(data), skipped))
        kept = b"".join(d for _, d in got)
        assert b"yyyy" not in kept, pad
        assert kept == data.replace(long_line, b""), pad
        assert skipped == {"line over 64 MB": 1} and sum(n for n, _ in got) == len(data), pad


def test_a_session_of_an_excluded_project_stays_out_in_every_piece(
    tmp_path: Path, recall_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Only the first line names the project; the pieces after it still belong to it."""
    from secretcorpus import write_config

    write_config(recall_home, '[privacy]\nexclude_projects = ["/secret/*"]\n')
    lines: list[dict[str, str]] = [
        {"session": "hid", "role": "user", "text": "start", "project": "/secret/x"}
    ]
    lines += _lines(sessions=2, turns=60)
    lines += [{"session": "hid", "role": "user", "text": f"more secret {n}"} for n in range(60)]
    src = _write(tmp_path / "h.jsonl", lines)
    monkeypatch.setattr(imports, "PIECE_BYTES", 600)
    with open_writer() as store:
        imports.import_file(store, src, "testbox")
    stored = _stored(recall_home)
    assert len(stored) == 120 and not any(s == "hid" for s, _, _ in stored)


def test_pieces_stay_bounded_whatever_the_input(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(imports, "PIECE_BYTES", 1000)
    data = b"".join(b'{"n": %d}\n' % i for i in range(20_000))
    got = list(imports.pieces(io.BytesIO(data), {}))
    assert b"".join(d for _, d in got) == data and sum(n for n, _ in got) == len(data)
    assert len(got) > 200 and max(len(d) for _, d in got) <= 1000 + 20


def test_the_progress_line_has_a_rate_and_an_eta() -> None:
    from recall.cli.ingest import ImportMeter

    out = io.StringIO()
    meter = ImportMeter(out)
    meter(imports.Tick(done=50 << 20, total=200 << 20, start=0, messages=90_000, seconds=5.0))
    line = out.getvalue()
    assert "Importing 50.0/200.0 MB, 90,000 messages, 10.0 MB/s, ETA 15s" in line


def test_the_next_piece_is_parsed_while_sqlite_indexes_not_during_the_inserts() -> None:
    """Parsing holds the GIL and so does binding each inserted row: the next piece's work
    starts when the caller says SQLite is about to run on its own (or when it moves on),
    never earlier, and every piece comes back in order."""
    import threading

    events: list[str] = []
    lock = threading.Lock()

    def work(item: int) -> tuple[object, set[str]]:
        with lock:
            events.append(f"parse {item}")
        return item, set()

    seen = []
    ahead = imports._ahead(iter([1, 2, 3]), work)  # type: ignore[arg-type]
    for item, prepared, start_next in ahead:
        with lock:
            events.append(f"insert {item}")
        if item != 2:  # piece 2's caller never says: its successor starts when it moves on
            start_next()
            start_next()  # once only
        seen.append((item, prepared[0]))
    assert seen == [(1, 1), (2, 2), (3, 3)]
    assert events.index("parse 2") > events.index("insert 1")
    assert events.index("parse 3") > events.index("insert 2")
    assert events.count("parse 2") == events.count("parse 3") == 1


def _import_stopped_after(src: Path, pieces: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """Import `src` until `pieces` pieces are committed, then stop it as Ctrl-C would."""
    commit = imports._Run.commit
    done: list[int] = []

    def failing(self: imports._Run, prepared: object, mark: object, start_next: object) -> None:
        if len(done) == pieces:
            raise KeyboardInterrupt
        commit(self, prepared, mark, start_next)  # type: ignore[arg-type]
        done.append(1)

    with monkeypatch.context() as patch:
        patch.setattr(imports._Run, "commit", failing)
        with open_writer() as store, pytest.raises(KeyboardInterrupt):
            imports.import_file(store, src, "testbox")


def test_an_import_stopped_by_an_error_keeps_the_pieces_it_committed(
    tmp_path: Path, recall_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    lines = _lines(sessions=3, turns=12)
    src = _write(tmp_path / "h.jsonl", lines)
    monkeypatch.setattr(imports, "PIECE_BYTES", 400)
    _import_stopped_after(src, 3, monkeypatch)
    kept = _stored(recall_home)
    assert 0 < len(kept) < len(lines)
    with open_writer() as store:
        report = imports.import_file(store, src, "testbox")
    assert report.resumed_from > 0
    assert len(_stored(recall_home)) == len(lines)
    _fts_ok(recall_home)


@pytest.mark.parametrize("stop_after", [1, 2, 3, 4])
def test_a_resumed_import_counts_a_passed_over_line_once(
    tmp_path: Path, recall_home: Path, monkeypatch: pytest.MonkeyPatch, stop_after: int
) -> None:
    """The piece after a commit is read ahead, so a too-long line met there belongs to the
    next piece's mark, not to the mark of the piece being committed."""
    monkeypatch.setattr(imports, "MAX_LINE", 1000)
    monkeypatch.setattr(imports, "PIECE_BYTES", 256)
    big = {"session": "s9", "role": "user", "text": "x " * 2000}
    lines = [*_lines(1, 3), big, *_lines(1, 6)]
    src = _write(tmp_path / "h.jsonl", lines)
    _import_stopped_after(src, stop_after, monkeypatch)
    with open_writer() as store:
        report = imports.import_file(store, src, "testbox")
    assert report.resumed_from > 0
    assert report.skipped == {"line over 64 MB": 1}, stop_after
    assert len(_stored(recall_home)) == len(lines) - 1
