"""Shared test set-up: an isolated RECALL_HOME for every test and the shared fixtures."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("RECALL_SHARED", REPO.parent / "shared")).resolve()
TRANSCRIPTS = SHARED / "fixtures" / "transcripts"
HOOKS = SHARED / "fixtures" / "hooks"


@pytest.fixture(autouse=True)
def recall_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Every test gets its own data dir, so none touches the user's index."""
    home = tmp_path / "recall-home"
    monkeypatch.setenv("RECALL_HOME", str(home))
    monkeypatch.setenv("RECALL_COMPUTER", "testbox")
    return home


@pytest.fixture(scope="session")
def transcripts() -> Path:
    assert TRANSCRIPTS.is_dir(), f"shared fixtures not found at {TRANSCRIPTS}"
    return TRANSCRIPTS


@pytest.fixture(scope="session")
def hook_payloads() -> Path:
    assert HOOKS.is_dir(), f"shared hook fixtures not found at {HOOKS}"
    return HOOKS
