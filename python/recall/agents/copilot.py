"""GitHub Copilot CLI: `~/.copilot/session-state/<sessionId>/events.jsonl` (`$COPILOT_HOME`).

Versions before ~0.0.342 wrote the same events flat, `session-state/<id>.jsonl`;
both are read. The events are parsed by the core (`rust/src/copilot.rs`,
twin `recall._twin.copilot`). The title is never in the events (title
changes are ephemeral): it comes from the session's `workspace.yaml`
(`summary`) or, failing that, from Copilot's own index `session-store.db`
(`sessions.summary`), opened read-only with a short busy timeout so Copilot,
which holds it in WAL mode, is never kept waiting. The even older
`history-session-state/*.json` documents are not read (see docs/agents.md).
"""

from __future__ import annotations

import json
import re
import sqlite3
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from recall.agent_cli import RESUME
from recall.agent_homes import copilot_home
from recall.agents.transcript import Origin, parse_transcript
from recall.jsonlines import sniff_json
from recall.safeio import open_regular, read_head
from recall.textutil import scrub
from recall.types import TITLE_AGENT, Parsed

_SNIFF_BYTES = 64 * 1024
_YAML_BYTES = 64 * 1024
_KEY = re.compile(r"^([A-Za-z_][\w-]*):(?:\s+(.*))?$")
_EVENT_PREFIXES = ("session.", "user.", "assistant.", "tool.", "system.", "subagent.", "hook.")


def workspace_yaml(path: Path) -> dict[str, str]:
    """The top-level `key: value` pairs of a flat YAML map (Copilot's `workspace.yaml`):
    plain, single- and double-quoted scalars and `|`/`>` blocks; anything else is
    left out. Never raises on content."""
    try:
        with open_regular(path) as fh:
            text = fh.read(_YAML_BYTES).decode("utf-8", "replace")
    except OSError:
        return {}
    out: dict[str, str] = {}
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        match = _KEY.match(lines[i])
        i += 1
        if match is None:
            continue
        key, raw = match.group(1), (match.group(2) or "").strip()
        if raw[:1] in ("|", ">"):
            block = []
            while i < len(lines) and (not lines[i].strip() or lines[i][:1] in (" ", "\t")):
                block.append(lines[i].strip())
                i += 1
            joiner = "\n" if raw[0] == "|" else " "
            out[key] = joiner.join(block).strip()
        else:
            out[key] = _scalar(raw)
    return out


def _scalar(raw: str) -> str:
    if raw.startswith('"') and raw.endswith('"') and len(raw) >= 2:
        try:
            value = json.loads(raw)
        except ValueError:
            return raw[1:-1]
        return value if isinstance(value, str) else raw[1:-1]
    if raw.startswith("'") and raw.endswith("'") and len(raw) >= 2:
        return raw[1:-1].replace("''", "'")
    return raw.split(" #", 1)[0].strip()


def store_summary(database: Path, session_id: str) -> str | None:
    """`sessions.summary` of one session in Copilot's `session-store.db`, read-only."""
    if not database.is_file():
        return None
    try:
        conn = sqlite3.connect(f"{database.resolve().as_uri()}?mode=ro", uri=True, timeout=0.2)
    except (sqlite3.Error, ValueError, OSError):
        return None
    try:
        row = conn.execute("SELECT summary FROM sessions WHERE id = ?", (session_id,)).fetchone()
    except sqlite3.Error:
        return None
    finally:
        conn.close()
    return row[0] if row and isinstance(row[0], str) else None


def _session_dir(path: Path) -> bool:
    return path.name == "events.jsonl"


class CopilotAdapter:
    name = "copilot"
    incremental = True
    resume = RESUME["copilot"]
    """No command is known to reopen a session by id (docs/agents.md, "Resuming")."""

    def default_roots(self) -> list[Path]:
        return [copilot_home(Path.home()) / "session-state"]

    def discover(self, root: Path) -> Iterable[Path]:
        if (root / "session-state").is_dir():
            root = root / "session-state"
        try:
            found = [*root.glob("*/events.jsonl"), *root.glob("*.jsonl")]
        except OSError:
            return []
        return sorted(p for p in found if p.is_file())

    def owns(self, path: Path) -> bool:
        if path.suffix != ".jsonl":
            return False
        if "/.copilot/" in path.as_posix() and "session-state" in path.parts:
            return True
        try:
            obj = sniff_json(read_head(path, _SNIFF_BYTES).split(b"\n", 1)[0])
        except (OSError, ValueError):
            return False
        kind = obj.get("type") if isinstance(obj, dict) else None
        return isinstance(kind, str) and kind.startswith(_EVENT_PREFIXES) and "data" in obj

    def whole_file(self, path: Path) -> bool:
        return False

    def origin(self, path: Path) -> Origin:
        """The session id the path gives: its folder (`<id>/events.jsonl`) or its stem."""
        return (scrub(path.parent.name if _session_dir(path) else path.stem), None, None, False)

    def parse(self, path: Path, data: bytes, offset: int, state: dict[str, Any]) -> Parsed:
        parsed = parse_transcript(self.name, data, offset, state, self.origin(path))
        main = [p for p in parsed.parts if p.info.parent_session_id is None]
        if main:
            title, cwd = self._described(path, main[0].info.session_id)
            for part in main:
                if title:
                    part.info.title, part.info.title_rank = title, TITLE_AGENT
                part.info.project = part.info.project or cwd
        return parsed

    def _described(self, path: Path, session_id: str) -> tuple[str | None, str | None]:
        """The session's title and cwd from its `workspace.yaml`, then the title from
        `session-store.db` (`<home>/session-state/…` puts it in `<home>`)."""
        workspace = workspace_yaml(path.with_name("workspace.yaml")) if _session_dir(path) else {}
        title = scrub(workspace.get("summary", "")).strip() or None
        cwd = scrub(workspace.get("cwd", "")).strip() or None
        if title is None:
            state_dir = path.parent.parent if _session_dir(path) else path.parent
            summary = store_summary(state_dir.parent / "session-store.db", session_id)
            title = scrub(summary).strip() or None if summary else None
        return title, cwd


__all__ = ["CopilotAdapter"]
