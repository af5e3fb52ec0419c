"""Text a transcript holds never drives the terminal: escape sequences and control
characters are dropped from everything `search` and `show` print as text."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from clihelp import call, call_json

HOSTILE = "zebraword \x1b]52;c;cHduZWQ=\x07 \x1b[2J \x9b2J \x9d0;title\x9c bell\x07 end"


def _clean(text: str) -> bool:
    return not any(c in text for c in "\x1b\x07\x9b\x9d\x9c\x02\x03")


@pytest.fixture
def hostile(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    src = tmp_path / "chats.jsonl"
    row = {
        "session": "hostile-1",
        "agent": "claude",
        "project": "/work/\x1b]0;pwned\x07app",
        "role": "user",
        "text": HOSTILE,
        "timestamp": "2025-01-02T10:00:00+00:00",
    }
    src.write_text(json.dumps(row) + "\n")
    assert call(capsys, "ingest", "--format", "jsonl", str(src))[0] == 0
    return src


def test_search_and_show_print_no_escape_sequences(
    hostile: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = call(capsys, "search", "zebraword")
    assert code == 0 and "zebraword" in out and "end" in out
    assert _clean(out) and _clean(err)
    code, out, err = call(capsys, "show", "hostile-1")
    assert code == 0 and "zebraword" in out and "bell" in out
    assert _clean(out) and _clean(err)


def test_json_output_keeps_the_text_exact(
    hostile: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    shown = call_json(capsys, "show", "hostile-1")
    assert shown["messages"][0]["text"] == HOSTILE


def test_printable_keeps_text_newlines_and_tabs() -> None:
    from recall.textutil import printable

    assert printable("a\tb\nc ✓ é") == "a\tb\nc ✓ é"
    assert printable("x\x1b[31my\x1b[0m\rz\x00") == "xyz"
    assert printable("p\x1bP1;2|data\x1b\\q") == "pq"


def test_printable_drops_bidi_controls() -> None:
    """Overrides and isolates reorder a line on screen ("gnp.exe" shown as "exe.png")."""
    from recall.textutil import one_line, printable

    tricks = "a\u202eb\u202ac\u2066d\u2067e\u2068f\u2069g\u200eh\u200fi\u061cj\u202bk\u202dl"
    assert printable(tricks) == "abcdefghijkl"
    assert one_line(tricks) == "abcdefghijkl"
    assert printable("שלום world ✓") == "שלום world ✓"  # right-to-left text itself stays


def test_an_error_quoting_another_program_reaches_the_terminal_clean(
    tmp_path: Path, recall_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Every error line goes through `printable`: here the summariser's stderr, which
    `recall digest` quotes when the summariser fails."""
    import shlex
    import sys

    from recall.config import forget_loaded

    script = tmp_path / "noisy.py"
    script.write_text(
        "import sys; sys.stdin.read()\n"
        "sys.stderr.write('boom \\x1b]52;c;cHduZWQ=\\x07\\x1b]0;title\\x07\\x1b[2J \\u202egnp.exe\\n')\n"
        "sys.exit(3)\n"
    )
    src = tmp_path / "chat.jsonl"
    row = {"session": "d1", "role": "user", "text": "hello", "timestamp": "2026-02-03T12:00:00Z"}
    src.write_text(json.dumps(row) + "\n")
    assert call(capsys, "ingest", "--format", "jsonl", str(src))[0] == 0
    command = f"{shlex.quote(sys.executable)} {shlex.quote(str(script))}"
    (recall_home / "config.toml").write_text(f"[digest]\ncommand = {json.dumps(command)}\n")
    forget_loaded()
    code, _out, err = call(capsys, "digest", "--date", "2026-02-03")
    assert code != 0 and "boom" in err and "gnp.exe" in err
    assert _clean(err) and "\u202e" not in err, repr(err)
