"""Editing OpenCode's config, which may be JSONC (comments, trailing commas), in place.

OpenCode reads `opencode.json` and `opencode.jsonc` as JSON with comments and
trailing commas. Dumping such a file again would drop the user's comments, so
recall edits the text itself: it adds one member (`"recall": {…}` inside
`"mcp"`, or a whole `"mcp"` member) right after an object's opening brace, or
cuts recall's member out, and leaves every other byte where it was.

Positions come from the same text with comments and trailing commas blanked
to spaces (`blank`), which is plain JSON of the same length. Every edit is
checked by reading the result back: when the file would not say exactly what
it said plus (or minus) recall's entry, nothing is written and the user is
told what to add by hand (`SettingsError`).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from recall.setup import jsonfile
from recall.setup.jsonfile import BOM, SettingsError
from recall.setup.where import shown

_DECODER = json.JSONDecoder()
_WS = " \t\r\n"


def blank(text: str) -> str:
    """`text` with `//` and `/* */` comments and trailing commas turned into spaces
    (line breaks kept), so offsets stay put; strings are left as they are."""
    out = list(text)
    i, n = 0, len(text)
    last_comma = -1  # a comma with only blanks after it so far
    while i < n:
        c = text[i]
        if c == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            i, last_comma = j + 1, -1
            continue
        if c == "/" and text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out[i:j] = " " * (j - i)
            i = j
            continue
        if c == "/" and text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out[i:j] = ["\n" if ch == "\n" else " " for ch in text[i:j]]
            i = j
            continue
        if c in "}]" and last_comma >= 0:
            out[last_comma] = " "
        if c == ",":
            last_comma = i
        elif c not in _WS:
            last_comma = -1
        i += 1
    return "".join(out)


def comments(text: str | None) -> list[str]:
    """The comments of a JSONC text, in order: two files that say the same and hold the
    same comments differ only in layout."""
    if not text:
        return []
    s = blank(text)
    found, run = [], []
    for a, b in zip(text, s, strict=True):
        if a != b:
            run.append(a)
        elif run:
            found.append("".join(run).strip())
            run = []
    return [*found, "".join(run).strip()] if run else found


def parse(path: Path, text: str | None) -> dict[str, Any]:
    """The settings object of a JSON or JSONC file ({} when missing or empty)."""
    return jsonfile.parse(path, blank(text) if text is not None else None)


def _skip_ws(s: str, i: int) -> int:
    while i < len(s) and s[i] in _WS:
        i += 1
    return i


class Member:
    """One `"key": value` of an object: where its key starts and its value ends."""

    def __init__(self, key: str, start: int, value_start: int, end: int) -> None:
        self.key, self.start, self.value_start, self.end = key, start, value_start, end


def members(s: str, brace: int) -> list[Member]:
    """The members of the object whose `{` is at `brace` in the blanked text `s`."""
    found: list[Member] = []
    i = _skip_ws(s, brace + 1)
    while i < len(s) and s[i] != "}":
        key, after = _DECODER.raw_decode(s, i)
        colon = _skip_ws(s, after)
        value_start = _skip_ws(s, colon + 1)
        _, end = _DECODER.raw_decode(s, value_start)
        found.append(Member(key, i, value_start, end))
        i = _skip_ws(s, end)
        if i < len(s) and s[i] == ",":
            i = _skip_ws(s, i + 1)
    return found


def _line_indent(text: str, pos: int) -> str:
    start = text.rfind("\n", 0, pos) + 1
    head = text[start:pos]
    return head if not head.strip() else head[: len(head) - len(head.lstrip())]


def unit(text: str, s: str, top: int) -> str:
    """The file's indentation step: the indent of the top-level object's first member."""
    first = members(s, top)
    indent = _line_indent(text, first[0].start) if first else ""
    return indent if indent and "\n" in text[top : first[0].start] else "  "


def _newline(text: str) -> str:
    return "\r\n" if "\r\n" in text else "\n"


def insert_first(text: str, s: str, brace: int, member: str, unit: str) -> str:
    """`text` with `member` ("key": value, one or more lines) as the first member of the
    object at `brace`, on a line of its own, indented one `unit` deeper than the
    object's line."""
    nl = _newline(text)
    outer = _line_indent(text, brace)
    inner = outer + unit
    member = member.replace("\n", nl + inner)
    rest = members(s, brace)
    if rest:
        return text[: brace + 1] + nl + inner + member + "," + text[brace + 1 :]
    close = s.index("}", brace)
    return text[: brace + 1] + nl + inner + member + nl + outer + text[close:]


def remove(text: str, s: str, brace: int, key: str) -> str:
    """`text` without the member `key` of the object at `brace`: its key, value and the
    blanks before it, and one comma (the one after it, else the one before it); a
    comment around it stays."""
    found = members(s, brace)
    index = [n for n, m in enumerate(found) if m.key == key][-1]  # the one JSON keeps
    m = found[index]
    start = m.start
    while start > brace + 1 and s[start - 1] in _WS and text[start - 1] in _WS:
        start -= 1
    if index + 1 < len(found):  # a comma follows (a trailing one is blank in `s`)
        return text[:start] + text[s.index(",", m.end) + 1 :]
    after = _skip_ws(text, m.end)
    if after < len(text) and text[after] == ",":  # the last member, with a trailing comma
        return text[:start] + text[after + 1 :]
    if index > 0:
        comma = s.rindex(",", found[index - 1].end, m.start)
        return text[:comma] + text[comma + 1 : start] + text[m.end :]
    return text[:start] + text[m.end :]


def top_brace(path: Path, s: str) -> int:
    i = _skip_ws(s, 1 if s.startswith(BOM) else 0)
    if i >= len(s) or s[i] != "{":
        raise SettingsError(f"{shown(path)} does not hold a JSON object; left untouched")
    return i


def dumps(value: Any) -> str:
    """A value as one line of JSON, the way OpenCode's docs write entries."""
    return json.dumps(value, ensure_ascii=False)


def by_hand(path: Path, entry: dict[str, Any]) -> str:
    """What to tell a user whose file recall cannot edit safely."""
    return (
        f"{shown(path)} could not be edited without disturbing it; left untouched: add this "
        f'inside its "mcp" object by hand: "recall": {dumps(entry)}'
    )
