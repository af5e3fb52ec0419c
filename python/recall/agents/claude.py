"""Claude Code: `~/.claude/projects/<slug>/<session>.jsonl`, with its sub-agents.

One file is one session. Sub-agents become child sessions of their parent,
`<parent>:agent-<id>` (or `<parent>:sidechain` for 1.0.x inline sidechains
without an agent id), whichever layout they were written in:

- 2.1.x: `<project>/<parent>/subagents/[workflows/<wf>/]agent-<id>.jsonl`;
- 2.0.x: `<project>/agent-<id>.jsonl`, whose lines carry the parent's `sessionId`;
- 1.0.x: `isSidechain:true` lines inside the parent's own file.

What the path says (sub-agent id, parent) is worked out here; the lines are
read by the active core (`rust/src/claude.rs` or its twin `recall._twin.claude`).
The sub-agent's type comes from the `.meta.json` beside it.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from recall.agent_cli import RESUME
from recall.agent_homes import claude_homes
from recall.agents.base import decode_json, text_of
from recall.agents.transcript import Origin, parse_transcript
from recall.recordtypes import CLAUDE_IGNORED, CLAUDE_TITLE_TYPES
from recall.safeio import read_head
from recall.textutil import scrub
from recall.types import ASSISTANT, USER, Parsed

AGENT = "claude"
_META_LIMIT = 64 * 1024


def _str(value: Any) -> str:
    """A string field of a line, safe to store ('' when absent or not a string)."""
    return scrub(text_of(value))


def _layout(path: Path) -> tuple[str | None, str | None]:
    """`(agent id, parent from the path)` of a sub-agent file; `(None, None)` for a session."""
    stem = path.stem
    if not stem.startswith("agent-"):
        return None, None
    agent_id = stem[len("agent-") :] or stem
    for ancestor in list(path.parents)[:4]:
        if ancestor.name == "subagents" and ancestor.parent.name:
            return agent_id, ancestor.parent.name
    return agent_id, None


def _agent_type(path: Path) -> str:
    """`agentType` from the `agent-<id>.meta.json` beside a 2.1.x sub-agent transcript."""
    meta = path.with_name(path.stem + ".meta.json")
    try:
        with meta.open("rb") as fh:
            doc = decode_json(fh.read(_META_LIMIT))
    except (OSError, ValueError):
        return ""
    return _str(doc.get("agentType")) if isinstance(doc, dict) else ""


class ClaudeAdapter:
    """Claude Code's JSONL transcripts (docs/mirror.md, "Claude Code")."""

    name = AGENT
    resume = RESUME["claude"]
    incremental = True

    def default_roots(self) -> list[Path]:
        return [d / "projects" for d in claude_homes(Path.home())]

    def discover(self, root: Path) -> Iterable[Path]:
        if root.is_file():
            return [root] if root.suffix == ".jsonl" else []
        found: list[Path] = []
        for dirpath, dirnames, filenames in os.walk(root):
            dirnames[:] = [d for d in dirnames if d != "tool-results"]
            found.extend(Path(dirpath, n) for n in filenames if n.endswith(".jsonl"))
        # Sessions before sub-agents, so a parent is seen before its children.
        return sorted(found, key=lambda p: (p.name.startswith("agent-"), p.as_posix()))

    def owns(self, path: Path) -> bool:
        if path.suffix != ".jsonl":
            return False
        where = path.as_posix()
        if ("/.claude/" in where or "/claude/projects/" in where) and path.name != "history.jsonl":
            return True
        try:
            head = read_head(path, 64 * 1024)
        except OSError:
            return False
        for raw in head.splitlines():
            if raw.strip():
                return _looks_like_claude(raw)
        return False

    def whole_file(self, path: Path) -> bool:
        return False

    def origin(self, path: Path) -> Origin:
        """What the path says: stem, sub-agent id, parent session (2.1.x folders)."""
        agent_id, parent = _layout(path)
        return (
            scrub(path.stem),
            scrub(agent_id) if agent_id is not None else None,
            scrub(parent) if parent is not None else None,
            False,
        )

    def parse(self, path: Path, data: bytes, offset: int, state: dict[str, Any]) -> Parsed:
        origin = self.origin(path)
        parsed = parse_transcript(AGENT, data, offset, state, origin)
        children = [p for p in parsed.parts if p.info.parent_session_id is not None]
        agent_type = _agent_type(path) if origin[1] is not None and children else ""
        for part in children if agent_type else ():
            part.info.metadata = {"agent_type": agent_type, **part.info.metadata}
        return parsed


def _looks_like_claude(raw: bytes) -> bool:
    try:
        obj = decode_json(raw)
    except ValueError:
        return False
    if not isinstance(obj, dict) or "projectHash" in obj or "payload" in obj:
        return False
    kind = obj.get("type")
    if kind in (USER, ASSISTANT):
        return any(k in obj for k in ("message", "parentUuid", "sessionId", "uuid"))
    if isinstance(kind, str) and (kind in CLAUDE_TITLE_TYPES or kind in CLAUDE_IGNORED):
        return kind not in ("tool_use", "tool_result", "result") or "sessionId" in obj
    return "parentUuid" in obj and "sessionId" in obj


__all__ = ["ClaudeAdapter"]
