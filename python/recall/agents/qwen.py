"""Qwen Code: `~/.qwen/projects/<cwd>/chats/<sessionId>.jsonl` (older: `~/.qwen/tmp/<hash>/chats/`).

`$QWEN_HOME` moves `~/.qwen`, and `$QWEN_RUNTIME_DIR` the folder the chats are
written to. The records (`ChatRecord`: `uuid`, `parentUuid`, a Gemini
`Content` message) are read by the core (`rust/src/qwen.rs`, twin
`recall._twin.qwen`); the conversation is the tree's active branch, re-read
whole when it moves back (`recall.agents.transcript.parse_branching`).
Archived chats (`chats/archive/`) are read too: they are the user's history.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from recall.agent_cli import RESUME
from recall.agent_homes import qwen_homes
from recall.agents.transcript import Origin, jsonl_files, parse_branching
from recall.jsonlines import sniff_json
from recall.safeio import read_head
from recall.textutil import scrub
from recall.types import Parsed

_SNIFF_BYTES = 64 * 1024
_SNIFF_LINES = 8


def _looks_like_qwen(head: bytes) -> bool:
    """A `ChatRecord`: Claude's lines look alike, but their message has `content`
    where Qwen's (a Gemini `Content`) has `parts`, and only Qwen writes `systemPayload`."""
    for raw in head.split(b"\n")[:_SNIFF_LINES]:
        try:
            obj = sniff_json(raw)
        except ValueError:
            continue
        if not isinstance(obj, dict) or "uuid" not in obj or "sessionId" not in obj:
            return False
        if "systemPayload" in obj:
            return True
        message = obj.get("message")
        if isinstance(message, dict):
            return "parts" in message and "content" not in message
    return False


class QwenAdapter:
    name = "qwen"
    incremental = True
    resume = RESUME["qwen"]
    """No command is known to reopen a session by id (docs/agents.md, "Resuming")."""

    def default_roots(self) -> list[Path]:
        roots = []
        for home in qwen_homes(Path.home()):
            roots += [home / "projects", home / "tmp"]
        return roots

    def discover(self, root: Path) -> Iterable[Path]:
        return sorted(p for p in jsonl_files(root) if "chats" in p.parent.parts and p.is_file())

    def owns(self, path: Path) -> bool:
        if path.suffix != ".jsonl":
            return False
        if "/.qwen/" in path.as_posix() and "chats" in path.parts:
            return True
        try:
            return _looks_like_qwen(read_head(path, _SNIFF_BYTES))
        except OSError:
            return False

    def whole_file(self, path: Path) -> bool:
        return False

    def origin(self, path: Path) -> Origin:
        return (scrub(path.stem), None, None, False)

    def parse(self, path: Path, data: bytes, offset: int, state: dict[str, Any]) -> Parsed:
        return parse_branching(self.name, path, data, offset, state, self.origin(path))


__all__ = ["QwenAdapter"]
