"""Where ranking lists meet: `recall.search.rank` and near-duplicate collapse in `recall search`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from clihelp import call, call_json
from recall.search.query import parse
from recall.search.rank import distinct, merge

PASTED = (
    "The deploy failed because the JetStream consumer ran out of ack budget; "
    "raise max_ack_pending to 2000 and redeploy."
)


def test_merge_ranks_candidates_from_different_indexes_by_bm25() -> None:
    # (source, text, that index's own score): the scores are not comparable.
    candidates = [
        ("laptop", "lunch plans for friday", 9.0),
        ("desk", "kafka retry backoff tuned to 30s", 0.2),
        ("memory", "we prefer exponential retry backoff", 3.0),
        ("desk", "kafka partitions", 5.0),
    ]
    ranked = merge("retry backoff kafka", candidates, lambda c: c[1])
    assert [c[1] for _, c in ranked][:2] == [candidates[1][1], candidates[2][1]]
    assert [s for s, _ in ranked] == sorted((s for s, _ in ranked), reverse=True)
    assert ranked[-1] == (0.0, candidates[0])
    assert len(merge("kafka", candidates, lambda c: c[1], limit=2)) == 2


def test_merge_keeps_the_best_of_near_duplicates() -> None:
    candidates = [
        "other words entirely",
        "retry: the backoff doubles",
        "Retry, the backoff doubles!",
    ]
    ranked = merge("backoff", candidates, str)
    assert [c for _, c in ranked] == ["retry: the backoff doubles", "other words entirely"]


def test_merge_ignores_excluded_terms() -> None:
    assert parse('kafka -zookeeper "ack budget" pre*').words() == "kafka ack budget pre"
    ranked = merge(parse("kafka -zookeeper").words(), ["kafka zookeeper", "kafka raft"], str)
    assert ranked[0][0] == ranked[1][0]


def test_distinct_fetches_texts_in_batches_and_keeps_order() -> None:
    rows = [f"r{i}" for i in range(100)]
    texts = {r: ("same text" if int(r[1:]) % 2 else f"unique {r}") for r in rows}
    texts["r4"] = None  # type: ignore[assignment]  # a row without text is never a duplicate
    asked: list[int] = []

    def fetch(batch: object) -> list[str | None]:
        asked.append(len(batch))  # type: ignore[arg-type]
        return [texts[r] for r in batch]  # type: ignore[attr-defined]

    out = distinct(rows, fetch, limit=5)
    assert out == ["r0", "r1", "r2", "r4", "r6"]
    assert asked == [20]
    # 50 even rows (r4 without text) and the first "same text": fewer than asked for.
    everything = distinct(rows, fetch, limit=60)
    assert len(everything) == 51 and everything[-1] == "r98"
    assert distinct([], fetch, limit=5) == []


@pytest.fixture
def pasted_sessions(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Five sessions: the same text pasted into three, a different one, CJK in two."""
    lines = []
    for n, text in enumerate(
        [PASTED, PASTED.upper(), PASTED + " Done.", "JetStream is our queue of choice."]
    ):
        lines.append({"session": f"s{n}", "role": "user", "text": text, "title": f"t{n}"})
        lines.append({"session": f"s{n}", "role": "assistant", "text": "ok", "agent": "claude"})
    lines.append({"session": "cjk1", "role": "user", "text": "設定の話。日本語は少しだけ。"})
    lines.append({"session": "cjk2", "role": "user", "text": "日本語の翻訳、日本語の校正、日本語"})
    path = tmp_path / "import.jsonl"
    path.write_text("\n".join(json.dumps(x, ensure_ascii=False) for x in lines) + "\n")
    code, _, err = call(capsys, "ingest", "--format", "jsonl", str(path))
    assert code == 0, err


def test_search_collapses_the_same_text_pasted_into_several_sessions(
    pasted_sessions: None, capsys: pytest.CaptureFixture[str]
) -> None:
    out = call_json(capsys, "search", "JetStream")
    ids = [r["session_id"] for r in out["results"]]
    assert len(ids) == 2 and "s3" in ids
    assert len({"s0", "s1", "s2"} & set(ids)) == 1
    assert out["found"] == 2
    assert set(out["results"][0]) >= {
        "session_id", "agent", "project", "computer", "title", "date", "score", "snippet",
        "source", "message_index",
    }  # fmt: skip
    assert call_json(capsys, "search", "JetStream", "--limit", "1")["found"] == 1


def test_search_ranks_cjk_substring_hits_by_bm25(
    pasted_sessions: None, capsys: pytest.CaptureFixture[str]
) -> None:
    out = call_json(capsys, "search", "日本語")
    assert [r["session_id"] for r in out["results"]] == ["cjk2", "cjk1"]
    scores = [r["score"] for r in out["results"]]
    assert scores[0] > scores[1] > 0
    assert "日本語" in out["results"][0]["snippet"]


def test_search_takes_a_query_from_a_non_utf8_argv(
    pasted_sessions: None, capsys: pytest.CaptureFixture[str]
) -> None:
    # Python decodes a stray \xff in argv to a lone surrogate; SQLite cannot take one.
    out = call_json(capsys, "search", "JetStream \udcff")
    assert out["query"] == "JetStream \ufffd"
    assert out["found"] == 2
