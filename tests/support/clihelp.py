"""Running recall the way users and agents do: as a process, or in-process for speed."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from typing import Any

import pytest

from recall.cli import main

SESSION_FIELDS = {
    "session_id",
    "agent",
    "project",
    "computer",
    "title",
    "date",
    "score",
    "snippet",
    "source",
    "message_index",
    "matched",
    "relevance",
    "weak",
    "role",
}
"""The fields of a session result in `--json` (README, "Searching", plus `source`; `matched`,
`relevance` and `weak` from the relevance bar, docs/search.md; `role`, who wrote the
message, search/speaker.py)."""


def run(
    *argv: str, stdin: bytes | None = None, env: dict[str, str] | None = None, timeout: float = 120
) -> subprocess.CompletedProcess[bytes]:
    """`recall ARGV` in a child process, with the test's environment."""
    return subprocess.run(
        [sys.executable, "-m", "recall", *argv],
        input=stdin,
        capture_output=True,
        env={**os.environ, **(env or {})},
        timeout=timeout,
        check=False,
    )


def call(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    """`recall ARGV` in-process; returns (exit code, stdout, stderr)."""
    try:
        code = main(list(argv))
    except SystemExit as exc:  # argparse usage errors
        code = int(exc.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


def call_json(capsys: pytest.CaptureFixture[str], *argv: str) -> Any:
    code, out, err = call(capsys, *argv, "--json")
    assert code == 0, err
    return json.loads(out)


def run_json(*argv: str) -> Any:
    """`recall ARGV --json` in a child process, which must succeed; its output parsed."""
    done = run(*argv, "--json")
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)
