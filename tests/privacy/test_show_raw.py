"""`show --raw` redacts what it prints, not what a parser kept of it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from clihelp import call

TOKEN = "ghp_" + "Zq8Lw3Nv5Xr1Ty7Pb2Mc" + "4Hd6Jf9Gk0SaUe4R"


def _escaped(text: str) -> str:
    return "".join(f"\\u{ord(c):04x}" for c in text)


def test_keys_duplicate_keys_and_escapes_on_a_cut_line_are_redacted(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / ".claude" / "projects" / "-work-app" / "s1.jsonl"
    path.parent.mkdir(parents=True)
    turn = {
        "type": "user",
        "uuid": "u1",
        "sessionId": "s1",
        "message": {"role": "user", "content": "deploy the worker"},
    }
    lines = [
        json.dumps(turn),
        # a secret used as a JSON key
        json.dumps({"type": "system", "sessionId": "s1", "env": {TOKEN: "x"}}),
        # two duplicate keys: a parser keeps only the second, the file holds both
        '{"type": "system", "sessionId": "s1", "note": "' + TOKEN + '", "note": "clean"}',
        # a half-written last line whose secret is \\u-escaped
        '{"type": "user", "uuid": "u9", "message": {"content": "' + _escaped(TOKEN) + " and",
    ]
    path.write_text("\n".join(lines))
    assert call(capsys, "ingest", "--agent", "claude", str(path))[0] == 0
    code, out, err = call(capsys, "show", "s1", "--raw")
    assert code == 0, err
    assert TOKEN not in out and TOKEN.lower() not in out.lower()
    assert _escaped(TOKEN) not in out
    assert out.count("[REDACTED:github-token]") == 3
    assert "deploy the worker" in out  # clean lines still print as they are
