"""`recall._accel`: which core runs, why, and what a bad `RECALL_IMPL` says."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from recall import _accel


def _python(args: list[str], impl: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "RECALL_IMPL": impl}
    return subprocess.run(
        [sys.executable, *args], env=env, capture_output=True, text=True, timeout=60
    )


def _impl_in_a_fresh_process(impl: str) -> subprocess.CompletedProcess[str]:
    code = "from recall import _accel; print(_accel.IMPL, _accel.strip_reminders.__module__)"
    return _python(["-c", code], impl)


def test_forcing_python_loads_the_twin_and_its_functions() -> None:
    done = _impl_in_a_fresh_process("python")
    assert done.returncode == 0, done.stderr
    impl, module = done.stdout.split()
    assert impl == "python" and module.startswith("recall._twin.")


def test_forcing_rust_loads_the_native_functions() -> None:
    done = _impl_in_a_fresh_process("rust")
    if "not built" in done.stderr:
        pytest.skip("Rust core not built (maturin develop)")
    assert done.returncode == 0, done.stderr
    impl, module = done.stdout.split()
    assert impl == "rust" and not module.startswith("recall._twin")


def test_the_running_core_is_the_one_the_reason_names() -> None:
    assert (_accel.IMPL == "python") == _accel.strip_reminders.__module__.startswith("recall._twin")
    assert _accel.IMPL_REASON


def test_selector_rejects_unknown_impl(monkeypatch: pytest.MonkeyPatch) -> None:
    from recall.errors import ConfigError

    monkeypatch.setenv("RECALL_IMPL", "fortran")
    with pytest.raises(ConfigError, match="RECALL_IMPL"):
        _accel._select()


def test_selector_python_forced(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RECALL_IMPL", "python")
    module, name, reason = _accel._select()
    assert module is _accel.twin() and name == "python" and "RECALL_IMPL" in reason


def test_a_bad_impl_is_one_line_and_exit_2() -> None:
    done = _python(["-m", "recall", "--version"], "bogus")
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        "recall: RECALL_IMPL must be auto, rust or python, not 'bogus'"
    ]
