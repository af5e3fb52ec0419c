"""A `-word` excludes in every mode and every source, the semantic legs too."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from clihelp import call


def _snippets(capsys: pytest.CaptureFixture[str], *argv: str) -> list[str]:
    code, out, err = call(capsys, "search", *argv, "--json")
    assert code in (0, 1), err
    return [r["snippet"] for r in json.loads(out)["results"]]


@pytest.mark.needs_model
@pytest.mark.parametrize("mode", [[], ["--mode", "semantic"], ["--mode", "hybrid"]])
def test_an_excluded_word_excludes_in_every_mode(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, mode: list[str]
) -> None:
    chat = tmp_path / "chat.jsonl"
    texts = [
        "the zorbulator handles flux capacitor calibration",
        "the zorbulator handles the weekly reports",
    ]
    lines = [
        {"session": f"s{n}", "role": "user", "text": t, "timestamp": "2026-01-04T10:00:00Z"}
        for n, t in enumerate(texts)
    ]
    chat.write_text("".join(json.dumps(x) + "\n" for x in lines))
    assert call(capsys, "ingest", "--format", "jsonl", str(chat))[0] == 0
    assert call(capsys, "remember", "uses pnpm")[0] == 0
    assert call(capsys, "remember", "prefers vim")[0] == 0
    assert call(capsys, "sync", "-q")[0] == 0
    found = _snippets(capsys, "--scope", "sessions", "zorbulator -flux", *mode)
    assert not [s for s in found if "flux" in s]
    assert _snippets(capsys, "--scope", "sessions", "zorbulator", *mode)  # found without it
    everywhere = _snippets(capsys, "pnpm -vim", *mode)
    assert not [s for s in everywhere if "vim" in s]
    assert not [s for s in _snippets(capsys, "editor -vim", *mode) if "vim" in s]
