"""The README's `--json` example is what `recall search --json` prints, field for field.

A user (or an agent's tool) writes a parser against the README's example;
an example with fields, scores or highlight marks the command never prints
sends them wrong.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from clihelp import call
from paths import REPO

DEMO = REPO / "python" / "recall" / "demo" / "claude-payments.jsonl"


def _readme_example() -> dict[str, object]:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    found = re.search(r"`recall search retry --json`.*?```json\n(.*?)```", readme, re.S)
    assert found, "README's search --json example is gone"
    return json.loads(found.group(1))  # type: ignore[no-any-return]


def test_the_readme_json_example_is_what_search_prints(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, recall_home: Path
) -> None:
    monkeypatch.setenv("RECALL_COMPUTER", "laptop")
    assert call(capsys, "ingest", str(DEMO))[0] == 0
    code, out, err = call(capsys, "search", "retry", "--json")
    assert code == 0, err
    assert len(out.strip().splitlines()) == 1  # one line, as the README says
    printed = json.loads(out)
    assert list(printed) == list(_readme_example())  # the same keys, in the same order
    assert printed == _readme_example()
