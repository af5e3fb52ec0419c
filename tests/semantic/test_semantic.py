"""Semantic and hybrid search as a user meets them: embed, search by meaning, degrade gracefully."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from clihelp import call, call_json, run
from semhelp import model_files, write_import


@pytest.fixture
def corpus(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    src = write_import(tmp_path / "chats.jsonl")
    code, _, err = call(capsys, "ingest", "--format", "jsonl", str(src))
    assert code == 0, err
    return src


def _embed(capsys: pytest.CaptureFixture[str]) -> str:
    code, out, err = call(capsys, "embed")
    assert code == 0, err
    return out


@pytest.mark.needs_model
def test_semantic_search_finds_meaning_without_shared_words(
    corpus: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert "embedded 8 messages" in _embed(capsys)  # both sides: decisions are in replies
    out = call_json(capsys, "search", "library for data analysis", "--mode", "semantic", "--json")
    assert out["results"][0]["session_id"] == "s-pandas"
    out = call_json(capsys, "search", "gardening advice", "--mode", "semantic", "--json")
    assert out["results"][0]["session_id"] == "s-garden"


@pytest.mark.needs_model
def test_hybrid_is_the_default_once_embedded_and_keeps_the_json_contract(
    corpus: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _embed(capsys)
    code, out, err = call(capsys, "search", "library for data analysis", "--json")
    assert code == 0 and err == ""  # no "semantic is off" note: hybrid ran
    doc = json.loads(out)
    assert set(doc) == {"query", "found", "results", "errors", "corrected"}
    top = doc["results"][0]
    assert top["session_id"] == "s-pandas"
    assert set(top) >= {"session_id", "agent", "project", "computer", "title", "date", "score"}
    assert top["source"] == "session" and top["message_index"] in (0, 1)  # a turn of s-pandas
    # keyword mode alone cannot find it: no word in common
    kw = call_json(capsys, "search", "library for data analysis", "--mode", "keyword", "--json")
    assert "s-pandas" not in [r["session_id"] for r in kw["results"]]


@pytest.mark.needs_model
@pytest.mark.parametrize("fusion", ["rrf", "weighted", "0.4/0.6", "0.3/0.7"])
def test_every_fusion_ranks_the_exact_match_first(
    corpus: Path, capsys: pytest.CaptureFixture[str], fusion: str
) -> None:
    _embed(capsys)
    out = call_json(capsys, "search", "payment retry", "--fusion", fusion, "--json")
    assert out["results"][0]["session_id"] == "s-retry"


@pytest.mark.needs_model
def test_time_decay_prefers_recent_sessions(
    corpus: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _embed(capsys)
    # s-prefs is the newest session (March 4th), s-pandas the oldest (March 1st).
    flat = call_json(capsys, "search", "pandas preferences", "--mode", "keyword", "--json")
    decayed = call_json(
        capsys, "search", "pandas preferences", "--mode", "keyword", "--decay", "0.05", "--json"
    )
    assert {r["session_id"] for r in flat["results"]} == {"s-pandas", "s-prefs"}
    assert decayed["results"][0]["session_id"] == "s-prefs"
    assert decayed["results"][0]["score"] > decayed["results"][1]["score"]


@pytest.mark.needs_model
@pytest.mark.parametrize(
    "flags", [("--mode", "semantic"), ("--mode", "keyword", "--fusion", "weighted")]
)
def test_decay_works_on_a_single_ranking_in_every_fusion(
    corpus: Path, capsys: pytest.CaptureFixture[str], flags: tuple[str, ...]
) -> None:
    # semantic mode decays its one list through the weighted merge, which once wanted two
    _embed(capsys)
    out = call_json(capsys, "search", "pandas preferences", *flags, "--decay", "0.05", "--json")
    scores = [r["score"] for r in out["results"]]
    assert out["results"] and scores == sorted(scores, reverse=True)


def test_typo_finds_the_word_meant(corpus: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = call_json(capsys, "search", "prefernces", "--mode", "keyword", "--json")
    assert [r["session_id"] for r in out["results"]] == ["s-prefs"]
    out = call_json(capsys, "search", "editor prefernces", "--mode", "keyword", "--json")
    assert out["results"][0]["session_id"] == "s-prefs"


@pytest.mark.needs_model
def test_embed_is_resumable_and_idempotent(
    corpus: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = call(capsys, "embed", "--limit", "1")
    assert code == 0 and "embedded 1 messages" in out
    code, out, _ = call(capsys, "embed")
    assert "embedded 7 messages" in out  # the other seven turns, not the first again
    code, out, _ = call(capsys, "embed")
    assert "nothing new to embed" in out and "index holds 8 chunks" in out


@pytest.mark.needs_model
def test_new_turns_are_searchable_before_and_after_embedding(
    corpus: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _embed(capsys)
    more = tmp_path / "more.jsonl"
    more.write_text(
        json.dumps(
            {
                "session": "s-k8s",
                "role": "user",
                "text": "The kubernetes pod keeps restarting with OOMKilled",
                "timestamp": "2026-03-06T09:00:00+00:00",
            }
        )
        + "\n"
    )
    assert call(capsys, "ingest", "--format", "jsonl", str(more))[0] == 0
    # not embedded yet: keywords still find it, in the default (hybrid) mode
    out = call_json(capsys, "search", "OOMKilled", "--json")
    assert out["results"][0]["session_id"] == "s-k8s"
    _embed(capsys)
    out = call_json(capsys, "search", "container out of memory", "--mode", "semantic", "--json")
    assert out["results"][0]["session_id"] == "s-k8s"


def test_no_model_every_search_still_works_and_says_why_once(
    corpus: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    empty = tmp_path / "no-model"
    empty.mkdir()
    monkeypatch.setenv("RECALL_MODEL_DIR", str(empty))
    # asked for by name: one short line says why not, and how to get it
    for mode in (["--mode", "semantic"], ["--mode", "hybrid"]):
        code, out, err = call(capsys, "search", "payment retry", *mode, "--json")
        assert code == 0
        assert json.loads(out)["results"][0]["session_id"] == "s-retry"
        assert err.count("semantic search is off") == 1 and "recall model install" in err
        assert len(err.strip().splitlines()) == 1 and len(err) < 100
    # the default on an index never embedded, and keyword mode: keyword search as chosen,
    # nothing to say on every search (`sync` says it once)
    for mode in ([], ["--mode", "keyword"]):
        code, out, err = call(capsys, "search", "payment retry", *mode)
        assert code == 0 and err == ""
    code, _, err = call(capsys, "embed")
    assert code == 1 and "RECALL_MODEL_DIR" in err and len(err.strip().splitlines()) == 1
    code, out, err = call(capsys, "sync")
    assert code == 0 and "semantic search is off" in err


def test_embedding_none_in_config_means_keywords_only(
    corpus: Path, recall_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (recall_home / "config.toml").write_text('embedding = "none"\n')
    from recall.config import _load

    _load.cache_clear()
    code, out, err = call(capsys, "search", "payment retry", "--json")
    assert code == 0 and json.loads(out)["results"][0]["session_id"] == "s-retry"
    assert err == ""  # the user chose keywords only: nothing to say
    code, out, err = call(capsys, "search", "payment retry", "--mode", "semantic")
    assert code == 0 and 'embedding = "none"' in err  # but asked for by name, it says why
    code, out, err = call(capsys, "sync")
    assert code == 0 and "semantic" not in err and "embedded" not in out
    _load.cache_clear()


@pytest.mark.needs_model
def test_sync_embeds_and_keeps_its_summary_line(
    corpus: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = call(capsys, "sync")
    assert code == 0, err
    lines = out.strip().splitlines()
    assert lines[0].startswith("0 sessions updated from 0 changed of 0 transcripts")
    # search works before the embedding starts, and the user is told so first
    assert lines[1].startswith("Keyword search works now; embedding 8 messages")
    assert "Ctrl-C" in lines[1]
    assert lines[2].startswith("embedded 8 messages as 8 chunks")
    code, out, err = call(capsys, "sync")  # nothing new: no announcement, no model load
    assert code == 0 and "embedding" not in out.lower(), out


def test_keyword_and_hook_paths_import_no_numerical_libraries(corpus: Path) -> None:
    probe = (
        "import sys, runpy\n"
        "sys.argv = ['recall', *sys.argv[1:]]\n"
        "try:\n    runpy.run_module('recall', run_name='__main__')\n"
        "except SystemExit:\n    pass\n"
        "heavy = [m for m in ('numpy', 'onnxruntime', 'usearch', 'tokenizers') if m in sys.modules]\n"
        "sys.stderr.write('HEAVY=' + ','.join(heavy))\n"
    )
    import subprocess

    for argv in (["search", "retry", "--mode", "keyword"], ["ingest", "--event", "agent-stop"]):
        done = subprocess.run(
            [sys.executable, "-c", probe, *argv], capture_output=True, input=b"{}", check=False
        )
        assert done.stderr.decode().endswith("HEAVY="), (argv, done.stderr.decode())
    # and the default mode, before anything is embedded, does not load the model either
    done = subprocess.run([sys.executable, "-c", probe, "search", "retry"], capture_output=True)
    assert done.stderr.decode().endswith("HEAVY="), done.stderr.decode()


@pytest.mark.needs_model
def test_model_command_reports_the_model_files(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = call(capsys, "model")
    assert code == 0
    assert "384 dimensions, 256-token window, mean pooling" in out
    files = model_files()
    for path in files.paths.values():
        assert path.name in out
    assert files.model_id in out  # all-MiniLM-L6-v2-int8 for the packaged model


@pytest.mark.needs_model
def test_search_as_a_process_in_hybrid_mode(
    corpus: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _embed(capsys)
    done = run("search", "tomatoes turning yellow", "--json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["results"][0]["session_id"] == "s-garden"


@pytest.mark.needs_model
def test_hybrid_messages_mode_points_at_each_matching_message(
    corpus: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _embed(capsys)
    out = call_json(capsys, "search", "payment retry backoff", "--messages", "--json")
    hits = [(r["session_id"], r["message_index"]) for r in out["results"]]
    assert ("s-retry", 0) in hits and len(hits) == len(set(hits))
    assert all(i is not None for _, i in hits)
