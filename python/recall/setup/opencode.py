"""recall's MCP server in OpenCode's config, which may be JSONC: edited as text.

OpenCode takes MCP servers from `"mcp"` in its global config
(`~/.config/opencode/opencode.json[c]`): `"recall": {"type": "local", "command":
["/path/to/recall", "mcp"], "enabled": true}`. Setup inserts that member (and
the `"mcp"` object when there is none) right after the opening brace, updates
only the command of an entry it wrote when recall moved (what the user added
to it, `environment` or `"enabled": false`, stays), and on uninstall cuts the
member out again, with `"mcp"` when recall's was its only server. Comments,
trailing commas and every other byte stay where they were (`jsonc`).
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

from recall.setup import entries, jsonc, jsonfile
from recall.setup.jsonfile import SettingsError
from recall.setup.where import shown


def _last(found: list[jsonc.Member], key: str) -> jsonc.Member | None:
    """The member named `key` OpenCode would use (the last, when a key repeats)."""
    named = [m for m in found if m.key == key]
    return named[-1] if named else None


def _servers(path: Path, data: dict[str, Any]) -> dict[str, Any] | None:
    servers = data.get("mcp")
    if servers is not None and not isinstance(servers, dict):
        raise SettingsError(f'"mcp" in {shown(path)} is not an object; left untouched')
    return servers


def installed_text(path: Path, before: str | None, program: list[str]) -> str | None:
    """The file's text with recall's server in it (`before` itself when it is there);
    SettingsError when the file cannot be read as JSONC, holds a server named
    `recall` recall did not write, or cannot be edited so it reads back as intended."""
    data = jsonc.parse(path, before)
    servers = _servers(path, data)
    wanted = entries.mcp_entry("opencode", program)
    existing = servers.get("recall") if servers is not None else None
    if existing is not None and not entries.is_recall_server(existing):
        raise SettingsError(
            f'{shown(path)} already has an MCP server named "recall" that recall did not '
            "write; left untouched: rename or remove it and run this again"
        )
    if isinstance(existing, dict) and existing.get("command") == wanted["command"]:
        return before
    expected = copy.deepcopy(data)
    if isinstance(existing, dict):
        expected["mcp"]["recall"]["command"] = wanted["command"]
    else:
        expected.setdefault("mcp", {})["recall"] = wanted
    text = before or ""
    entry = f'"recall": {jsonc.dumps(wanted)}'
    try:
        if not text.strip("\ufeff" + " \t\r\n"):
            bom = "\ufeff" if text.startswith("\ufeff") else ""
            after = bom + '{\n  "mcp": {\n    ' + entry + "\n  }\n}\n"
        else:
            s = jsonc.blank(text)
            top = jsonc.top_brace(path, s)
            unit = jsonc.unit(text, s, top)
            mcp = _last(jsonc.members(s, top), "mcp")
            if isinstance(existing, dict) and mcp is not None:
                ours = _last(jsonc.members(s, mcp.value_start), "recall")
                command = _last(jsonc.members(s, ours.value_start), "command") if ours else None
                if command is None:
                    raise ValueError("no command member")
                new = jsonc.dumps(wanted["command"])
                after = text[: command.value_start] + new + text[command.end :]
            elif mcp is not None:
                after = jsonc.insert_first(text, s, mcp.value_start, entry, unit)
            else:
                block = '"mcp": {\n' + unit + entry + "\n}"
                after = jsonc.insert_first(text, s, top, block, unit)
        if jsonc.parse(path, after) != expected:
            raise ValueError("the edit does not read back as intended")
    except (ValueError, IndexError, SettingsError):
        raise SettingsError(jsonc.by_hand(path, wanted)) from None
    return after


def uninstalled_text(path: Path, before: str | None) -> tuple[str | None, dict[str, Any]]:
    """The file's text without recall's server (and without `"mcp"` when it held only
    recall's), and what the file then says; `before` when recall's server is not there."""
    data = jsonc.parse(path, before)
    servers = _servers(path, data)
    if before is None or servers is None or not entries.is_recall_server(servers.get("recall")):
        return before, data
    expected = copy.deepcopy(data)
    del expected["mcp"]["recall"]
    if not expected["mcp"]:
        del expected["mcp"]
    try:
        s = jsonc.blank(before)
        top = jsonc.top_brace(path, s)
        mcp = _last(jsonc.members(s, top), "mcp")
        if mcp is None:
            raise ValueError("no mcp member")
        after = jsonc.remove(before, s, mcp.value_start, "recall")
        if "mcp" not in expected:
            s = jsonc.blank(after)
            after = jsonc.remove(after, s, jsonc.top_brace(path, s), "mcp")
        if jsonc.parse(path, after) != expected:
            raise ValueError("the edit does not read back as intended")
    except (ValueError, IndexError, SettingsError):
        raise SettingsError(
            f"{shown(path)} could not be edited without disturbing it; left untouched: "
            'remove "recall" from its "mcp" object by hand'
        ) from None
    return after, expected


def read(path: Path) -> dict[str, Any]:
    """The config as OpenCode reads it, for status."""
    return jsonc.parse(path, jsonfile.read_text(path))
