"""recall's MCP server in Goose's `config.yaml`: one extension, added and removed as lines.

Goose keeps its MCP servers ("extensions") in a YAML mapping:

    extensions:
      recall:
        enabled: true
        type: stdio
        name: recall
        cmd: "/path/to/recall"
        args: ["mcp"]
        ...

recall has no YAML library to lean on (a runtime dependency for one file is
not worth it), and a YAML round trip would drop the user's comments anyway.
So the file is edited as lines: recall's entry is inserted as the first
child of `extensions` (or `extensions:` is appended when there is none), and
uninstall cuts exactly that entry out again, which gives back the original
bytes when nothing else changed. Reading recall's entry back (for status,
updates after recall moved, and to check every edit) understands the block
style Goose itself writes (serde_yaml: `args:` then `- mcp` lines) and the
flow style recall writes; a file in any other shape (an `extensions` in flow
style, tabs) is reported and left untouched, with what to add by hand.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from recall.setup.jsonfile import BOM, SettingsError
from recall.setup.where import shown

_TOP = re.compile(r"^extensions\s*:\s*(#.*)?$")
_TOP_INLINE = re.compile(r"^extensions\s*:\s*(\S.*)$")
_RECALL = re.compile(r"""^(\s+)(recall|"recall"|'recall')\s*:\s*(#.*)?$""")
_RECALL_INLINE = re.compile(r"""^(\s+)(recall|"recall"|'recall')\s*:\s*[^\s#]""")
_TOP_KEY = re.compile(  # a top-level `key:`, quoted or plain (not a list item, not flow)
    r"""^(?:"[^"]*"|'[^']*'|[^\s#"'\[\]{},&*!|>%@`-][^:#]*?|-[^\s:#][^:#]*?)\s*:(\s|$)"""
)
_DOCUMENT = re.compile(r"^(---|\.\.\.)(\s.*)?$")
_KEY = re.compile(r"""^(\s*)([A-Za-z_][\w-]*)\s*:(?:\s+(.*?))?\s*$""")
TIMEOUT_S = 300


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def _meaningful(line: str) -> bool:
    stripped = line.strip()
    return bool(stripped) and not stripped.startswith("#")


def scalar(text: str) -> str:
    """A YAML scalar as a string: double-quoted (JSON escapes), single-quoted, or plain
    (a trailing ` # comment` dropped)."""
    text = text.strip()
    if text.startswith('"'):
        end = text.rfind('"')
        return str(json.loads(text[: end + 1])) if end > 0 else text
    if text.startswith("'"):
        end = text.rfind("'")
        return text[1:end].replace("''", "'") if end > 0 else text
    return re.split(r"\s+#", text, maxsplit=1)[0].strip()


def _flow_list(text: str) -> list[str]:
    """`["mcp"]` or `[mcp, --x]` as strings (recall's arguments never hold commas)."""
    inner = re.split(r"\]\s*(#.*)?$", text.strip()[1:], maxsplit=1)[0]
    return [scalar(part) for part in inner.split(",") if part.strip()]


class Found:
    """Where recall's extension is in the lines: [start, end) and what it runs."""

    def __init__(self, start: int, end: int, fields: dict[str, Any]) -> None:
        self.start, self.end, self.fields = start, end, fields

    @property
    def server(self) -> dict[str, Any]:
        """As an MCP entry reads (`command`, `args`), for `entries.is_recall_server`."""
        return {"command": self.fields.get("cmd"), "args": self.fields.get("args", [])}


def _lines(text: str) -> list[str]:
    return text.removeprefix(BOM).splitlines(keepends=True)


def _extensions(path: Path, lines: list[str]) -> tuple[int, int] | None:
    """The `extensions:` line and the end of its block, or None when there is none."""
    if any(line[: len(line) - len(line.lstrip())].count("\t") for line in lines):
        raise SettingsError(f"{shown(path)} is indented with tabs; left untouched")
    for i, line in enumerate(lines):
        body = line.rstrip("\r\n")
        inline = _TOP_INLINE.match(body)
        if _TOP.match(body) or (inline and re.fullmatch(r"\{\s*\}\s*(#.*)?", inline.group(1))):
            end = i + 1
            while end < len(lines):
                nxt = lines[end].rstrip("\r\n")
                if _meaningful(nxt) and _indent(nxt) == 0:
                    break
                end += 1
            return i, end
        if inline:
            raise SettingsError(
                f"{shown(path)}: extensions is not written as a block; left untouched"
            )
    return None


def find(path: Path, text: str | None) -> Found | None:
    """recall's extension in the file, or None; SettingsError for a shape not understood."""
    if not text:
        return None
    lines = _lines(text)
    block = _extensions(path, lines)
    if block is None:
        return None
    top, end = block
    children = [_indent(x) for x in lines[top + 1 : end] if _meaningful(x)]
    for i in range(top + 1, end):
        inline = _RECALL_INLINE.match(lines[i].rstrip("\r\n"))
        if inline and len(inline.group(1)) == children[0]:
            return Found(i, i + 1, {})  # `recall: <value>` on one line: not recall's
        match = _RECALL.match(lines[i].rstrip("\r\n"))
        if not match or len(match.group(1)) != children[0]:
            continue  # a `recall:` deeper down is some extension's setting, not one
        depth = len(match.group(1))
        stop = i + 1
        while stop < end:
            nxt = lines[stop].rstrip("\r\n")
            if _meaningful(nxt) and _indent(nxt) <= depth:
                break
            stop += 1
        while stop > i + 1 and not lines[stop - 1].strip():
            stop -= 1  # the blank lines after it belong to what follows
        return Found(i, stop, _fields(lines[i + 1 : stop]))
    return None


def _fields(lines: list[str]) -> dict[str, Any]:
    """The scalar members of an extension, and `args` (flow or block list)."""
    fields: dict[str, Any] = {}
    depth = None
    for n, raw in enumerate(lines):
        line = raw.rstrip("\r\n")
        match = _KEY.match(line)
        if not match or not _meaningful(line):
            continue
        if depth is None:
            depth = len(match.group(1))
        if len(match.group(1)) != depth:
            continue
        key, value = match.group(2), match.group(3) or ""
        if key == "args":
            if value.startswith("["):
                fields["args"] = _flow_list(value)
            else:
                items = []
                for item in lines[n + 1 :]:
                    body = item.strip()
                    if not body.startswith("- ") and body != "-":
                        if _meaningful(item):
                            break
                        continue
                    items.append(scalar(body[1:]))
                fields["args"] = items
        elif value and not value.startswith(("{", "[", "|", ">")):
            fields[key] = scalar(value)
    return fields


def entry(program: list[str], indent: str, newline: str) -> str:
    """recall's extension as lines, `indent` deep (JSON strings are YAML strings)."""
    inner = indent + "  "
    args = ", ".join(json.dumps(a, ensure_ascii=False) for a in [*program[1:], "mcp"])
    rows = [
        f"{indent}recall:",
        f"{inner}enabled: true",
        f"{inner}type: stdio",
        f"{inner}name: recall",
        f"{inner}description: {json.dumps('search your past agent sessions (recall)')}",
        f"{inner}cmd: {json.dumps(program[0], ensure_ascii=False)}",
        f"{inner}args: [{args}]",
        f"{inner}envs: {{}}",
        f"{inner}env_keys: []",
        f"{inner}timeout: {TIMEOUT_S}",
    ]
    return "".join(row + newline for row in rows)


def _check_mapping(path: Path, lines: list[str]) -> None:
    """SettingsError unless every top-level line is a `key:` (or a comment, or a `---`
    before the first key): `extensions:` appended to a list, a scalar, a flow mapping or
    a second document would break the file or be read by no one."""
    keys = 0
    for line in lines:
        body = line.rstrip("\r\n")
        if _meaningful(body) and _indent(body) == 0:
            keys += bool(_TOP_KEY.match(body))
            if not (_TOP_KEY.match(body) or (_DOCUMENT.match(body) and not keys)):
                raise SettingsError(
                    f"{shown(path)} does not hold a YAML mapping written as a block "
                    f"(line {lines.index(line) + 1}); left untouched"
                )


def _by_hand(path: Path, program: list[str]) -> str:
    return (
        f"{shown(path)} could not be edited without disturbing it; left untouched: add this "
        "under its `extensions:` by hand:\n" + entry(program, "  ", "\n").rstrip("\n")
    )


def installed_text(path: Path, before: str | None, program: list[str]) -> str:
    """The file with recall's extension in it (`before` when it is there as wanted)."""
    from recall.setup.entries import is_recall_server

    wanted = {"cmd": program[0], "args": [*program[1:], "mcp"]}
    found = find(path, before)
    if found is not None and not is_recall_server(found.server):
        raise SettingsError(
            f'{shown(path)} already has an extension named "recall" that recall did not '
            "write; left untouched: rename or remove it and run this again"
        )
    if found is not None and all(found.fields.get(k) == v for k, v in wanted.items()):
        return before or ""
    text = before or ""
    bom = BOM if text.startswith(BOM) else ""
    newline = "\r\n" if "\r\n" in text else "\n"
    lines = _lines(text)
    if found is not None:  # recall moved: its entry is written again where it was
        depth = " " * _indent(lines[found.start])
        lines[found.start : found.end] = [entry(program, depth, newline)]
    else:
        block = _extensions(path, lines)
        if block is None:
            _check_mapping(path, lines)
            if lines and not lines[-1].endswith(("\n", "\r")):
                lines[-1] += newline
            lines.append("extensions:" + newline + entry(program, "  ", newline))
        else:
            top, end = block
            children = [x for x in lines[top + 1 : end] if _meaningful(x)]
            depth = " " * (_indent(children[0]) if children else 2)
            if _TOP_INLINE.match(lines[top].rstrip("\r\n")):  # `extensions: {}`
                lines[top] = "extensions:" + newline
            lines.insert(top + 1, entry(program, depth, newline))
    after = bom + "".join(lines)
    got = find(path, after)
    if got is None or any(got.fields.get(k) != v for k, v in wanted.items()):
        raise SettingsError(_by_hand(path, program))
    return after


def uninstalled_text(path: Path, before: str | None) -> str | None:
    """The file without recall's extension (and without an `extensions:` left empty by
    that); `before` when recall's is not there."""
    from recall.setup.entries import is_recall_server

    found = find(path, before)
    if before is None or found is None or not is_recall_server(found.server):
        return before
    bom = BOM if before.startswith(BOM) else ""
    lines = _lines(before)
    del lines[found.start : found.end]
    block = _extensions(path, lines)
    if block is not None:
        top, end = block
        if not any(_meaningful(x) for x in lines[top + 1 : end]):
            rest = lines[top + 1 : end]
            if any(x.strip() for x in rest):  # comments stay, under an empty mapping
                newline = "\r\n" if lines[top].endswith("\r\n") else "\n"
                lines[top] = "extensions: {}" + newline
            else:
                del lines[top:end]
    return bom + "".join(lines)


def settled(path: Path, text: str | None) -> str:
    """`text` without an `extensions` block that holds nothing (`extensions: {}` or a bare
    `extensions:`) and without trailing blanks: what uninstall compares with the backup,
    since cutting recall's entry out of a mapping it filled leaves no empty one behind."""
    lines = _lines(text or "")
    try:
        block = _extensions(path, lines)
    except SettingsError:
        block = None
    if block is not None and not any(x.strip() for x in lines[block[0] + 1 : block[1]]):
        del lines[block[0] : block[1]]
    return "".join(lines).rstrip("\ufeff \t\r\n")


def read(path: Path, text: str | None) -> dict[str, Any]:
    """`{"recall": {command, args}}` when the file has recall's extension, for status."""
    found = find(path, text)
    return {"recall": found.server} if found is not None else {}
