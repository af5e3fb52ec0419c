"""The marks that choose which pass runs a test stay honest (tests/conftest.py)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from recall import _accel


@pytest.mark.core_free
@pytest.mark.parametrize("name", ["redact", "parse_transcript", "bm25_scores", "dedup"])
def test_a_core_free_test_that_reaches_the_core_fails(name: str) -> None:
    with pytest.raises(AssertionError, match="core_free test reached the core"):
        getattr(_accel, name)("x")


@pytest.mark.core_free
def test_a_core_free_test_that_starts_recall_fails() -> None:
    with pytest.raises(AssertionError, match="recall child process"):
        subprocess.run([sys.executable, "-m", "recall", "status"], check=False)
