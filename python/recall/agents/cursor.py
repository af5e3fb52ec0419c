"""Cursor: agent transcripts (`~/.cursor/projects/<workspace>/agent-transcripts/`) and
the IDE's chat rows in `state.vscdb` (`recall.agents.cursor_db`), one adapter.

Transcripts come as `<id>.jsonl`, `<id>/<id>.jsonl` with sub-agents in
`<id>/subagents/<agentId>.jsonl`, or the legacy `<id>.txt`. A JSONL line is
`{"role", "message": {"content": string | blocks}}`, read by the core
(`rust/src/cursor.rs`, twin `recall._twin.cursor`): kept are `text` blocks (and an
unknown block's visible `text`), the user's words inside `<user_query>` when
that wrapper is there; skipped are thinking, tool calls and results, images, the
roleless `turn_ended` lines. A message's key is `<session>@<byte offset>` (an
offset alone would repeat in every file). Lines carry no time: a message is stamped with
the file's mtime when it was read. The project is the workspace folder the
lossy `<workspace>` name decodes to on this disk, when it does.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from recall import _accel
from recall.agent_cli import RESUME
from recall.agent_homes import app_data_dirs, cursor_homes
from recall.agents import cursor_db
from recall.agents.base import StoredSession
from recall.agents.rows import when
from recall.agents.transcript import parse_transcript
from recall.textutil import scrub
from recall.types import ASSISTANT, USER, Message, Origin, Parsed, SessionInfo, SessionPart

AGENT = "cursor"
_ROLES = {"user": USER, "assistant": ASSISTANT}
_QUERY = re.compile(r"<user_query>(.*?)</user_query>", re.DOTALL)
_TXT_ROLE = re.compile(r"^(user|assistant):\s*$")
_TXT_SECTION = re.compile(r"^\s*\[(Thinking|Tool call|Tool result)\]")


def user_words(text: str) -> str:
    """What the user typed: inside `<user_query>` when Cursor wrapped it, without the
    injected reminders."""
    found = _QUERY.findall(text)
    inner = "\n\n".join(q.strip() for q in found) if found else text
    return str(_accel.strip_reminders(inner)).strip()


def _layout(path: Path) -> tuple[str, str | None]:
    """`(session id, parent)` from the path: `<id>.jsonl`, `<id>/<id>.jsonl`, or a
    sub-agent's `<id>/subagents/<agentId>.jsonl` (`<id>:agent-<agentId>`)."""
    if path.parent.name == "subagents":
        folder = path.parent.parent
        own = [p for p in folder.glob("*.jsonl") if p.is_file()]
        parent = own[0].stem if len(own) == 1 else folder.name
        return f"{parent}:agent-{path.stem}", parent
    return path.stem, None


def _workspace(path: Path) -> str | None:
    """The project folder a transcript's `<workspace>` name stands for, resolved against
    this disk (the name is the path with separators turned into '-', so it is lossy)."""
    for ancestor in path.parents:
        if ancestor.name == "agent-transcripts":
            return decode_workspace(ancestor.parent.name)
    return None


def decode_workspace(name: str, root: Path = Path("/")) -> str | None:
    """`home-me-my-app` → `/home/me/my-app` when those folders exist; else None."""
    words = [w for w in name.split("-") if w]
    if not words:
        return None

    def walk(at: Path, rest: list[str], budget: list[int]) -> Path | None:
        if not rest:
            return at
        for n in range(len(rest), 0, -1):
            budget[0] -= 1
            if budget[0] < 0:
                return None
            candidate = at / "-".join(rest[:n])
            if candidate.is_dir():
                found = walk(candidate, rest[n:], budget)
                if found is not None:
                    return found
        return None

    found = walk(root, words, [512])
    return str(found) if found is not None else None


def _stamp(path: Path) -> str | None:
    try:
        return when(os.stat(path).st_mtime)
    except OSError:
        return None


def _parse_jsonl(path: Path, data: bytes, offset: int, state: dict[str, Any]) -> Parsed:
    """The lines are read by the core (`rust/src/cursor.rs`, twin `recall._twin.cursor`);
    what needs the disk is added here: the workspace folder and the file's mtime."""
    parsed = parse_transcript(AGENT, data, offset, state, _origin(path))
    project, stamp = _workspace(path), _stamp(path)
    for part in parsed.parts:
        part.info.project = project
        part.messages = [Message(m.key, m.role, m.text, stamp) for m in part.messages]
    return parsed


def _parse_txt(path: Path, data: bytes) -> Parsed:
    """The legacy `.txt` form: blocks under `user:` / `assistant:` lines; an assistant's
    indented `[Thinking]`, `[Tool call]` and `[Tool result]` sections are left out."""
    parsed = Parsed(offset=len(data))
    sid, parent = _layout(path)
    part = SessionPart(SessionInfo(sid, AGENT, _workspace(path), parent_session_id=parent))
    part.replace = True
    stamp = _stamp(path)
    text = data.decode("utf-8", "replace")
    blocks: list[tuple[int, str, list[str]]] = []
    hidden = False
    for n, line in enumerate(text.splitlines()):
        starts = _TXT_ROLE.match(line)
        if starts:
            blocks.append((n, starts.group(1), []))
            hidden = False
        elif blocks:
            if _TXT_SECTION.match(line):
                hidden = True
            elif hidden and line and not line[0].isspace():
                hidden = False
            if not hidden:
                blocks[-1][2].append(line)
    for n, role, lines in blocks:
        body = "\n".join(lines).strip()
        body = user_words(body) if role == USER else body
        if body:
            part.messages.append(Message(f"{sid}@line{n}", _ROLES[role], scrub(body), stamp))
    parsed.parts = [part]
    return parsed


class CursorAdapter:
    """Cursor's agent transcripts (files) and IDE chats (`state.vscdb`, a `SessionStore`)."""

    name = AGENT
    incremental = True
    """JSONL transcripts resume from an offset; `.txt` ones are read whole."""
    resume = RESUME["cursor"]
    """No command is known to reopen a session by id (docs/agents.md, "Resuming")."""

    def default_roots(self) -> list[Path]:
        home = Path.home()
        return [h / "projects" for h in cursor_homes(home)] + app_data_dirs(home, "Cursor")

    def discover(self, root: Path) -> Iterable[Path]:
        if (root / "globalStorage").is_dir():
            return []  # the IDE's folder: its chats are database rows (`sessions`)
        found: list[Path] = []
        for folder, dirs, files in os.walk(root, onerror=lambda _: None):
            dirs.sort()
            if "agent-transcripts" not in Path(folder).parts:
                continue
            found += [Path(folder, n) for n in files if n.endswith((".jsonl", ".txt"))]
        # sessions before sub-agents, so a parent is seen before its children
        return sorted(found, key=lambda p: (p.parent.name == "subagents", p.as_posix()))

    def owns(self, path: Path) -> bool:
        return "agent-transcripts" in path.parts and path.suffix in (".jsonl", ".txt")

    def whole_file(self, path: Path) -> bool:
        return path.suffix == ".txt"

    def origin(self, path: Path) -> Origin:
        return _origin(path)

    def parse(self, path: Path, data: bytes, offset: int, state: dict[str, Any]) -> Parsed:
        if self.whole_file(path):
            return _parse_txt(path, data)
        return _parse_jsonl(path, data, offset, state)

    def sessions(self, root: Path) -> Iterator[StoredSession]:
        yield from cursor_db.sessions(root, _transcript_roots())

    def read_session(self, stored: StoredSession) -> Parsed:
        return cursor_db.read(stored, _transcript_roots())


def _origin(path: Path) -> Origin:
    sid, parent = _layout(path)
    return (sid, None, parent, path.suffix == ".txt")


def _transcript_roots() -> list[Path]:
    """Where a chat's agent transcript would be (a chat with one is read from it)."""
    return [h / "projects" for h in cursor_homes(Path.home())]


__all__ = ["CursorAdapter", "decode_workspace", "user_words"]
