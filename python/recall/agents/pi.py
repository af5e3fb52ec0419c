"""Pi and OpenClaw: one JSONL session format, a header line then a tree of entries.

Pi writes `~/.pi/agent/sessions/--<cwd with dashes>--/<time>_<uuid>.jsonl`
(`$PI_CODING_AGENT_DIR` moves `~/.pi/agent`; oh-my-pi writes the same under
`~/.omp/agent`). OpenClaw, built on Pi's session manager, writes
`~/.openclaw/agents/<agent>/sessions/<id>.jsonl` (`$OPENCLAW_STATE_DIR`;
`~/.clawdbot` before the rename). Each is its own agent in the index, read by
one parser in the core (`rust/src/pi.rs`, twin `recall._twin.pi`): the
conversation is the tree's active branch, re-read whole when it moves back
(`recall.agents.transcript.parse_branching`).
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from recall.agent_cli import RESUME
from recall.agent_homes import openclaw_homes, pi_homes
from recall.agents.transcript import Origin, jsonl_files, parse_branching
from recall.jsonlines import sniff_json
from recall.safeio import read_head
from recall.textutil import scrub
from recall.types import Parsed

_SNIFF_BYTES = 64 * 1024


def _header(path: Path) -> dict[str, Any] | None:
    """The file's first line when it is a Pi session header."""
    try:
        head = read_head(path, _SNIFF_BYTES)
        obj = sniff_json(head.split(b"\n", 1)[0])
    except (OSError, ValueError):
        return None
    if isinstance(obj, dict) and obj.get("type") == "session" and "id" in obj:
        return obj
    return None


def _session_id_from_name(path: Path) -> str:
    """`<time>_<uuid>.jsonl` (Pi) or `<uuid>.jsonl` (OpenClaw): the uuid."""
    return path.stem.rsplit("_", 1)[-1] or path.stem


class _PiFamily:
    """What Pi and OpenClaw share; each names its own folders."""

    name: str
    marker: str
    """A folder only this agent's paths hold (`/.pi/`, `/.openclaw/`)."""
    incremental = True
    resume: tuple[str, ...] = ()
    """No command is known to reopen a session by id (docs/agents.md, "Resuming")."""

    def default_roots(self) -> list[Path]:
        raise NotImplementedError

    def discover(self, root: Path) -> Iterable[Path]:
        return sorted(p for p in jsonl_files(root) if p.is_file())

    def owns(self, path: Path) -> bool:
        if path.suffix != ".jsonl":
            return False
        header = _header(path)
        if header is None:
            return False
        return self.marker in path.as_posix() or self._claims(header)

    def _claims(self, header: dict[str, Any]) -> bool:
        raise NotImplementedError

    def whole_file(self, path: Path) -> bool:
        return False

    def origin(self, path: Path) -> Origin:
        return (scrub(_session_id_from_name(path)), None, None, False)

    def parse(self, path: Path, data: bytes, offset: int, state: dict[str, Any]) -> Parsed:
        return parse_branching(self.name, path, data, offset, state, self.origin(path))


class PiAdapter(_PiFamily):
    name = "pi"
    marker = "/.pi/"
    resume = RESUME["pi"]

    def default_roots(self) -> list[Path]:
        return [home / "sessions" for home in pi_homes(Path.home())]

    def _claims(self, header: dict[str, Any]) -> bool:
        # A session header outside both agents' folders: Pi's, unless OpenClaw's path says so.
        return True


class OpenClawAdapter(_PiFamily):
    name = "openclaw"
    marker = "/.openclaw/"

    def default_roots(self) -> list[Path]:
        return [home / "agents" for home in openclaw_homes(Path.home())]

    def owns(self, path: Path) -> bool:
        where = path.as_posix()
        if "/.clawdbot/" in where or ("/agents/" in where and "/sessions/" in where):
            return path.suffix == ".jsonl" and _header(path) is not None
        return super().owns(path)

    def discover(self, root: Path) -> Iterable[Path]:
        """`agents/<agent>/sessions/*.jsonl` (the root may be the state folder, `agents`, or
        one agent's `sessions`)."""
        if (root / "agents").is_dir():
            root = root / "agents"
        pattern = "*.jsonl" if root.name == "sessions" else "*/sessions/*.jsonl"
        try:
            return sorted(p for p in root.glob(pattern) if p.is_file())
        except OSError:
            return []

    def _claims(self, header: dict[str, Any]) -> bool:
        return False


__all__ = ["OpenClawAdapter", "PiAdapter"]
