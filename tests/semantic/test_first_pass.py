"""The first pass over the newest month: searchable by meaning soon, read whole after (issue 28)."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from clihelp import call, call_json
from recall.semantic import firstpass

FILLER = (
    "Then we went through the rest of the release checklist, one item at a time: the"
    " changelog entry, the version bump in both manifests, the screenshots for the store"
    " page, the translated strings that were still missing, and the smoke test on the"
    " oldest phone we still support, which took the better part of the afternoon."
)
OPENINGS = [
    "The invoice PDF renderer drops the company logo when the page is printed in landscape.",
    "Our kubernetes readiness probe kills the pod before the JVM finishes warming up.",
    "The garden irrigation timer skips Sundays because the cron day field starts at zero.",
    "Sourdough starter doubled in four hours once the kitchen stayed above twenty degrees.",
]


def _history(path: Path) -> Path:
    """An old session and, in the newest month, long messages whose topic is in their
    opening and whose rest is the same filler for all of them."""
    lines: list[dict[str, Any]] = []
    for i in range(6):
        text = f"An older note about harbour ferries and tide tables, number {i}, kept for later."
        lines.append(
            {
                "session": "old",
                "role": "user",
                "text": text,
                "timestamp": f"2025-06-01T10:00:0{i}+00:00",
            }
        )
    for n, head in enumerate(OPENINGS):
        for i in range(4):
            role = ("user", "assistant")[i % 2]
            text = head if i == 0 else f"Reply {i} on that. " + " ".join([FILLER] * 3)
            if i == 2:
                text = head + " " + " ".join([FILLER] * 3)
            lines.append(
                {
                    "session": f"new{n}",
                    "role": role,
                    "text": text,
                    "timestamp": f"2026-03-0{n + 1}T10:00:0{i}+00:00",
                }
            )
    path.write_text("\n".join(json.dumps(x) for x in lines) + "\n", encoding="utf-8")
    return path


@pytest.fixture
def month(tmp_path: Path, recall_home: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    """The history above, indexed with both roles to embed; its data directory."""
    _both_roles(recall_home)
    assert call(capsys, "ingest", "--format", "jsonl", str(_history(tmp_path / "h.jsonl")))[0] == 0
    return recall_home


def _both_roles(home: Path) -> None:
    from recall.config import _load

    home.mkdir(parents=True, exist_ok=True)
    (home / "config.toml").write_text('embed_roles = ["user", "assistant"]\n')
    _load.cache_clear()


def _chunks(home: Path) -> dict[tuple[int, int], tuple[int, int, bytes]]:
    db = sqlite3.connect(home / "recall.db")
    try:
        rows = db.execute("SELECT message, piece, start, end, vector FROM chunks").fetchall()
    finally:
        db.close()
    return {(r[0], r[1]): (r[2], r[3], r[4]) for r in rows}


def _search(capsys: pytest.CaptureFixture[str], query: str) -> list[dict[str, Any]]:
    args = ("search", "--mode", "semantic", "--messages", "--json", query)
    results: list[dict[str, Any]] = call_json(capsys, *args)["results"]
    return results


def test_the_cut_is_the_longest_opening_that_fits_the_time() -> None:
    lengths = [100, 300, 1_000, 5_000]
    assert firstpass.fitting_cut(lengths, 2_000) == 800  # 100 + 300 + 2 x 800
    assert firstpass.fitting_cut(lengths, 10_000) == 5_000  # everything fits
    assert firstpass.fitting_cut(lengths, 0) == firstpass.MIN_CUT  # never less than this


def test_an_opening_ends_at_a_word_break() -> None:
    text = "alpha beta gamma delta epsilon"
    assert firstpass.opening(text, 0, len(text), 13) == 10  # "alpha beta", not "alpha beta ga"
    assert firstpass.opening(text, 0, len(text), 100) == len(text)
    assert firstpass.opening("x" * 50, 0, 50, 20) == 20  # no break: cut where it falls
    assert firstpass.opening("ab cd " + "y" * 40, 6, 46, 20) == 26  # within its own piece


def _first_pass_then_stop(monkeypatch: pytest.MonkeyPatch) -> Callable[[], None]:
    """Force a first pass (no time: the month is read in part; the run's first batch is
    two messages) that the user stops as soon as it is done; returns what puts the run
    back as it was."""
    from recall.semantic import embedjob

    saved = (embedjob.BATCH_MESSAGES, firstpass.SECONDS, firstpass.run)
    monkeypatch.setattr(embedjob, "BATCH_MESSAGES", 2)
    monkeypatch.setattr(firstpass, "SECONDS", 0.0)
    real = firstpass.run

    def then_stop(*args: Any, **kwargs: Any) -> Any:
        real(*args, **kwargs)
        raise KeyboardInterrupt

    monkeypatch.setattr(firstpass, "run", then_stop)

    def restore() -> None:
        monkeypatch.setattr(embedjob, "BATCH_MESSAGES", saved[0])
        monkeypatch.setattr(firstpass, "SECONDS", saved[1])
        monkeypatch.setattr(firstpass, "run", saved[2])

    return restore


@pytest.mark.needs_model
def test_the_month_is_searchable_from_openings_then_read_whole(
    tmp_path: Path, month: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    recall_home = month
    restore = _first_pass_then_stop(monkeypatch)  # the first batch: two messages
    code, _, err = call(capsys, "embed")
    assert code == 130 and "newest month" in err
    openings = {k: v for k, v in _chunks(recall_home).items() if k[1] == -1}
    # the newest session's first two messages were read whole (the first batch); every
    # other long message of the month from its opening
    assert len(openings) == 3 * 3 + 2
    assert all(end - start <= firstpass.MIN_CUT for start, end, _ in openings.values())

    status = call_json(capsys, "status", "--json")["semantic"]
    assert status["skimmed"] == 11 and status["searchable_since"].startswith("2026-03-01")
    assert status["complete_since"] is None  # the newest session is not read whole yet
    code, out, _ = call(capsys, "status")
    assert "every session since 2026-03-01 is searchable by meaning" in out
    assert "11 messages from their opening until read whole" in out

    # the opening is what the question is about: found by meaning before it is read whole
    query = "the kubernetes probe restarts the pod while java is still starting"
    hits = _search(capsys, query)
    found = {(h["session_id"], h["message_index"]) for h in hits}
    assert hits[0]["session_id"] == "new1" and ("new1", 2) in found

    restore()
    monkeypatch.setattr(firstpass, "SECONDS", 1e9)
    code, out, _ = call(capsys, "embed")
    assert code == 0 and "first pass" not in out
    read = _chunks(recall_home)
    assert not [k for k in read if k[1] == -1]  # the openings went once all was read whole
    status = call_json(capsys, "status", "--json")["semantic"]
    assert (status["pending"], status["skimmed"]) == (0, 0)

    # the same index embedded whole from the start: the same chunks, spans and vectors
    fresh = tmp_path / "fresh"
    monkeypatch.setenv("RECALL_HOME", str(fresh))
    _both_roles(fresh)
    assert call(capsys, "ingest", "--format", "jsonl", str(tmp_path / "h.jsonl"))[0] == 0
    assert call(capsys, "embed")[0] == 0
    whole = _chunks(fresh)
    assert read.keys() == whole.keys()
    assert all(read[k][:2] == whole[k][:2] for k in read)
    after = _search(capsys, query)
    monkeypatch.setenv("RECALL_HOME", str(recall_home))
    again = _search(capsys, query)
    assert [(h["session_id"], h["message_index"]) for h in again] == [
        (h["session_id"], h["message_index"]) for h in after
    ]


@pytest.mark.needs_model
def test_no_first_pass_when_the_month_fits_the_time(
    month: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from recall.semantic import embedjob

    recall_home = month
    monkeypatch.setattr(embedjob, "BATCH_MESSAGES", 2)
    ran: list[object] = []
    monkeypatch.setattr(firstpass, "run", lambda *a, **k: ran.append(a))
    monkeypatch.setattr(firstpass, "SECONDS", 0.0)
    code, out, _ = call(capsys, "embed", "--limit", "5")  # asked for: whole, newest first
    assert code == 0 and not ran and out.startswith("embedded 5 messages")
    monkeypatch.setattr(firstpass, "SECONDS", 45.0)
    code, out, _ = call(capsys, "embed")  # the rest of a small month takes a second
    assert code == 0 and not ran and "first pass" not in out
    assert not [k for k in _chunks(recall_home) if k[1] == -1]


def _drop_date(path: Path, session: str) -> Path:
    lines = [json.loads(x) for x in path.read_text().splitlines()]
    kept = [x for x in lines if x["session"] != session]
    path.write_text("\n".join(json.dumps(x) for x in kept) + "\n", encoding="utf-8")
    return path


@pytest.mark.needs_model
def test_a_history_all_within_the_month_is_all_searchable_after_the_first_pass(
    tmp_path: Path,
    recall_home: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    _both_roles(recall_home)
    history = _drop_date(_history(tmp_path / "h.jsonl"), "old")  # a new user: one month
    assert call(capsys, "ingest", "--format", "jsonl", str(history))[0] == 0
    _first_pass_then_stop(monkeypatch)
    assert call(capsys, "embed")[0] == 130
    status = call_json(capsys, "status", "--json")["semantic"]
    assert status["skimmed"] == 11 and status["searchable_since"].startswith("2026-03-01")
    out = call(capsys, "status")[1]
    assert "every session since 2026-03-01 is searchable by meaning" in out


@pytest.mark.needs_model
def test_openings_left_by_a_run_stopped_as_it_tidied_up_go_with_the_next(
    month: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from recall.semantic import vectors

    recall_home = month
    restore = _first_pass_then_stop(monkeypatch)
    assert call(capsys, "embed")[0] == 130
    restore()
    drop = vectors.drop_read_openings

    def stopped(*_a: Any) -> int:
        raise KeyboardInterrupt

    monkeypatch.setattr(vectors, "drop_read_openings", stopped)
    assert call(capsys, "embed")[0] == 130  # everything read whole, the openings kept
    assert len([k for k in _chunks(recall_home) if k[1] == -1]) == 11
    monkeypatch.setattr(vectors, "drop_read_openings", drop)
    code, out, _ = call(capsys, "embed")  # nothing to embed: it tidies up all the same
    assert code == 0 and out.startswith("nothing new to embed")
    assert not [k for k in _chunks(recall_home) if k[1] == -1]
    status = call_json(capsys, "status", "--json")["semantic"]
    assert status["chunks"] == len(_chunks(recall_home)) and status["skimmed"] == 0


def test_a_message_changed_while_it_was_embedded_is_left_for_the_next_run(
    tmp_path: Path, recall_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import numpy as np

    from recall.semantic import vectors
    from recall.store import open_writer

    assert call(capsys, "ingest", "--format", "jsonl", str(_history(tmp_path / "h.jsonl")))[0] == 0
    with open_writer() as store:
        first, second = store.conn.execute(
            "SELECT id, text FROM messages ORDER BY id LIMIT 2"
        ).fetchall()
        read = {first[0]: first[1], second[0]: second[1]}
        with store.transaction() as db:  # a redaction lands between reading and storing
            db.execute("UPDATE messages SET text = 'redacted' WHERE id = ?", (second[0],))
        rows = [(first[0], 0, 0, 5), (second[0], vectors.OPENING, 0, 5)]
        with store.transaction() as db:
            vectors.store(db, "m", read, list(read), rows, np.ones((2, 4), dtype=np.float32))
        stored = store.conn.execute("SELECT message FROM chunks").fetchall()
        done = store.conn.execute("SELECT message FROM embedded").fetchall()
    assert stored == [(first[0],)] and done == [(first[0],)]


def test_the_month_counts_back_from_now_when_a_session_is_dated_in_the_future(
    tmp_path: Path,
    recall_home: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from datetime import datetime

    from recall.semantic import vectors
    from recall.store import open_writer

    history = _history(tmp_path / "h.jsonl")
    with history.open("a", encoding="utf-8") as out:
        text = "A session from a clock set decades ahead, about lighthouse keepers."
        line = {"session": "future", "role": "user", "text": text}
        out.write(json.dumps({**line, "timestamp": "2099-01-01T00:00:00+00:00"}) + "\n")
    assert call(capsys, "ingest", "--format", "jsonl", str(history))[0] == 0
    now = datetime.fromisoformat("2026-03-20T10:00:00+00:00").timestamp()
    monkeypatch.setattr(vectors.time, "time", lambda: now)
    with open_writer() as store:
        month = vectors.month_unread(store.conn, "m", ["user", "assistant"], 30)
    # the four sessions of March 2026 and the one dated 2099; not the old one of 2025
    assert len(month) == 4 * 4 + 1
