"""JSONL framing and what counts as a broken record: the rules `rust/src/jsonlines.rs`
implements natively, in Python for the twin's parsers, the import format and the
adapters' sniffers (which read a line or two whichever core runs).

Both cores apply one rule set: a line with invalid UTF-8 anywhere is
"invalid UTF-8"; otherwise a line neither msgspec nor the stdlib `json`
(which also takes `NaN`/`Infinity` and lone surrogate escapes) reads, or one
nested deeper than `MAX_DEPTH`, is "broken JSON". The depth rule is explicit
so that the answer never depends on how deep the Python stack happened to be.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import Any

from recall.types import Parsed

_msgspec: tuple[Callable[[bytes], Any], type[Exception]] | None = None


def _fast_decoder() -> tuple[Callable[[bytes], Any], type[Exception]]:
    """msgspec's decoder and its error, imported on first use: a hook with the Rust
    core imports this module (adapters share its constants) but never decodes here."""
    global _msgspec
    if _msgspec is None:
        import msgspec

        _msgspec = (msgspec.json.Decoder().decode, msgspec.DecodeError)
    return _msgspec


MAX_DEPTH = 256
"""Containers nested deeper than this make a record unreadable (both cores)."""

SKIP_BROKEN = "broken JSON"
SKIP_NOT_OBJECT = "not an object"
SKIP_BAD_UTF8 = "invalid UTF-8"
SKIP_UNKNOWN = "unknown record type"
SKIP_BAD_SHAPE = "unexpected shape"


def _too_deep(value: Any) -> bool:
    """Whether containers in a decoded value nest deeper than `MAX_DEPTH`."""
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict):
            item = list(item.values())
        elif not isinstance(item, list):
            continue
        if depth > MAX_DEPTH:
            return True
        stack.extend((child, depth + 1) for child in item if isinstance(child, dict | list))
    return False


def sniff_json(raw: bytes) -> Any:
    """Decode one short JSON line with the stdlib alone: what an adapter reads to tell
    whose file a path is. A hook asks every adapter that question, and msgspec's
    import would cost it more than the line takes to decode (`decode_json` for data)."""
    try:
        return json.loads(raw.decode("utf-8"))
    except RecursionError:
        raise ValueError("JSON nested too deeply") from None


def decode_json(raw: bytes) -> Any:
    """Decode one JSON value; raises ValueError (broken) or UnicodeDecodeError (not UTF-8).

    msgspec is the fast path; the stdlib is the lenient fallback for what
    msgspec refuses but real files contain (lone surrogate escapes written
    by JavaScript when a string was cut mid-emoji).
    """
    decode, error = _msgspec or _fast_decoder()
    try:
        value = decode(raw)
    except error:
        try:
            value = json.loads(raw.decode("utf-8"))
        except RecursionError:
            raise ValueError("JSON nested too deeply") from None
    except RecursionError:
        raw.decode("utf-8")  # invalid UTF-8 is reported as such, however deep
        raise ValueError("JSON nested too deeply") from None
    # Counting brackets is cheap; only a line with many needs the walk.
    if raw.count(b"[") + raw.count(b"{") > MAX_DEPTH and _too_deep(value):
        raise ValueError("JSON nested too deeply")
    return value


def text_of(value: Any) -> str:
    """The string value of a JSON field, or '' when it is absent or not a string."""
    return value if isinstance(value, str) else ""


def iter_json_lines(
    data: bytes, parsed: Parsed, base: int = 0
) -> Iterator[tuple[int, dict[str, Any]]]:
    """Yield `(file_offset, object)` for each JSON-object line of `data`.

    `base` is the file offset of `data[0]`, so yielded offsets are stable ids
    for the line across incremental reads.

    Sets `parsed.offset` to the end of the last newline-terminated line. A
    final line without a newline is yielded only if it is complete JSON (a
    finished file may lack the trailing newline); a half-written one is left
    for the next read, uncounted. Broken, non-object and non-UTF-8 lines are
    skipped and counted.
    """
    end = data.rfind(b"\n") + 1
    parsed.offset = end
    pos = 0
    size = len(data)
    while pos < size:
        nl = data.find(b"\n", pos)
        complete = nl >= 0
        stop = nl if complete else size
        line = data[pos:stop]
        start = pos
        pos = stop + 1 if complete else size
        if not line.strip():
            continue
        try:
            obj = decode_json(line)
        except UnicodeDecodeError:
            if complete:
                parsed.skip(SKIP_BAD_UTF8)
            continue
        except ValueError:
            if complete:
                parsed.skip(SKIP_BROKEN)
            continue
        if not isinstance(obj, dict):
            parsed.skip(SKIP_NOT_OBJECT)
            continue
        yield base + start, obj


def load_json_document(data: bytes, parsed: Parsed) -> Any:
    """Parse a whole-file JSON document, counting it as skipped if unreadable."""
    parsed.offset = len(data)
    try:
        return decode_json(data)
    except UnicodeDecodeError:
        parsed.skip(SKIP_BAD_UTF8)
    except ValueError:
        parsed.skip(SKIP_BROKEN)
    return None
