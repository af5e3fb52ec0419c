"""The database adapters share one base (issue 26): each says only what is its own."""

from __future__ import annotations

from pathlib import Path

import pytest

from recall.agents import ADAPTERS
from recall.agents.base import SessionStore
from recall.agents.rows import json_array
from recall.agents.rowstore import RowStore
from recall.types import Parsed


@pytest.mark.parametrize("agent", ["opencode", "crush", "goose"])
def test_database_adapters_are_row_stores(agent: str, tmp_path: Path) -> None:
    adapter = ADAPTERS[agent]
    assert isinstance(adapter, RowStore) and isinstance(adapter, SessionStore)
    db = tmp_path / "x.db"
    assert adapter.origin(db) == ("x", None, None, True) and adapter.whole_file(db)


def test_store_only_adapters_own_no_file(tmp_path: Path) -> None:
    (tmp_path / "a.jsonl").write_text("{}\n")
    for agent in ("opencode", "crush"):
        assert list(ADAPTERS[agent].discover(tmp_path)) == []
        assert not ADAPTERS[agent].owns(tmp_path / "a.jsonl")


@pytest.mark.parametrize(
    ("raw", "skipped"),
    [(b"[1]", 0), (b"{}", 1), (b"[", 1), (b"\xff[]", 1), (42, 1), ('[{"type": "text"}]', 0)],
)
def test_json_array_counts_what_is_not_one(raw: object, skipped: int) -> None:
    parsed = Parsed()
    value = json_array(raw, parsed)
    assert isinstance(value, list)
    assert sum(parsed.skipped.values()) == skipped
