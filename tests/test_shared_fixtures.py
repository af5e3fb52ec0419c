"""Without the shared fixtures the suite must stop and say where it looked, not pass on none."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def test_the_suite_stops_and_names_the_place_when_the_fixtures_are_missing(tmp_path: Path) -> None:
    missing = tmp_path / "no-shared-here"
    env = {**os.environ, "RECALL_SHARED": str(missing)}
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests/test_layers.py"],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 4, run.stdout + run.stderr
    said = run.stdout + run.stderr
    assert f"the shared fixtures are not at {missing}" in said
    assert "RECALL_SHARED" in said
    assert " passed" not in said
