"""Codex CLI rollouts: `~/.codex/sessions/YYYY/MM/DD/rollout-<ts>-<uuid>.jsonl` (docs/mirror.md).

Discovery and sniffing live here; the records are read by the active core
(`rust/src/codex.rs` or its twin `recall._twin.codex`, which documents the rules).
A rollout's session id falls back to the uuid at the end of its file name.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from recall.agent_cli import RESUME
from recall.agent_homes import codex_home
from recall.agents.transcript import Origin, jsonl_files, parse_transcript
from recall.recordtypes import CODEX_ENVELOPES
from recall.safeio import read_head
from recall.textutil import scrub
from recall.types import Parsed

_UUID_TAIL = re.compile(
    r"([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$", re.IGNORECASE
)
_SNIFF_BYTES = 64 * 1024


def _session_id_from_name(path: Path) -> str:
    match = _UUID_TAIL.search(path.stem)
    return match.group(1).lower() if match else path.stem


def _sniff(obj: Any) -> bool:
    if not isinstance(obj, dict):
        return False
    if obj.get("type") in CODEX_ENVELOPES and "payload" in obj:
        return True
    if "record_type" in obj:
        return True
    return "type" not in obj and "id" in obj and ("instructions" in obj or "git" in obj)


class CodexAdapter:
    name = "codex"
    resume = RESUME["codex"]
    incremental = True

    def default_roots(self) -> list[Path]:
        base = codex_home(Path.home())
        return [base / "sessions", base / "archived_sessions"]

    def discover(self, root: Path) -> Iterable[Path]:
        roots = [root / d for d in ("sessions", "archived_sessions") if (root / d).is_dir()]
        found: set[Path] = set()
        for top in roots or [root]:
            found.update(p for p in jsonl_files(top) if p.is_file())
        return sorted(found)

    def owns(self, path: Path) -> bool:
        try:
            if "/.codex/" in path.as_posix() or path.name.startswith("rollout-"):
                return True
            head = read_head(path, _SNIFF_BYTES)
            first = head.split(b"\n", 1)[0]
            return _sniff(json.loads(first.decode("utf-8")))
        except (OSError, ValueError):
            return False

    def whole_file(self, path: Path) -> bool:
        return False

    def origin(self, path: Path) -> Origin:
        """What the path says: the session id its file name ends with."""
        return (scrub(_session_id_from_name(path)), None, None, False)

    def parse(self, path: Path, data: bytes, offset: int, state: dict[str, Any]) -> Parsed:
        return parse_transcript(self.name, data, offset, state, self.origin(path))
