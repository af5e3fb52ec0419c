"""With a model, memories and file chunks are embedded as they are written: found by meaning."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from clihelp import call


def _sources(capsys: pytest.CaptureFixture[str], *argv: str) -> list[tuple[str, str]]:
    code, out, err = call(capsys, "search", *argv, "--json")
    assert code == 0, err
    return [(r["source"], r["snippet"]) for r in json.loads(out)["results"]]


@pytest.mark.needs_model
def test_remember_then_hybrid_finds_it_by_meaning_at_once(
    capsys: pytest.CaptureFixture[str],
) -> None:
    call(capsys, "remember", "The user's favourite colour is deep blue", "-c", "preference")
    call(capsys, "remember", "Standups are at 9:30 every weekday")
    assert _sources(capsys, "which shade is preferred", "--mode", "keyword") == []
    found = _sources(capsys, "which shade is preferred", "--scope", "memories")
    assert found[0] == ("memory", "The user's favourite colour is deep blue")


@pytest.mark.needs_model
def test_file_chunks_are_found_by_meaning_after_sync(
    capsys: pytest.CaptureFixture[str], recall_home: Path
) -> None:
    recall_home.mkdir(parents=True, exist_ok=True)
    (recall_home / "MEMORY.md").write_text(
        "# Home\n\n## Garden\n\nThe tomatoes get watered at dawn.\n\n## Car\n\nThe car is serviced in May.\n"
    )
    assert call(capsys, "sync", "-q")[0] == 0
    found = _sources(capsys, "vegetable plants irrigation schedule", "--scope", "memories")
    assert found[0] == ("file", "The tomatoes get watered at dawn.")


def test_without_a_model_remember_still_works_and_search_is_keyword(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("RECALL_EMBEDDING", "none")
    assert call(capsys, "remember", "the kettle is descaled monthly")[0] == 0
    assert _sources(capsys, "kettle", "--scope", "memories") == [
        ("memory", "the kettle is descaled monthly")
    ]


@pytest.mark.needs_model
def test_a_memory_unrelated_in_meaning_is_not_found(capsys: pytest.CaptureFixture[str]) -> None:
    call(capsys, "remember", "The user's favourite colour is deep blue", "-c", "preference")
    call(capsys, "remember", "Standups are at 9:30 every weekday")
    found = _sources(capsys, "which shade is preferred", "--scope", "memories")
    assert found == [("memory", "The user's favourite colour is deep blue")]


@pytest.mark.needs_model
def test_nothing_to_embed_loads_no_model(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every sync asks for pending memories and chunks; only work should load the model."""
    from recall.memory.vectors import embed_pending
    from recall.semantic import provider
    from recall.store import open_writer

    call(capsys, "remember", "Standups are at 9:30 every weekday")  # embedded as written
    loads: list[bool] = []
    real = provider.get_encoder
    monkeypatch.setattr(
        provider, "get_encoder", lambda *a, **k: loads.append(True) or real(*a, **k)
    )
    with open_writer() as store:
        assert embed_pending(store) == 0
        assert loads == []
        store.conn.execute("DELETE FROM source_vectors")
        assert embed_pending(store) == 1 and loads == [True]


@pytest.mark.needs_model
def test_a_memory_saying_the_same_in_other_words_is_merged(
    capsys: pytest.CaptureFixture[str],
) -> None:
    def remember(text: str) -> dict:
        code, out, err = call(capsys, "remember", text, "-c", "preference", "--json")
        assert code == 0, err
        return json.loads(out)

    first = remember("prefers uv over pip")
    again = remember("prefers uv instead of pip")
    assert again["merged"] is True and again["memory"]["id"] == first["memory"]["id"]
    assert again["memory"]["text"] == "prefers uv instead of pip"  # the newer wording
    # close in meaning, but the words that differ turn it around or change a number
    assert remember("we use postgres 15 in production")["merged"] is False
    assert remember("we use postgres 16 in production")["merged"] is False
    assert remember("indent with tabs")["merged"] is False
    assert remember("never indent with tabs")["merged"] is False
    assert remember("likes short commit messages")["merged"] is False
    code, out, _ = call(capsys, "memories", "list", "--json")
    assert code == 0
    assert json.loads(out)["found"] == 6


def test_close_meaning_merges_only_when_the_words_that_differ_change_nothing() -> None:
    from recall.memory.memories import same_meaning

    assert same_meaning("prefers uv instead of pip", "prefers uv over pip")
    assert same_meaning("API keys are stored in 1Password", "API keys live in 1Password")
    assert not same_meaning("never indent with tabs", "indent with tabs")
    assert not same_meaning("don't squash merge", "squash merge")
    assert not same_meaning("we use postgres 16", "we use postgres 15")
    assert not same_meaning("prefers poetry over pip", "likes short commit messages")


def test_without_a_model_only_the_words_decide(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("RECALL_EMBEDDING", "none")
    for text in ("prefers uv over pip", "prefers uv instead of pip"):
        assert call(capsys, "remember", text)[0] == 0
    code, out, _ = call(capsys, "memories", "list", "--json")
    assert code == 0
    assert json.loads(out)["found"] == 2
