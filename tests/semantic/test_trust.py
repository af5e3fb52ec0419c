"""Results a user can trust: nothing for nonsense, no tiny texts, exact matches first."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from clihelp import call, call_json
from recall.search.fusion import fuse
from recall.search.results import Result
from recall.semantic.meaning import word_count, worth_embedding
from semhelp import CORPUS, write_import

TINY = ["``", ".", "ct(U-U, U+V).", "Hello", "ok thanks"]
# Sessions about retrying, close in meaning to "quokka retry"; only s-flag, a session about
# page layout, holds both words.
RETRIES = {
    "s-retry2": [("user", "The upload worker should retry when S3 times out, with backoff.")],
    "s-retry3": [("user", "Retry the webhook delivery three times before giving up on it.")],
    "s-hooks": [("user", "Our webhook requests keep timing out; try again with a longer wait.")],
    "s-flag": [
        (
            "user",
            "The sidebar grid collapses on narrow screens. Move the quokka logo into the header,"
            " set the flexbox gap to 12px, raise the webhook timeout retry count in layout.toml,"
            " and rerun the visual snapshots until every page renders the same in Safari.",
        )
    ],
    "s-tiny": [("user", t) for t in TINY],
}


@pytest.fixture
def embedded(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    src = write_import(tmp_path / "chats.jsonl", {**CORPUS, **RETRIES})
    assert call(capsys, "ingest", "--format", "jsonl", str(src))[0] == 0
    code, _, err = call(capsys, "embed")
    assert code == 0, err
    return src


def test_the_word_rule_counts_words_not_characters() -> None:
    assert [word_count(t) for t in TINY] == [0, 0, 1, 1, 2]
    assert not any(worth_embedding(t) for t in TINY)
    assert worth_embedding("use pandas please")
    assert worth_embedding("データベースを選ぶ")  # CJK: a character is about a word
    assert not worth_embedding("はい")


@pytest.mark.parametrize("mode", [None, "keyword", "semantic", "hybrid"])
@pytest.mark.parametrize("query", ["", "   ", "...", "-- !"])
def test_a_query_without_words_is_a_usage_error_in_every_mode(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], mode: str | None, query: str
) -> None:
    src = write_import(tmp_path / "chats.jsonl")
    assert call(capsys, "ingest", "--format", "jsonl", str(src))[0] == 0
    code, out, err = call(capsys, "search", *(["--mode", mode] if mode else []), "--", query)
    assert code == 2 and out == ""
    assert len(err.strip().splitlines()) == 1 and "words" in err


@pytest.mark.needs_model
@pytest.mark.parametrize("mode", [None, "keyword", "semantic", "hybrid"])
@pytest.mark.parametrize("query", ["zzzqqqxx", "asdkjhqwe zzxq"])
def test_nonsense_finds_nothing_once_vectors_exist(
    embedded: Path, capsys: pytest.CaptureFixture[str], mode: str | None, query: str
) -> None:
    code, out, _ = call(capsys, "search", *(["--mode", mode] if mode else []), query)
    assert code == 1 and out.startswith("No results")
    found = call_json(capsys, "search", *(["--mode", mode] if mode else []), query, "--json")
    assert found["found"] == 0


@pytest.mark.needs_model
def test_tiny_texts_get_no_vector_and_old_ones_never_surface(
    embedded: Path, recall_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from recall.semantic import index, vectors
    from recall.semantic.provider import get_encoder
    from recall.store import open_writer

    db = sqlite3.connect(recall_home / "recall.db")
    tiny = db.execute(
        "SELECT count(*) FROM chunks c JOIN messages m ON m.id = c.message"
        f" WHERE m.text IN ({','.join('?' * len(TINY))})",
        TINY,
    ).fetchone()[0]
    assert tiny == 0
    # Vectors an older recall stored for tiny texts are passed over at query time.
    enc = get_encoder()
    with open_writer() as store, store.transaction() as conn:
        rows = conn.execute(
            f"SELECT id, text FROM messages WHERE text IN ({','.join('?' * len(TINY))})", TINY
        ).fetchall()
        vecs = enc.embed([t for _, t in rows])
        chunks = [(mid, 0, 0, len(t)) for mid, t in rows]
        vectors.store(conn, enc.model_id, dict(rows), [], chunks, vecs)
    with open_writer() as store:
        index.build(store.conn, enc.model_id, enc.dims)
    for query in ("ct(U-U, U+V).", "Hello there", "ok thanks"):
        out = call_json(capsys, "search", "--mode", "semantic", query, "--json")
        assert "s-tiny" not in [r["session_id"] for r in out["results"]], query
    # ...while keyword search still finds them.
    out = call_json(capsys, "search", "--mode", "keyword", "Hello", "--json")
    assert [r["session_id"] for r in out["results"]] == ["s-tiny"]


@pytest.mark.needs_model
@pytest.mark.parametrize("query", ["webhook timeout retry", "quokka"])
def test_an_exact_keyword_match_is_the_first_hybrid_result(
    embedded: Path, capsys: pytest.CaptureFixture[str], query: str
) -> None:
    # s-retry3 and s-hooks are nearer in meaning (s-flag is about page layout), and
    # without the exact tier s-retry3 came first: keyword rank 2 + semantic rank 1.
    kw = call_json(capsys, "search", "--mode", "keyword", query, "--json")
    assert kw["results"][0]["session_id"] == "s-flag"
    for mode in (None, "hybrid"):
        out = call_json(capsys, "search", *(["--mode", mode] if mode else []), query, "--json")
        assert out["results"][0]["session_id"] == "s-flag"
        scores = [r["score"] for r in out["results"]]
        assert scores == sorted(scores, reverse=True)  # one ordering: scores fall
    phrase = call_json(capsys, "search", '"webhook delivery"', "--json")
    assert phrase["results"][0]["session_id"] == "s-retry3"


def _r(sid: str, score: float) -> Result:
    return Result(sid, "a", None, "pc", None, None, score, sid)


def test_exact_keyword_hits_rank_above_semantic_neighbours_in_every_fusion() -> None:
    keyword = [_r("exact", 9.0), _r("partial", 5.0), _r("other", 1.0)]
    semantic = [_r("partial", 0.7), _r("near", 0.6), _r("other", 0.5), _r("exact", 0.2)]
    for fusion in ("rrf", "weighted", "0.3/0.7"):
        without = [r.session_id for r in fuse([keyword, semantic], fusion, 10)]
        assert without[0] == "partial"  # what the exact tier is there to fix
        ranked = fuse([keyword, semantic], fusion, 10, exact=1)
        assert [r.session_id for r in ranked][:2] == ["exact", "partial"]
        assert [r.score for r in ranked] == sorted((r.score for r in ranked), reverse=True)
