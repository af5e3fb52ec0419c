"""The adapter protocol and the line-reading helpers every JSONL adapter shares."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any, Protocol

import msgspec

from recall.types import Parsed

_decode = msgspec.json.Decoder().decode


def decode_json(raw: bytes) -> Any:
    """Decode one JSON value; raises ValueError (broken) or UnicodeDecodeError (not UTF-8).

    msgspec is the fast path; the stdlib is the lenient fallback for what
    msgspec refuses but real files contain (lone surrogate escapes written
    by JavaScript when a string was cut mid-emoji). Nesting too deep for
    either is reported as broken.
    """
    try:
        return _decode(raw)
    except msgspec.DecodeError:
        pass
    except RecursionError:
        raise ValueError("JSON nested too deeply") from None
    try:
        return json.loads(raw.decode("utf-8"))
    except RecursionError:
        raise ValueError("JSON nested too deeply") from None


# Reasons a record is skipped, as shown in `recall sync`'s summary.
SKIP_BROKEN = "broken JSON"
SKIP_NOT_OBJECT = "not an object"
SKIP_BAD_UTF8 = "invalid UTF-8"
SKIP_UNKNOWN = "unknown record type"
SKIP_BAD_SHAPE = "unexpected shape"


class Adapter(Protocol):
    """One agent's transcripts: where they live and how to read them.

    Adding an agent means writing one of these and listing it in
    `recall.agents.ADAPTERS`; nothing else changes.
    """

    name: str
    incremental: bool
    """True when `parse` can resume from a byte offset (append-only JSONL)."""

    def default_roots(self) -> list[Path]:
        """Directories searched by `recall sync` (honouring the agent's env vars)."""
        ...

    def discover(self, root: Path) -> Iterable[Path]:
        """Every transcript file under `root`."""
        ...

    def owns(self, path: Path) -> bool:
        """Whether `path` looks like this agent's transcript (for `ingest PATH`)."""
        ...

    def parse(self, path: Path, data: bytes, offset: int, state: dict[str, Any]) -> Parsed:
        """Parse `data`: the file's bytes from `offset` on (all of it if not incremental).

        `state` is what the previous parse returned (empty at offset 0).
        `Parsed.offset` is relative to `data`. Never raises on bad content:
        unreadable records are skipped and counted.
        """
        ...


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


def text_of(value: Any) -> str:
    """The string value of a JSON field, or '' when it is absent or not a string."""
    return value if isinstance(value, str) else ""


def shorten(text: str, limit: int = 80) -> str:
    """First line of `text`, cut at a word boundary to at most `limit` characters."""
    line = " ".join(text.split())
    if len(line) <= limit:
        return line
    cut = line[: limit - 1].rsplit(" ", 1)[0] or line[: limit - 1]
    return cut + "…"
