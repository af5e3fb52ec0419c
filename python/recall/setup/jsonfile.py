"""Reading and writing an agent's JSON settings file in the layout it already has.

The agents write their files with `JSON.stringify(value, null, 2)`; dumping
with the indent, separators, line endings, final newline and escaping found
in the file gives back the same bytes for every setting recall leaves alone.
A file that does not round-trip that way (hand-aligned arrays, say) is still
written correctly, and the report says its layout changed.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

from recall.errors import RecallError
from recall.record import Record
from recall.safeio import NotARegularFile, open_regular
from recall.setup.where import shown


class SettingsError(RecallError):
    """A settings file recall will not touch (unreadable, not JSON, not an object)."""

    exit_code = 1


class Style(Record):
    indent: str | None = "  "
    """None: everything on one line."""
    item_sep: str = ","
    key_sep: str = ": "
    newline: str = "\n"
    final_newline: bool = True
    ascii_only: bool = False
    bom: bool = False
    """The file starts with a UTF-8 byte order mark, kept on write."""


BOM = "\ufeff"


MAX_BYTES = 64 * 1024 * 1024
"""A settings file larger than this is not read (a symlink to /dev/zero, say)."""


def read_text(path: Path) -> str | None:
    """The file's text exactly (a byte order mark and CRLFs kept), None when it does not
    exist; SettingsError when it cannot be read, or is not a regular file (a FIFO would
    block for ever), or is a symlink to nothing (writing would create a file elsewhere)."""
    try:
        with open_regular(path) as fh:
            raw = fh.read(MAX_BYTES + 1)
    except FileNotFoundError:
        if path.is_symlink():
            raise SettingsError(
                f"{shown(path)} is a symlink to {shown(os.readlink(path))}, which does not "
                "exist; left untouched: create the file it points to, or remove the link"
            ) from None
        return None
    except NotARegularFile as exc:
        raise SettingsError(f"{shown(path)} is {exc.kind}, not a file; left untouched") from None
    except OSError as exc:
        raise SettingsError(f"cannot read {shown(path)}: {exc.strerror}; left untouched") from None
    if len(raw) > MAX_BYTES:
        raise SettingsError(f"{shown(path)} is over 64 MB; left untouched")
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise SettingsError(f"{shown(path)} is not UTF-8 text ({exc}); left untouched") from None


def too_deep(path: Path) -> SettingsError:
    return SettingsError(f"{shown(path)} is nested too deeply to edit safely; left untouched")


def parse(path: Path, text: str | None) -> dict[str, Any]:
    """The settings object ({} for a missing or empty file); SettingsError when malformed."""
    text = text.removeprefix(BOM) if text is not None else None
    if text is None or not text.strip():
        return {}
    try:
        data = json.loads(text, parse_constant=_no_constant, parse_float=_finite)
    except RecursionError:
        raise too_deep(path) from None
    except _Unwritable as exc:
        raise SettingsError(
            f"{shown(path)} holds {exc}, which recall could not write back as JSON; left untouched"
        ) from None
    except ValueError as exc:
        raise SettingsError(
            f"{shown(path)} is not valid JSON ({exc}); left untouched: fix it (or remove "
            "comments) and run this again"
        ) from None
    if not isinstance(data, dict):
        raise SettingsError(
            f"{shown(path)} holds a JSON {type(data).__name__}, not an object; left untouched"
        )
    return data


class _Unwritable(Exception):
    """A number JSON.parse reads but `json.dumps` would turn into `Infinity` or `NaN`."""


def _no_constant(name: str) -> float:
    raise _Unwritable(name)


def _finite(literal: str) -> float:
    value = float(literal)
    if value in (float("inf"), float("-inf")):
        raise _Unwritable(f"the number {literal[:40]}")
    return value


def style_of(text: str | None) -> Style:
    bom = text is not None and text.startswith(BOM)
    text = text.removeprefix(BOM) if text is not None else None
    if text is None or not text.strip():
        return Style(bom=bom)
    newline = "\r\n" if "\r\n" in text else "\n"
    body = text.strip()
    ascii_only = "\\u" in text and all(ord(c) < 128 for c in text)
    final = text.endswith(("\n", "\r\n"))
    if "\n" not in body:
        spaced = ", " in body or ": " in body
        return Style(
            None, ", " if spaced else ",", ": " if spaced else ":", newline, final, ascii_only, bom
        )
    indent = "  "
    for line in body.splitlines()[1:]:
        stripped = line.lstrip(" \t")
        if stripped and stripped[0] in '"{[]}' and len(stripped) < len(line):
            indent = line[: len(line) - len(stripped)]
            break
    key_sep = ": " if '": ' in body else ":"
    return Style(indent, ",", key_sep, newline, final, ascii_only, bom)


_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def dump(data: dict[str, Any], style: Style) -> str:
    """`data` in `style`; a lone surrogate (a `\\ud800` escape in the file, which JSON
    allows) is written back as that escape, since UTF-8 cannot hold it."""
    text = json.dumps(
        data,
        indent=style.indent,
        separators=(style.item_sep, style.key_sep),
        ensure_ascii=style.ascii_only,
    )
    text = _LONE_SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)
    if style.newline != "\n":
        text = text.replace("\n", style.newline)
    return (BOM if style.bom else "") + text + (style.newline if style.final_newline else "")


def keeps_layout(text: str | None) -> bool:
    """Whether rewriting this file changes nothing but what recall changes."""
    if text is None or not text.strip():
        return True
    try:
        data = json.loads(text.removeprefix(BOM))
    except ValueError:
        return False
    return isinstance(data, dict) and dump(data, style_of(text)) == text
