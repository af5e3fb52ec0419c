"""Aider: `.aider.chat.history.md`, one markdown file in each project folder it ran in.

Aider keeps no central folder, so recall looks for the file in the home folder
and in the folders up to three levels below it (hidden folders and dependency
trees left out), or under the roots `[agents.aider] roots` names; `recall
ingest PATH` reads any one file. The format (`Aider-AI/aider:aider/io.py`):
`# aider chat started at YYYY-MM-DD HH:MM:SS` (local time) starts a run, and
each run is a session of its own; every line of a user's prompt starts with
`#### `; tool and status output (`tool_output`, `tool_error`) is a `> ` line (or a
bare `>`); everything else is the assistant's markdown, in which a fenced code
block is read whole (its `>>>>>>> REPLACE` and `#### ` lines are code). Kept: the prompts, and the
question of an `/ask`, `/code`, `/architect` or `/context` command; the
assistant's replies. Skipped: the `>` lines and every other slash command
(`/add`, `/drop`, `/run`, …). A session is named `aider-<folder digest>-<byte
offset of its header>`; the file only grows, so it is read from where the last
read stopped, and a block still being written is rewritten in place.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from recall.digest import sha1_hex
from recall.textutil import scrub
from recall.types import ASSISTANT, USER, Message, Origin, Parsed, SessionInfo, SessionPart

AGENT = "aider"
HISTORY = ".aider.chat.history.md"
_HEADER = "# aider chat started at "
_ASKING = frozenset({"/ask", "/code", "/architect", "/context"})
"""Commands whose argument is a question sent to the model."""
_DEPTH = 3
_PRUNE = frozenset(
    {"node_modules", "Library", "AppData", "site-packages", "venv", "target", "build", "dist"}
)


def _started(header: str) -> str | None:
    """The header's local time as UTC ISO-8601; None when it is not a time."""
    try:
        local = datetime.strptime(header.strip(), "%Y-%m-%d %H:%M:%S")
    except ValueError:
        return None
    return local.astimezone().astimezone(UTC).isoformat().replace("+00:00", "Z")


def _said(role: str, text: str) -> str:
    """A block's conversation text: a prompt without the commands that are not one."""
    text = text.strip()
    if role == USER and text.startswith("/"):
        command, _, rest = text.partition(" ")
        first = command.split("\n", 1)[0]
        return rest.strip() if first in _ASKING and "\n" not in command else ""
    return text


class _Run:
    """One parse: the state carried between parses and the messages found."""

    def __init__(self, file_id: str, project: str, state: dict[str, Any]) -> None:
        self.file_id = file_id
        self.project = project
        sid = state.get("sid")
        self.sid: str = sid if isinstance(sid, str) else ""
        started = state.get("started")
        self.started: str | None = started if isinstance(started, str) else None
        block = state.get("block")
        ok = isinstance(block, list) and len(block) == 4
        self.block: list[Any] | None = block if ok else None  # [offset, role, text, fenced]
        self.parts: dict[str, SessionPart] = {}

    def session(self) -> str:
        if not self.sid:
            self.sid = f"aider-{self.file_id}-0"
        return self.sid

    def flush(self) -> None:
        block, self.block = self.block, None
        if block is None:
            return
        offset, role, text, _ = block
        said = scrub(_said(role, text))
        if not said:
            return
        sid = self.session()
        part = self.parts.get(sid)
        if part is None:
            info = SessionInfo(sid, AGENT, self.project, started_at=self.started)
            part = self.parts[sid] = SessionPart(info)
        part.messages.append(Message(f"{sid}@{offset}", role, said, self.started))

    def line(self, offset: int, line: str) -> None:
        block = self.block
        if block is not None and block[1] == ASSISTANT and block[3]:
            block[2] += "\n" + line.rstrip()  # inside a code fence: `>`, `####` are code
            block[3] = not line.lstrip().startswith("```")
        elif line.startswith(_HEADER):
            self.flush()
            self.sid = f"aider-{self.file_id}-{offset}"
            self.started = _started(line[len(_HEADER) :])
        elif line.startswith("####"):
            words = line[4:].removeprefix(" ").rstrip()
            if self.block is not None and self.block[1] == USER:
                self.block[2] += "\n" + words
            else:
                self.flush()
                self.block = [offset, USER, words, False]
        elif line == ">" or line.startswith("> "):
            self.flush()  # tool and status output
        elif not line.strip():
            if self.block is not None and self.block[1] == ASSISTANT:
                self.block[2] += "\n"
            else:
                self.flush()
        else:
            if self.block is None or self.block[1] != ASSISTANT:
                self.flush()
                self.block = [offset, ASSISTANT, "", False]
                self.block[2] = line.rstrip()
            else:
                self.block[2] += "\n" + line.rstrip()
            self.block[3] = line.lstrip().startswith("```")

    def finish(self, parsed: Parsed) -> None:
        """Hand on what was found, the block still open included (it is rewritten under
        the same key when it grows), and keep the state for the next parse."""
        pending = self.block
        state_block = list(pending) if pending is not None else None
        self.flush()
        parsed.parts = list(self.parts.values())
        parsed.state = {"sid": self.sid, "started": self.started, "block": state_block}


def parse_history(path: Path, data: bytes, base: int, state: dict[str, Any]) -> Parsed:
    """Parse `data` (the file from byte `base` on), to the end of its last complete line."""
    parsed = Parsed()
    run = _Run(_file_id(path), os.path.abspath(path.parent), state)
    end = data.rfind(b"\n") + 1
    pos = 0
    while pos < end:
        stop = data.index(b"\n", pos)
        run.line(base + pos, data[pos:stop].decode("utf-8", "replace").rstrip("\r"))
        pos = stop + 1
    run.finish(parsed)
    parsed.offset = end
    return parsed


def _file_id(path: Path) -> str:
    return sha1_hex(os.path.abspath(path.parent).encode("utf-8", "surrogatepass"))[:8]


def _walk(folder: Path, depth: int, found: list[Path]) -> None:
    candidate = folder / HISTORY
    if candidate.is_file():
        found.append(candidate)
    if depth == 0:
        return
    try:
        entries = sorted(os.scandir(folder), key=lambda e: e.name)
    except OSError:
        return
    for entry in entries:
        if entry.name.startswith(".") or entry.name in _PRUNE:
            continue
        try:
            if entry.is_dir(follow_symlinks=False):
                _walk(Path(entry.path), depth - 1, found)
        except OSError:
            continue


class AiderAdapter:
    name = AGENT
    incremental = True
    resume: tuple[str, ...] = ()

    def default_roots(self) -> list[Path]:
        return [Path.home()]

    def discover(self, root: Path) -> Iterable[Path]:
        found: list[Path] = []
        if root.is_file():
            return [root] if root.name == HISTORY else []
        _walk(root, _DEPTH, found)
        return found

    def owns(self, path: Path) -> bool:
        return path.name == HISTORY

    def whole_file(self, path: Path) -> bool:
        return False

    def origin(self, path: Path) -> Origin:
        return (f"aider-{_file_id(path)}", None, None, False)

    def parse(self, path: Path, data: bytes, offset: int, state: dict[str, Any]) -> Parsed:
        return parse_history(path, data, offset, state if isinstance(state, dict) else {})


__all__ = ["HISTORY", "AiderAdapter", "parse_history"]
