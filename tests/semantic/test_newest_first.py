"""Embedding newest sessions first, and searching an index only partly embedded (issue 28)."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from clihelp import call, call_json
from recall.search.fusion import fuse, key
from recall.search.results import Result

# Oldest first. s-old is the best keyword match for the query below; s-new holds fewer
# of its words but is nearer in meaning, so it also tops the semantic list.
SESSIONS = {
    "s-old": (
        "2025-12-01",
        [
            ("user", "The kafka consumer lag keeps growing on the orders topic."),
            ("assistant", "Kafka consumer lag grows when the consumer commits too rarely."),
        ],
    ),
    "s-mid": (
        "2026-02-10",
        [
            ("user", "Which font did we pick for the landing page headline?"),
            ("assistant", "We chose Inter for headings and system fonts for body text."),
        ],
    ),
    "s-new": (
        "2026-04-20",
        [
            ("user", "Our kafka readers fall behind the producers during the nightly batch."),
            ("assistant", "Scale the reader group and raise max poll records for the batch."),
        ],
    ),
}
QUERY = "kafka consumer lag nightly"  # no session holds every word: no exact tier


def _write(path: Path) -> Path:
    lines = []
    for session, (day, turns) in SESSIONS.items():
        for i, (role, text) in enumerate(turns):
            stamp = f"{day}T10:00:{i:02d}+00:00"
            line = {"session": session, "role": role, "text": text, "timestamp": stamp}
            lines.append(json.dumps(line))
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _embedded_sessions(home: Path) -> set[str]:
    db = sqlite3.connect(home / "recall.db")
    try:
        rows = db.execute(
            "SELECT DISTINCT s.session_id FROM embedded e JOIN messages m ON m.id = e.message"
            " JOIN sessions s ON s.id = m.session"
        ).fetchall()
    finally:
        db.close()
    return {r[0] for r in rows}


@pytest.mark.needs_model
def test_the_newest_sessions_are_embedded_first_and_status_says_how_far(
    tmp_path: Path, recall_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert call(capsys, "ingest", "--format", "jsonl", str(_write(tmp_path / "h.jsonl")))[0] == 0
    status = call_json(capsys, "status", "--json")["semantic"]
    assert (status["share"], status["pending"], status["complete_since"]) == (0.0, 6, None)
    assert call(capsys, "embed", "--limit", "2")[0] == 0
    assert _embedded_sessions(recall_home) == {"s-new"}
    status = call_json(capsys, "status", "--json")["semantic"]
    assert status["embedded"] == 2 and status["pending"] == 4 and status["share"] == 0.3333
    assert status["complete_since"].startswith("2026-04-20")
    assert status["newest_pending"].startswith("2026-02-10")
    code, out, _ = call(capsys, "status")
    assert code == 0 and "33% of 6 messages embedded" in out
    assert "every session since 2026-04-20 is embedded; 4 messages to embed" in out
    assert call(capsys, "embed", "--limit", "2")[0] == 0
    assert _embedded_sessions(recall_home) == {"s-new", "s-mid"}
    assert call(capsys, "embed")[0] == 0
    status = call_json(capsys, "status", "--json")["semantic"]
    assert (status["share"], status["pending"], status["complete_since"]) == (1.0, 0, None)


@pytest.mark.needs_model
def test_hybrid_over_a_partly_embedded_index_keeps_the_keyword_order_of_the_rest(
    tmp_path: Path, recall_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert call(capsys, "ingest", "--format", "jsonl", str(_write(tmp_path / "h.jsonl")))[0] == 0
    keyword = call_json(capsys, "search", "--mode", "keyword", QUERY, "--json")["results"]
    assert [r["session_id"] for r in keyword][:2] == ["s-old", "s-new"]
    assert call(capsys, "embed", "--limit", "2")[0] == 0  # s-new only: s-old has no vector
    semantic = call_json(capsys, "search", "--mode", "semantic", QUERY, "--json")["results"]
    assert [r["session_id"] for r in semantic] == ["s-new"]
    # s-new is keyword rank 2 and semantic rank 1; s-old keyword rank 1 and unseen by the
    # semantic leg. Counting its missing vector as a last place put s-new first.
    hybrid = call_json(capsys, "search", "--mode", "hybrid", QUERY, "--json")["results"]
    assert [r["session_id"] for r in hybrid][:2] == ["s-old", "s-new"]
    messages = call_json(capsys, "search", "--mode", "hybrid", "--messages", QUERY, "--json")
    assert messages["results"][0]["session_id"] == "s-old"


def _r(sid: str, score: float) -> Result:
    return Result(sid, "a", None, "pc", None, None, score, sid)


def test_a_result_the_semantic_list_could_not_hold_is_not_ranked_down_for_it() -> None:
    keyword = [_r("old", 9.0), _r("new", 5.0), _r("other", 1.0)]
    semantic = [_r("new", 0.7), _r("other", 0.5)]
    for fusion in ("rrf", "weighted", "0.3/0.7"):
        plain = [r.session_id for r in fuse([keyword, semantic], fusion, 10)]
        assert plain[0] == "new"  # "old" lacked a vector and lost to a lower keyword rank
        fair = fuse([keyword, semantic], fusion, 10, unseen={key(keyword[0])})
        assert [r.session_id for r in fair][:2] == ["old", "new"]
        assert [r.score for r in fair] == sorted((r.score for r in fair), reverse=True)
