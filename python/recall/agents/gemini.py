"""Gemini CLI chats: `~/.gemini/tmp/<project>/chats/session-*.jsonl` (docs/mirror.md).

Discovery, sniffing and the project root on disk live here; the records are
read by the active core (`rust/src/gemini.rs` or its twin `recall._twin.gemini`,
which documents the rules). Legacy `.json` chats are read whole (`whole_file`).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from recall.agent_cli import RESUME
from recall.agent_homes import gemini_home
from recall.agents.transcript import Origin, parse_transcript
from recall.digest import sha256_hex
from recall.safeio import open_regular
from recall.textutil import scrub
from recall.types import Parsed

_SNIFF_BYTES = 64 * 1024
_MAX_SNIFF_DOC = 64 * 1024 * 1024


def _project_from_disk(path: Path, project_hash: str | None) -> str | None:
    """The project root Gemini recorded for the transcript's project folder.

    `<tmp>/<projectId>/.project_root` holds it; failing that, `~/.gemini/projects.json`
    maps roots to slugs, and the legacy hash folders are `sha256(root)`.
    """
    chats = path.parent if path.parent.name == "chats" else path.parent.parent
    if chats.name != "chats":
        return None
    folder = chats.parent
    try:
        marker = folder / ".project_root"
        if marker.is_file():
            return marker.read_text("utf-8").strip() or None
        registry = folder.parent.parent / "projects.json"
        if not registry.is_file():
            return None
        projects = json.loads(registry.read_text("utf-8")).get("projects")
        for root, slug in projects.items() if isinstance(projects, dict) else ():
            digest = sha256_hex(root.encode("utf-8"))
            if (
                slug == folder.name
                or folder.name in (digest, digest[:16])
                or (project_hash and len(project_hash) >= 16 and digest.startswith(project_hash))
            ):
                return str(root)
    except (OSError, ValueError, AttributeError):
        return None
    return None


def _sniff(obj: Any) -> bool:
    if not isinstance(obj, dict):
        return False
    if "$set" in obj or "$rewindTo" in obj or isinstance(obj.get("messages"), list):
        return True
    if "sessionId" in obj and "projectHash" in obj:
        return True
    history = obj.get("history")
    return isinstance(history, list) and all(
        isinstance(h, dict) and "role" in h and "parts" in h for h in history
    )


class GeminiAdapter:
    name = "gemini"
    resume = RESUME["gemini"]
    incremental = True
    """JSONL chats resume from an offset; legacy `.json` ones are read whole."""

    def whole_file(self, path: Path) -> bool:
        return path.suffix == ".json"

    def default_roots(self) -> list[Path]:
        return [gemini_home(Path.home()) / "tmp"]

    def discover(self, root: Path) -> Iterable[Path]:
        if (root / "tmp").is_dir() and not (root / "chats").is_dir():
            root = root / "tmp"
        if root.name == "chats":
            chat_dirs = [root]
        elif (root / "chats").is_dir():
            chat_dirs = [root / "chats"]
        else:
            chat_dirs = sorted(root.glob("*/chats"))
        found: set[Path] = set()
        try:
            for chats in chat_dirs:
                found.update(chats.glob("session-*.jsonl"))
                found.update(chats.glob("*/*.jsonl"))
                found.update(
                    p for p in chats.glob("session-*.json") if not p.with_suffix(".jsonl").exists()
                )
        except OSError:
            pass
        return sorted(p for p in found if p.is_file())

    def owns(self, path: Path) -> bool:
        try:
            if "/.gemini/" in path.as_posix():
                return True
            with open_regular(path) as fh:
                head = fh.read(_SNIFF_BYTES)
                first = head.split(b"\n", 1)[0]
                try:
                    return _sniff(json.loads(first.decode("utf-8")))
                except ValueError:
                    if path.suffix != ".json":
                        return False
                fh.seek(0)
                return _sniff(json.loads(fh.read(_MAX_SNIFF_DOC).decode("utf-8")))
        except (OSError, ValueError):
            return False

    def origin(self, path: Path) -> Origin:
        """What the path says: stem, parent chat, and whether it is a legacy document."""
        # chats/<parentSessionId>/<sessionId>.jsonl is a sub-agent's chat
        parent = scrub(path.parent.name) if path.parent.parent.name == "chats" else None
        return (scrub(path.stem), None, parent, self.whole_file(path))

    def parse(self, path: Path, data: bytes, offset: int, state: dict[str, Any]) -> Parsed:
        parsed = parse_transcript(self.name, data, offset, state, self.origin(path))
        st = parsed.state
        if parsed.parts and not st.get("project"):
            meta = st.get("meta")
            project_hash = meta.get("project_hash") if isinstance(meta, dict) else None
            st["project"] = _project_from_disk(path, project_hash)
            for part in parsed.parts:
                part.info.project = st["project"]
        return parsed
