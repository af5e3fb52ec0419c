"""The adapter protocol, and the JSON helpers adapters share (from `recall.jsonlines`)."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

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
from recall.record import Record
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


STORE_MARK = "#session="
"""Between a store's path and a session id in the key the index keeps a stored session
under (`transcripts.path`): no transcript file is named so, and `show --raw` knows it."""


def store_key(source: Path, session_id: str) -> str:
    """The index's key for one session of the database (or storage folder) `source`."""
    return f"{source}{STORE_MARK}{session_id}"


def store_source(key: str) -> str | None:
    """The database or folder a stored session's key names; None for a transcript file."""
    source, mark, _ = key.rpartition(STORE_MARK)
    return source if mark else None


class StoredSession(Record):
    """One session kept in an agent's database, or spread over many files of a storage
    folder: what `recall sync` needs to tell whether it changed since the last read."""

    key: str
    """`store_key(source, session_id)`: where the index records how far it read."""
    fingerprint: str
    """Changes whenever the session's rows do (update times and counts, never the
    file's mtime, which every other session of the database moves too)."""
    source: Path
    session_id: str


@runtime_checkable
class SessionStore(Protocol):
    """An agent whose sessions live in a database or a storage tree rather than one file
    each. Such an adapter is also an `Adapter` (its `discover` finds the plain files it
    has, if any); `recall sync` asks it for sessions as well."""

    name: str

    def default_roots(self) -> list[Path]: ...

    def sessions(self, root: Path) -> Iterable[StoredSession]:
        """Every session under `root` (a folder, or a database file) with its fingerprint.

        May raise sqlite3.Error or OSError: sync logs it and leaves what the index
        holds of that store as it is.
        """
        ...

    def read_session(self, stored: StoredSession) -> Parsed:
        """The whole session: one part (or a parent and its sub-agents), the messages in
        order. Never raises on bad content; unreadable rows are skipped and counted."""
        ...


__all__ = [
    "SKIP_BAD_SHAPE",
    "SKIP_BAD_UTF8",
    "SKIP_BROKEN",
    "SKIP_NOT_OBJECT",
    "SKIP_UNKNOWN",
    "STORE_MARK",
    "Adapter",
    "SessionStore",
    "StoredSession",
    "decode_json",
    "iter_json_lines",
    "load_json_document",
    "store_key",
    "store_source",
    "text_of",
]
