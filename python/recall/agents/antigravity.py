"""Antigravity CLI (`agy`): its conversations' step logs, one file each.

`~/.gemini/antigravity-cli/brain/<id>/.system_generated/logs/transcript.jsonl`:
one step a line (`step_index`, `source`, `type`, `content`, `created_at`),
read by the core (`rust/src/antigravity.rs`, twin `recall._twin.antigravity`).
The session id is the conversation folder's name, the one `agy --conversation
ID` reopens. Its sibling `transcript_full.jsonl` holds the same steps and is
not read. Not read either: the Antigravity IDE's `~/.gemini/antigravity/
conversations/*.pb` (protobuf, no public schema) and the older CLI's
`brain/<id>/*.md` artifacts (plans and walkthroughs, not the conversation).
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from recall.agent_cli import RESUME
from recall.agent_homes import antigravity_home
from recall.agents.transcript import Origin, parse_transcript
from recall.jsonlines import sniff_json
from recall.safeio import read_head
from recall.textutil import scrub
from recall.types import Parsed

_SNIFF_BYTES = 64 * 1024
_SNIFF_LINES = 8
_NAME = "transcript.jsonl"
_LOGS = (".system_generated", "logs", _NAME)


def conversation_id(path: Path) -> str:
    """`brain/<id>/…` → `<id>`; else the folder holding `.system_generated`; else the stem."""
    parts = path.parts
    if "brain" in parts[:-1]:
        at = len(parts) - 1 - parts[::-1].index("brain")
        if at + 1 < len(parts) - 1:
            return parts[at + 1]
    if ".system_generated" in parts:
        at = parts.index(".system_generated")
        if at > 0:
            return parts[at - 1]
    return path.stem


def _looks_like_steps(head: bytes) -> bool:
    """Every step carries `step_index` beside a string `type`; no other agent's lines do."""
    for raw in head.split(b"\n")[:_SNIFF_LINES]:
        try:
            obj = sniff_json(raw)
        except ValueError:
            continue
        return isinstance(obj, dict) and "step_index" in obj and isinstance(obj.get("type"), str)
    return False


class AntigravityAdapter:
    name = "antigravity"
    incremental = True
    resume = RESUME["antigravity"]

    def default_roots(self) -> list[Path]:
        return [antigravity_home(Path.home()) / "brain"]

    def discover(self, root: Path) -> Iterable[Path]:
        if (root / "brain").is_dir():
            root = root / "brain"
        try:
            found = root.glob("*/" + "/".join(_LOGS))
            return sorted(p for p in found if p.is_file())
        except OSError:
            return []

    def owns(self, path: Path) -> bool:
        if path.suffix != ".jsonl":
            return False
        if path.parts[-3:] == _LOGS and "/antigravity-cli/" in path.as_posix():
            return True
        try:
            return _looks_like_steps(read_head(path, _SNIFF_BYTES))
        except OSError:
            return False

    def whole_file(self, path: Path) -> bool:
        return False

    def origin(self, path: Path) -> Origin:
        return (scrub(conversation_id(path)), None, None, False)

    def parse(self, path: Path, data: bytes, offset: int, state: dict[str, Any]) -> Parsed:
        return parse_transcript(self.name, data, offset, state, self.origin(path))


__all__ = ["AntigravityAdapter", "conversation_id"]
