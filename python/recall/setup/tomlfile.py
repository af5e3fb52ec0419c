"""Codex's `config.toml`: recall's `[mcp_servers.recall]` table, added and removed as text.

Python reads TOML but cannot write it, and a rewrite would lose the user's
comments and layout anyway: recall appends its table at the end and removes
exactly that table again, so every other byte of the file stays as it was.
"""

from __future__ import annotations

import json
import re
import tomllib
from pathlib import Path
from typing import Any

from recall.setup.jsonfile import BOM, SettingsError

TABLE = "mcp_servers.recall"
_HEADER = re.compile(r'^\s*\[\s*mcp_servers\s*\.\s*(?:recall|"recall")\s*\]\s*(?:#.*)?$')
_ANY_HEADER = re.compile(r"^\s*\[")


def parse(path: Path, text: str | None) -> dict[str, Any]:
    if text is None:
        return {}
    try:
        return tomllib.loads(text.removeprefix(BOM))
    except tomllib.TOMLDecodeError as exc:
        raise SettingsError(f"{path} is not valid TOML ({exc}); left untouched") from None


def current(data: dict[str, Any]) -> Any:
    """The `[mcp_servers.recall]` table as Codex reads it, or None."""
    servers = data.get("mcp_servers")
    return servers.get("recall") if isinstance(servers, dict) else None


def table(program: list[str]) -> str:
    """recall's table as TOML text (JSON string escapes are TOML basic-string escapes)."""
    command, args = program[0], [*program[1:], "mcp"]
    return (
        f"[{TABLE}]\n"
        f"command = {json.dumps(command, ensure_ascii=False)}\n"
        f"args = [{', '.join(json.dumps(a, ensure_ascii=False) for a in args)}]\n"
    )


def _span(lines: list[str]) -> tuple[int, int] | None:
    """Line indexes [start, end) of the `[mcp_servers.recall]` table, when it is a table of
    its own (not inline, not dotted keys elsewhere)."""
    for i, line in enumerate(lines):
        if _HEADER.match(line):
            end = i + 1
            while end < len(lines) and not _ANY_HEADER.match(lines[end]):
                end += 1
            while end > i + 1 and not lines[end - 1].strip():
                end -= 1
            return i, end
    return None


def with_table(text: str | None, program: list[str]) -> str:
    """`text` with recall's table appended, or replacing recall's older table in place."""
    block = table(program)
    if not text:
        return block
    if "\r\n" in text:  # the file's line endings
        block = block.replace("\n", "\r\n")
    lines = text.splitlines(keepends=True)
    span = _span(lines)
    if span is not None:
        start, end = span
        return "".join(lines[:start]) + block + "".join(lines[end:])
    newline = "\r\n" if "\r\n" in text else "\n"
    sep = "" if text.endswith("\n") else newline
    return text + sep + newline + block


def without_table(text: str) -> str:
    """`text` less recall's table and the blank line setup put before it."""
    lines = text.splitlines(keepends=True)
    span = _span(lines)
    if span is None:
        return text
    start, end = span
    while end < len(lines) and not lines[end].strip():
        end += 1
    if end == len(lines) and start > 0 and not lines[start - 1].strip():
        start -= 1  # the blank line that set the appended table apart
    return "".join(lines[:start]) + "".join(lines[end:])
