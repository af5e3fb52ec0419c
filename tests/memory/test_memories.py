"""Memories: remember, search at once, importance in the ranking, merging, redaction, forget, edit."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from clihelp import call, run


def _json(capsys: pytest.CaptureFixture[str], *argv: str) -> dict:
    code, out, err = call(capsys, *argv)
    assert code == 0, err
    return json.loads(out)


def test_remember_then_search_finds_it_at_once_across_processes() -> None:
    done = run("remember", "The staging database is called heron", "-c", "fact", "-i", "7")
    assert done.returncode == 0, done.stderr
    found = run("search", "heron", "--json")
    assert found.returncode == 0, found.stderr
    results = json.loads(found.stdout)["results"]
    assert [r["source"] for r in results] == ["memory"]
    assert results[0]["snippet"] == "The staging database is called heron"
    assert results[0]["category"] == "fact" and results[0]["importance"] == 7
    listed = run("memories", "search", "heron", "--json")
    assert json.loads(listed.stdout)["memories"][0]["text"].endswith("heron")


def test_importance_orders_memories_whose_relevance_ties(
    capsys: pytest.CaptureFixture[str],
) -> None:
    call(capsys, "remember", "lunch spot is the noodle bar", "-i", "2")
    call(capsys, "remember", "lunch spot is the taco place", "-i", "9")
    call(capsys, "remember", "lunch spot is the salad shop", "-i", "5")
    got = _json(capsys, "memories", "search", "lunch", "spot", "--json")
    assert [m["importance"] for m in got["memories"]] == [9, 5, 2]
    got = _json(capsys, "search", "lunch", "spot", "--scope", "memories", "--json")
    assert [r["importance"] for r in got["results"]] == [9, 5, 2]


def test_relevance_still_beats_a_small_importance_lead(capsys: pytest.CaptureFixture[str]) -> None:
    call(capsys, "remember", "kafka kafka consumer lag alert on kafka", "-i", "4")
    call(
        capsys,
        "remember",
        "kafka is mentioned once among many other unrelated words here",
        "-i",
        "6",
    )
    got = _json(capsys, "memories", "search", "kafka", "--json")
    assert got["memories"][0]["importance"] == 4


def test_a_near_duplicate_is_merged_not_repeated(capsys: pytest.CaptureFixture[str]) -> None:
    first = _json(
        capsys,
        "remember",
        "User prefers TypeScript over JavaScript for new code",
        "-c",
        "preference",
        "-i",
        "6",
        "--json",
    )
    again = _json(
        capsys,
        "remember",
        "user prefers typescript over javascript for new code!",
        "-c",
        "preference",
        "-i",
        "8",
        "--json",
    )
    assert again["merged"] is True
    assert again["memory"]["id"] == first["memory"]["id"]
    assert again["memory"]["importance"] == 8 and again["memory"]["merged"] == 1
    other = _json(capsys, "remember", "User prefers Go for command line tools", "--json")
    assert other["merged"] is False
    assert _json(capsys, "memories", "list", "--json")["found"] == 2


def test_secrets_are_redacted_before_a_memory_is_stored(
    capsys: pytest.CaptureFixture[str], recall_home: Path
) -> None:
    secret = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
    call(capsys, "remember", f"the CI token is {secret}")
    listed = _json(capsys, "memories", "list", "--json")
    assert secret not in json.dumps(listed) and "[REDACTED:" in listed["memories"][0]["text"]
    db = sqlite3.connect(recall_home / "recall.db")
    assert db.execute(
        "SELECT count(*) FROM memories WHERE text LIKE ?", (f"%{secret}%",)
    ).fetchone() == (0,)


def test_forget_deletes_a_memory_for_good(
    capsys: pytest.CaptureFixture[str], recall_home: Path
) -> None:
    kept = _json(capsys, "remember", "the cat is called Miso", "--json")["memory"]
    assert call(capsys, "memories", "forget", str(kept["id"]))[0] == 0
    code, out, _ = call(capsys, "search", "Miso")
    assert code == 1 and "No results" in out
    raw = (recall_home / "recall.db").read_bytes()
    assert b"Miso" not in raw  # compacted: no copy left in the file
    assert call(capsys, "memories", "forget", "999")[0] == 1


def test_edit_changes_what_search_finds(capsys: pytest.CaptureFixture[str]) -> None:
    m = _json(capsys, "remember", "deploys happen on Tuesday", "--json")["memory"]
    assert (
        call(
            capsys,
            "memories",
            "edit",
            str(m["id"]),
            "--text",
            "deploys happen on Thursday",
            "-i",
            "9",
        )[0]
        == 0
    )
    assert _json(capsys, "search", "Thursday", "--json")["found"] == 1
    assert _json(capsys, "search", "Tuesday", "--mode", "keyword", "--json")["found"] == 0
    assert _json(capsys, "memories", "list", "--json")["memories"][0]["importance"] == 9


def test_edit_without_options_opens_the_editor(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    m = _json(capsys, "remember", "the office wifi is upstairs", "--json")["memory"]
    editor = tmp_path / "ed.sh"
    editor.write_text('#!/bin/sh\nprintf "the office wifi is downstairs" > "$1"\n')
    editor.chmod(0o755)
    monkeypatch.setenv("EDITOR", str(editor))
    monkeypatch.setattr("recall.cli.editor.has_terminal", lambda: True)
    monkeypatch.delenv("VISUAL", raising=False)
    assert call(capsys, "memories", "edit", str(m["id"]))[0] == 0
    assert _json(capsys, "memories", "search", "downstairs", "--json")["found"] == 1


@pytest.mark.parametrize(
    "argv",
    [
        ("remember", "x", "--importance", "11"),
        ("remember", "x", "--importance", "0"),
        ("remember", "x", "--category", "gossip"),
        ("remember", "   "),
        ("memories", "search", "--limit", "0", "x"),
    ],
)
def test_bad_input_is_a_usage_error(
    capsys: pytest.CaptureFixture[str], argv: tuple[str, ...]
) -> None:
    code, _, err = call(capsys, *argv)
    assert code == 2
    assert err.strip().splitlines()[-1].startswith("recall")


def test_list_filters_by_category_and_orders_by_importance(
    capsys: pytest.CaptureFixture[str],
) -> None:
    call(capsys, "remember", "wants to ship v2 by March", "-c", "goal", "-i", "6")
    call(capsys, "remember", "Jane reviews the billing code", "-c", "relationship", "-i", "8")
    call(capsys, "remember", "wants a dark terminal theme", "-c", "preference", "-i", "9")
    got = _json(capsys, "memories", "list", "--json")
    assert [m["importance"] for m in got["memories"]] == [9, 8, 6]
    only = _json(capsys, "memories", "list", "-c", "goal", "--json")
    assert [m["category"] for m in only["memories"]] == ["goal"]


def test_a_rescan_redacts_memories_and_file_chunks_with_new_rules(
    capsys: pytest.CaptureFixture[str], recall_home: Path
) -> None:
    from recall.config import _load

    call(capsys, "remember", "the door code is acme_0123456789abcdef0123456789abcdef")
    (recall_home / "MEMORY.md").write_text(
        "# Access\n\nacme_0123456789abcdef0123456789abcdef opens it\n"
    )
    assert call(capsys, "sync", "-q", "--no-embed")[0] == 0
    (recall_home / "config.toml").write_text(
        '[[redact.extra]]\nname = "acme-token"\npattern = "acme_[a-z0-9]{32}"\n'
    )
    _load.cache_clear()
    assert call(capsys, "redact", "--rescan")[0] == 0
    raw = (recall_home / "recall.db").read_bytes()
    assert b"acme_0123456789abcdef" not in raw
    got = _json(capsys, "search", "opens", "--json")["results"]
    assert "[REDACTED:acme-token]" in got[0]["snippet"]


def test_every_near_duplicate_the_core_sees_is_found_by_the_probe() -> None:
    """`remember` looks only at memories holding one of a few of the new text's words;
    whatever the wording, a text the core's dedup calls a duplicate is merged."""
    from hypothesis import given, settings
    from hypothesis import strategies as st

    from recall import _accel
    from recall.memory.memories import remember
    from recall.store import open_writer

    words = st.lists(
        st.sampled_from([f"w{n}" + "x" * (n % 7) for n in range(60)]), min_size=1, max_size=40
    )
    counter = iter(range(10**6))
    with open_writer() as store:

        @settings(max_examples=50, deadline=None)
        @given(words, st.sets(st.integers(0, 39), max_size=4), words.map(lambda w: w[:3]))
        def check(first: list[str], drop: set[int], extra: list[str]) -> None:
            # the second text is the first with a few words dropped and a few added:
            # sometimes a near-duplicate, sometimes not
            second = [w for i, w in enumerate(first) if i not in drop] + extra
            a, b = " ".join(first), " ".join(second) or "empty"
            project = f"p{next(counter)}"  # near-duplicates merge only within a project
            remember(store, a, "fact", 5, project)
            _, merged = remember(store, b, "fact", 5, project)
            assert merged == (len(_accel.dedup([a, b], 0.8)) == 1)

        check()


def test_a_typo_still_finds_the_memory(
    capsys: pytest.CaptureFixture[str], recall_home: Path
) -> None:
    call(capsys, "remember", "editor preferences: dark theme and vim keys", "-c", "preference")
    got = _json(capsys, "memories", "search", "prefernces", "--json")
    assert [m["category"] for m in got["memories"]] == ["preference"]
    (recall_home / "MEMORY.md").write_text(
        "# Setup\n\nThe kubernetes cluster lives in Frankfurt.\n"
    )
    assert call(capsys, "sync", "-q", "--no-embed")[0] == 0
    got = _json(
        capsys, "search", "kubernetse", "--scope", "memories", "--mode", "keyword", "--json"
    )
    assert [r["source"] for r in got["results"]] == ["file"]
