"""The adapter protocol, and the JSON helpers adapters share (from `recall.jsonlines`)."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any, Protocol

from recall.jsonlines import (
    SKIP_BAD_SHAPE,
    SKIP_BAD_UTF8,
    SKIP_BROKEN,
    SKIP_NOT_OBJECT,
    SKIP_UNKNOWN,
    decode_json,
    iter_json_lines,
    load_json_document,
    text_of,
)
from recall.types import Origin, Parsed


class Adapter(Protocol):
    """One agent's transcripts: where they live and how to read them.

    Adding an agent means writing one of these and listing it in
    `recall.agents.ADAPTERS`; nothing else changes.
    """

    name: str
    incremental: bool
    """True when `parse` can resume from a byte offset (append-only JSONL)."""
    resume: tuple[str, ...]
    """The agent's own command that reopens a session, its id appended, run in the
    session's project folder (`recall resume`; docs/agents.md); empty when there is none."""

    def default_roots(self) -> list[Path]:
        """Directories searched by `recall sync` (honouring the agent's env vars)."""
        ...

    def discover(self, root: Path) -> Iterable[Path]:
        """Every transcript file under `root`."""
        ...

    def owns(self, path: Path) -> bool:
        """Whether `path` looks like this agent's transcript (for `ingest PATH`)."""
        ...

    def whole_file(self, path: Path) -> bool:
        """Whether `path` must be re-read from the start on every change (a JSON
        document rather than JSONL); always true when the adapter is not incremental."""
        ...

    def origin(self, path: Path) -> Origin:
        """What the path alone says: `(file_id, agent_id, parent, document)` (`_core.pyi`)."""
        ...

    def parse(self, path: Path, data: bytes, offset: int, state: dict[str, Any]) -> Parsed:
        """Parse `data`: the file's bytes from `offset` on (all of it if not incremental).

        `state` is what the previous parse returned (empty at offset 0).
        `Parsed.offset` is relative to `data`. Never raises on bad content:
        unreadable records are skipped and counted.
        """
        ...


__all__ = [
    "SKIP_BAD_SHAPE",
    "SKIP_BAD_UTF8",
    "SKIP_BROKEN",
    "SKIP_NOT_OBJECT",
    "SKIP_UNKNOWN",
    "Adapter",
    "decode_json",
    "iter_json_lines",
    "load_json_document",
    "text_of",
]
