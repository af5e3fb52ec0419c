"""Factory Droid: `~/.factory/sessions/<cwd-slug>/<session-id>.jsonl`, one file a session.

Droid writes a `session_start` line (id, title, owner, cwd) and then one
`message` line per turn with Anthropic content; the lines are read by the core
(`rust/src/factory.rs`, twin `recall._twin.factory`). The `<id>.settings.json`
beside each file (model, token usage) holds no conversation and is not read;
older releases kept the files straight in `sessions/`, which is read too.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from recall.agent_cli import RESUME
from recall.agent_homes import factory_home
from recall.agents.transcript import Origin, jsonl_files, parse_transcript
from recall.jsonlines import sniff_json
from recall.safeio import read_head
from recall.textutil import scrub
from recall.types import Parsed

_SNIFF_BYTES = 64 * 1024


def _looks_like_droid(head: bytes) -> bool:
    """The first line is Droid's `session_start`: an id beside `owner` or `cwd` (Claude
    Code's lines carry `uuid` and `sessionId`, never this type)."""
    try:
        obj = sniff_json(head.split(b"\n", 1)[0])
    except ValueError:
        return False
    return (
        isinstance(obj, dict)
        and obj.get("type") == "session_start"
        and "id" in obj
        and ("owner" in obj or "cwd" in obj)
    )


class FactoryAdapter:
    name = "factory"
    incremental = True
    resume = RESUME["factory"]

    def default_roots(self) -> list[Path]:
        return [factory_home(Path.home()) / "sessions"]

    def discover(self, root: Path) -> Iterable[Path]:
        return sorted(p for p in jsonl_files(root) if p.is_file())

    def owns(self, path: Path) -> bool:
        if path.suffix != ".jsonl":
            return False
        if "/.factory/sessions/" in path.as_posix():
            return True
        try:
            return _looks_like_droid(read_head(path, _SNIFF_BYTES))
        except OSError:
            return False

    def whole_file(self, path: Path) -> bool:
        return False

    def origin(self, path: Path) -> Origin:
        return (scrub(path.stem), None, None, False)

    def parse(self, path: Path, data: bytes, offset: int, state: dict[str, Any]) -> Parsed:
        return parse_transcript(self.name, data, offset, state, self.origin(path))


__all__ = ["FactoryAdapter"]
