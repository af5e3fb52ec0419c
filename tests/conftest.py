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
    # Agents' default roots hang off HOME: point it at an empty dir so `sync`
    # in a test never reads the developer's real transcripts.
    user_home = tmp_path / "user-home"
    user_home.mkdir()
    monkeypatch.setenv("HOME", str(user_home))
    monkeypatch.setenv("USERPROFILE", str(user_home))
    for var in (
        "CLAUDE_CONFIG_DIR",
        "CODEX_HOME",
        "GEMINI_DIR",
        "GEMINI_CLI_HOME",
        "XDG_DATA_HOME",
        "XDG_CONFIG_HOME",
    ):
        monkeypatch.delenv(var, raising=False)
    return home


@pytest.fixture(scope="session")
def transcripts() -> Path:
    assert TRANSCRIPTS.is_dir(), f"shared fixtures not found at {TRANSCRIPTS}"
    return TRANSCRIPTS


@pytest.fixture(scope="session")
def hook_payloads() -> Path:
    assert HOOKS.is_dir(), f"shared hook fixtures not found at {HOOKS}"
    return HOOKS


@pytest.fixture(scope="session", autouse=True)
def _core_as_requested() -> None:
    """When the suite is run for one core, make sure that core is the one running."""
    from recall import _accel

    wanted = os.environ.get("RECALL_IMPL")
    if wanted in ("rust", "python"):
        assert wanted == _accel.IMPL, f"asked for {wanted}, running {_accel.IMPL}"
