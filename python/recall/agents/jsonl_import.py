"""The plain import format: one `{"session","role","text","timestamp",...}` object a line.

Any chat history (exports, benchmarks, other tools) comes in through this and
the same ingest path as agent transcripts (docs/mirror.md).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from recall.agents.base import SKIP_BAD_SHAPE, iter_json_lines, text_of
from recall.digest import sha1_hex
from recall.types import (
    ASSISTANT,
    TITLE_USER_GIVEN,
    USER,
    Message,
    Origin,
    Parsed,
    SessionInfo,
    SessionPart,
)

DEFAULT_AGENT = "import"
_ROLES = {USER: USER, ASSISTANT: ASSISTANT, "human": USER, "ai": ASSISTANT, "model": ASSISTANT}


def content_key(session: str, role: str, timestamp: str, text: str) -> str:
    """A message's content key before numbering: the same line imported twice keys alike."""
    digest = sha1_hex(
        "\x1f".join((session, role, timestamp, text)).encode("utf-8", "surrogatepass")
    )[:20]
    return f"{session}#{digest}"


Numbering = Callable[[list[str]], list[int]]
"""For each content key, in file order, how many times the same key came earlier in the
file: the k-th repeat of a line is keyed `<key>.k`, so repeats are kept, not merged."""


def numbering() -> Numbering:
    """Numbering for one document parsed whole, held in memory (the streamed import keeps
    its count in SQLite instead: `recall.imports`)."""
    seen: dict[str, int] = {}

    def number(keys: list[str]) -> list[int]:
        out = []
        for key in keys:
            n = seen.get(key, 0)
            seen[key] = n + 1
            out.append(n)
        return out

    return number


def number_keys(parsed: Parsed, number: Numbering) -> None:
    """Give every message of `parsed` (keyed by `content_key`) its final, numbered key."""
    numbers = iter(number([m.key for part in parsed.parts for m in part.messages]))
    for part in parsed.parts:
        part.messages = [
            Message(f"{m.key}.{n}", m.role, m.text, m.timestamp) if (n := next(numbers)) else m
            for m in part.messages
        ]


class JsonlImportAdapter:
    name = DEFAULT_AGENT
    incremental = False
    """Read whole by `ingest_path`; `recall ingest --format jsonl` streams them instead
    (`recall.imports`), numbering repeated lines across pieces."""
    resume: tuple[str, ...] = ()
    """Imported sessions belong to no agent that can reopen them."""

    def default_roots(self) -> list[Path]:
        return []

    def discover(self, root: Path) -> Iterable[Path]:
        return sorted(root.rglob("*.jsonl"))

    def owns(self, path: Path) -> bool:
        return False

    def whole_file(self, path: Path) -> bool:
        return True

    def origin(self, path: Path) -> Origin:
        """An import's path names no session: each line names its own."""
        return ("", None, None, False)

    def parse(self, path: Path, data: bytes, offset: int, state: dict[str, Any]) -> Parsed:
        parsed = read(data, offset)
        number_keys(parsed, numbering())
        return parsed


def read(data: bytes, offset: int = 0) -> Parsed:
    """The sessions of the lines in `data`, messages keyed by `content_key` (not yet
    numbered); `parsed.offset` is the end of the last complete line."""
    parsed = Parsed()
    parts: dict[str, SessionPart] = {}
    for _, obj in iter_json_lines(data, parsed, base=offset):
        session = obj.get("session", obj.get("session_id"))
        if isinstance(session, int) and not isinstance(session, bool):
            session = str(session)
        role = _ROLES.get(text_of(obj.get("role")).lower())
        text = text_of(obj.get("text", obj.get("content")))
        if not isinstance(session, str) or not session.strip() or role is None:
            parsed.skip(SKIP_BAD_SHAPE)
            continue
        part = parts.get(session)
        if part is None:
            agent = text_of(obj.get("agent")).strip() or DEFAULT_AGENT
            part = parts[session] = SessionPart(info=SessionInfo(session, agent))
        info = part.info
        info.project = text_of(obj.get("project")).strip() or info.project
        title = text_of(obj.get("title")).strip()
        if title:
            info.title, info.title_rank = title, TITLE_USER_GIVEN
        text = text.strip()
        if not text:
            continue
        timestamp = text_of(obj.get("timestamp")) or None
        key = content_key(session, role, timestamp or "", text)
        part.messages.append(Message(key, role, text, timestamp))
    parsed.parts = list(parts.values())
    return parsed
