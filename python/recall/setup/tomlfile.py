"""Codex's `config.toml`: recall's `[mcp_servers.recall]` table, added, updated and removed.

Reading goes through the standard library (`tomllib`, what status and
doctor need); editing through tomlkit, which keeps every comment and the
layout of what it does not change. A new table is appended at the end as
text, so every byte of the user's file stays as it was. Updating after
recall moved sets `command` and `args` in place: whatever the user added
to the table (`env`, `startup_timeout_sec`, a comment) stays. Removing takes
the table out with its sub-tables (`[mcp_servers.recall.env]`), so Codex is
never left with a server that has no command.
"""

from __future__ import annotations

import json
import re
import tomllib
from pathlib import Path
from typing import Any

from recall.setup.jsonfile import BOM, SettingsError, too_deep
from recall.setup.where import shown

TABLE = "mcp_servers.recall"


def parse(path: Path, text: str | None) -> dict[str, Any]:
    if text is None:
        return {}
    try:
        return tomllib.loads(text.removeprefix(BOM))
    except RecursionError:
        raise too_deep(path) from None
    except tomllib.TOMLDecodeError as exc:
        raise SettingsError(f"{shown(path)} is not valid TOML ({exc}); left untouched") from None


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


def _document(path: Path, text: str) -> Any:
    import tomlkit
    from tomlkit.exceptions import TOMLKitError

    try:
        return tomlkit.parse(text.removeprefix(BOM))
    except RecursionError:
        raise too_deep(path) from None
    except TOMLKitError as exc:  # tomllib read it, so this is a limit (nesting) of tomlkit's
        raise SettingsError(f"{shown(path)} cannot be edited ({exc}); left untouched") from None


def _text(text: str, doc: Any) -> str:
    """The edited document with the original's byte order mark and line endings."""
    out: str = doc.as_string()
    if "\r\n" in text and "\n" not in text.replace("\r\n", ""):  # CRLF throughout
        out = re.sub(r"(?<!\r)\n", "\r\n", out)
    return (BOM if text.startswith(BOM) else "") + out


def with_table(path: Path, text: str | None, program: list[str]) -> str:
    """`text` with recall's server: appended when absent, else its command and args set in
    place (the rest of the table kept)."""
    block = table(program)
    if not text:
        return block
    newline = "\r\n" if "\r\n" in text else "\n"
    if current(parse(path, text)) is None:
        sep = "" if text.endswith("\n") else newline
        appended = text + sep + newline + block.replace("\n", newline)
        try:
            tomllib.loads(appended.removeprefix(BOM))
            return appended
        except tomllib.TOMLDecodeError:  # `mcp_servers = { … }` inline: add to it instead
            pass
    doc = _document(path, text)
    servers = doc.setdefault("mcp_servers", {})
    if not isinstance(servers, dict) or not isinstance(servers.get("recall", {}), dict):
        raise SettingsError(f"{shown(path)}: mcp_servers is not a table; left untouched")
    wanted = {"command": program[0], "args": [*program[1:], "mcp"]}
    if servers.get("recall") is None:
        servers["recall"] = wanted
    else:
        for key, value in wanted.items():
            if servers["recall"].get(key) != value:  # an equal value keeps its layout
                servers["recall"][key] = value
    return _text(text, doc)


def without_table(path: Path, text: str) -> str:
    """`text` less recall's server and everything under it (`[mcp_servers.recall.env]`)."""
    doc = _document(path, text)
    servers = doc.get("mcp_servers")
    if not isinstance(servers, dict) or "recall" not in servers:
        return text
    del servers["recall"]
    out = _text(text, doc)
    newline = "\r\n" if "\r\n" in text else "\n"
    while out.endswith(newline * 2) and not text.endswith(newline * 2):
        out = out[: -len(newline)]  # the blank line that set the appended table apart
    return out
