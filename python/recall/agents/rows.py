"""Small rules the database and JSON-document adapters share: a row's JSON value, a
time in whatever unit the agent wrote it, a fingerprint, a placeholder title.

Each agent writes JSON into its rows (OpenCode's `data`, Cursor's `value`, Goose's
`content_json`); a value can be text or a blob, `null`, broken, or of the wrong type.
Those are skipped and counted as in a transcript, never raised.
"""

from __future__ import annotations

import re
from typing import Any

from recall.digest import sha1_hex
from recall.jsonlines import SKIP_BAD_SHAPE, SKIP_BAD_UTF8, SKIP_BROKEN, decode_json
from recall.textutil import scrub
from recall.timeutil import format_ts, parse_iso
from recall.types import Parsed

_PLACEHOLDER = re.compile(r"^(new|child) session( - \d{4}-\d\d-\d\d.*)?$", re.IGNORECASE)


def json_object(raw: Any, parsed: Parsed) -> dict[str, Any] | None:
    """A row value decoded as a JSON object; None (counted) when it is not one.
    A JSON `null` row (Cursor leaves some) is nothing to count."""
    if raw is None:
        return None
    if isinstance(raw, str):
        raw = raw.encode("utf-8", "surrogatepass")
    if not isinstance(raw, bytes):
        parsed.skip(SKIP_BAD_SHAPE)
        return None
    try:
        value = decode_json(raw)
    except UnicodeDecodeError:
        parsed.skip(SKIP_BAD_UTF8)
        return None
    except ValueError:
        parsed.skip(SKIP_BROKEN)
        return None
    if value is None:
        return None
    if not isinstance(value, dict):
        parsed.skip(SKIP_BAD_SHAPE)
        return None
    return value


def json_array(raw: Any, parsed: Parsed) -> list[Any]:
    """A row value decoded as a JSON array (Crush's `parts`, Goose's `content_json`);
    [] (counted) when it is not one."""
    if isinstance(raw, str):
        raw = raw.encode("utf-8", "surrogatepass")
    if not isinstance(raw, bytes):
        parsed.skip(SKIP_BAD_SHAPE)
        return []
    try:
        value = decode_json(raw)
    except UnicodeDecodeError:
        parsed.skip(SKIP_BAD_UTF8)
        return []
    except ValueError:
        parsed.skip(SKIP_BROKEN)
        return []
    if not isinstance(value, list):
        parsed.skip(SKIP_BAD_SHAPE)
        return []
    return value


def when(value: Any) -> str | None:
    """An ISO-8601 time from epoch seconds, epoch milliseconds or an ISO string."""
    return format_ts(parse_iso(value))


def string(value: Any) -> str:
    """A text field, stripped and storable; '' when absent or not a string."""
    return scrub(value).strip() if isinstance(value, str) else ""


def fingerprint(*values: Any) -> str:
    """A short digest of what says a session changed (update times, counts, sizes)."""
    return sha1_hex(repr(values).encode("utf-8", "surrogatepass"))[:20]


def real_title(title: str) -> str:
    """`title` unless it is an agent's placeholder ('New session - 2026-…')."""
    return "" if _PLACEHOLDER.match(title) else title


__all__ = ["fingerprint", "json_array", "json_object", "real_title", "string", "when"]
