"""Shared test set-up: an isolated RECALL_HOME for every test, the shared fixtures, the cores.

Two fixtures choose what a test runs on:

- `core` runs a test once per core, the pure-Python twin and the Rust
  `recall._core`, so it compares or checks both itself. Such tests, and those
  marked `parity`, cover both cores in one pass: `scripts/test.sh` runs them
  in the Rust pass only (`-m "not parity"` in the Python pass).
- every other test runs on the core the pass chose (`RECALL_IMPL`), except
  those marked `core_free`, which reach neither core and so run in the Rust
  pass only (`-m "not parity and not core_free"`); a guard fails such a test
  if it calls `recall._accel` or starts a recall process.

Tests marked `needs_model` embed: with the real model when it is installed,
else with the tiny test model in `tests/support/tinymodel/` (a few KB, same
inputs and outputs, words grouped by topic), so no semantic test skips.
`RECALL_TEST_MODEL=tiny` uses the tiny model even where the real one is
installed. Tests marked `real_model` are about the real model's own files
and skip, with the reason, when it is absent.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from functools import cache
from pathlib import Path
from types import ModuleType

import pytest

from paths import HOOKS, SHARED, TRANSCRIPTS


def pytest_sessionstart(session: pytest.Session) -> None:
    """The suite reads real transcripts from the shared fixtures: say where they were looked
    for, rather than run with zero fixtures."""
    if not TRANSCRIPTS.is_dir() or not HOOKS.is_dir():
        pytest.exit(
            f"the shared fixtures are not at {SHARED} (fixtures/transcripts, fixtures/hooks):"
            " put the shared/ folder beside this checkout, or set RECALL_SHARED to it",
            returncode=4,
        )


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
        "COPILOT_HOME",
        "PI_CODING_AGENT_DIR",
        "OPENCLAW_STATE_DIR",
        "QWEN_HOME",
        "QWEN_RUNTIME_DIR",
        "XDG_DATA_HOME",
        "XDG_CONFIG_HOME",
        "APPDATA",
        "LOCALAPPDATA",
        "CURSOR_CONFIG_DIR",
        "OPENCODE_DB",
        "CLINE_SESSION_DATA_DIR",
        "CLINE_DATA_DIR",
        "GOOSE_PATH_ROOT",
        "CRUSH_GLOBAL_DATA",
        "CONTINUE_GLOBAL_DIR",
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


def rust_core() -> ModuleType | None:
    try:
        from recall import _core  # type: ignore[attr-defined]
    except ImportError:
        return None
    return _core  # type: ignore[no-any-return]


@pytest.fixture(params=["python", "rust"], scope="session")
def core(request: pytest.FixtureRequest) -> ModuleType:
    """The twin, then the Rust core: each test using this checks both cores."""
    from recall import _accel

    if request.param == "python":
        return _accel.twin()
    native = rust_core()
    if native is None:
        pytest.skip("Rust core not built (maturin develop builds it)")
    return native


@pytest.fixture(scope="session")
def rust() -> ModuleType:
    """The Rust core, for parity tests that compare it with the twin."""
    native = rust_core()
    if native is None:
        pytest.skip("Rust core not built (maturin develop builds it)")
    return native


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        if "core" in getattr(item, "fixturenames", ()) or "rust" in getattr(
            item, "fixturenames", ()
        ):
            item.add_marker(pytest.mark.parity)


TINY_MODEL = Path(__file__).resolve().parent / "support" / "tinymodel"


@cache
def _model_missing() -> str | None:
    """Why the real model cannot be used, or None (asked once: locating it hashes files)."""
    from recall.semantic import ModelError
    from recall.semantic.manifest import load_manifest, locate

    if os.environ.get("RECALL_TEST_MODEL") == "tiny":
        return "RECALL_TEST_MODEL=tiny"
    try:
        locate(load_manifest(), os.environ.get("RECALL_MODEL_DIR"))
    except ModelError as exc:
        return f"embedding model not installed: {exc}"
    return None


def pytest_runtest_setup(item: pytest.Item) -> None:
    if item.get_closest_marker("real_model") is not None:
        why = _model_missing()
        if why:
            pytest.skip(why)


@pytest.fixture(autouse=True)
def _embedding_model(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """A `needs_model` test without the real model embeds with the tiny one."""
    if request.node.get_closest_marker("needs_model") is not None and _model_missing():
        monkeypatch.setenv("RECALL_MODEL_DIR", str(TINY_MODEL))


def _refuse(what: str) -> Callable[..., object]:
    def refused(*args: object, **kwargs: object) -> object:
        raise AssertionError(f"a core_free test reached the core ({what}): drop the mark")

    return refused


class _NoRecallChild(subprocess.Popen):  # type: ignore[type-arg]
    def __init__(self, args: object, *rest: object, **kwargs: object) -> None:
        first = args[0] if isinstance(args, (list, tuple)) and args else args
        if first == sys.executable:
            _refuse("a recall child process")()
        super().__init__(args, *rest, **kwargs)  # type: ignore[call-overload]


@pytest.fixture(autouse=True)
def _core_free_guard(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """A `core_free` test runs in one pass only, so it must not depend on the core."""
    if request.node.get_closest_marker("core_free") is None:
        return
    from recall import _accel

    handed_out = [n for n in vars(_accel) if callable(getattr(_accel.core, n, None))]
    for name in handed_out:  # what `_accel` hands out from the chosen core
        monkeypatch.setattr(_accel, name, _refuse(name))
    monkeypatch.setattr(subprocess, "Popen", _NoRecallChild)


@pytest.fixture(scope="session", autouse=True)
def _core_as_requested() -> None:
    """When the suite is run for one core, make sure that core is the one running."""
    from recall import _accel

    wanted = os.environ.get("RECALL_IMPL")
    if wanted in ("rust", "python"):
        assert wanted == _accel.IMPL, f"asked for {wanted}, running {_accel.IMPL}"
