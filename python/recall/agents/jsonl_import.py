"""The plain import format: one `{"session","role","text","timestamp",...}` object a line.

Any chat history (exports, benchmarks, other tools) comes in through this and
the same ingest path as agent transcripts (docs/mirror.md).
"""

from __future__ import annotations

from collections.abc import Iterable
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


def _key(session: str, role: str, timestamp: str, text: str, seen: dict[str, int]) -> str:
    """A content key, so importing the same file twice changes nothing."""
    digest = sha1_hex(
        "\x1f".join((session, role, timestamp, text)).encode("utf-8", "surrogatepass")
    )[:20]
    n = seen.get(digest, 0)
    seen[digest] = n + 1
    return f"{session}#{digest}" + (f".{n}" if n else "")


class JsonlImportAdapter:
    name = DEFAULT_AGENT
    incremental = False
    """Imports are read whole: content keys need every earlier line of the file."""
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
        parsed = Parsed()
        seen: dict[str, dict[str, int]] = {}
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
            key = _key(session, role, timestamp or "", text, seen.setdefault(session, {}))
            part.messages.append(Message(key, role, text, timestamp))
        parsed.parts = list(parts.values())
        return parsed
