"""Cline and Roo Code: VS Code extensions that keep one folder per task, and Cline's newer
SDK session store. Each file is a JSON document, rewritten in place: read whole.

Task folders, `<editor User>/globalStorage/<extension>/tasks/<taskId>/` (extension
`saoudrizwan.claude-dev` for Cline, `rooveterinaryinc.roo-cline` for Roo Code, in VS
Code and its forks): `ui_messages.json`, an array of `{ts, type: say|ask, say?, ask?,
text?, partial?}`. Kept: `say` `task` and `user_feedback` (the user), `say` `text` and
`completion_result`, and the question of an `ask` `followup` or the response of a
`plan_mode_respond` (the assistant). Skipped: API request records, tool and command
rows, checkpoints, reasoning, and partial (still streaming) rows. The project is the
task's `cwdOnTaskInitialization` (Cline's `state/taskHistory.json`) or `workspace`
(Roo's `history_item.json`); a Roo sub-task names its `parentTaskId`.

Cline SDK (`~/.cline/data/sessions/<id>/`, `$CLINE_SESSION_DATA_DIR`,
`$CLINE_DATA_DIR/sessions`): `<id>.messages.json`, messages `{role, content: string |
blocks, ts}`, of which text blocks are kept (the `<task>` and `<feedback>` wrappers
unwrapped, `<environment_details>` dropped); `<id>.json` gives the title; a further
`<stem>.messages.json` in the folder is a sub-agent's; `sessions.db` (read-only) gives
the cwd and parent when present.
"""

from __future__ import annotations

import json
import re
import sqlite3
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from recall import _accel
from recall.agent_homes import cline_sessions, extension_dirs
from recall.agents.agentdb import columns, is_sqlite, open_readonly
from recall.agents.base import SKIP_BAD_SHAPE, load_json_document
from recall.agents.rows import string, when
from recall.safeio import MAX_LINE, open_regular
from recall.types import (
    ASSISTANT,
    TITLE_AGENT,
    USER,
    Message,
    Origin,
    Parsed,
    SessionInfo,
    SessionPart,
)

_UI = "ui_messages.json"
_SDK = ".messages.json"
_SAYS = {"task": USER, "user_feedback": USER, "text": ASSISTANT, "completion_result": ASSISTANT}
_ASKS = {"followup": ("question", ASSISTANT), "plan_mode_respond": ("response", ASSISTANT)}
_ENV = re.compile(r"<environment_details>.*?</environment_details>", re.DOTALL)
_WRAP = re.compile(r"</?(task|feedback|user_message|answer)>")
_HIDDEN = frozenset({"tool_use", "tool_result", "thinking", "redacted_thinking", "image", "file"})


def _document(path: Path, parsed: Parsed | None = None) -> Any:
    """A small JSON document beside the one being parsed; None when it cannot be read."""
    try:
        with open_regular(path) as fh:
            data = fh.read(MAX_LINE)
    except OSError:
        return None
    return load_json_document(data, parsed if parsed is not None else Parsed())


def _history(task: Path) -> dict[str, Any]:
    """What the extension's task list says of this task (Roo keeps it in the folder)."""
    item = _document(task / "history_item.json")
    if isinstance(item, dict):
        return item
    listing = _document(task.parent.parent / "state" / "taskHistory.json")
    for entry in listing if isinstance(listing, list) else []:
        if isinstance(entry, dict) and entry.get("id") == task.name:
            return entry
    return {}


def _ask_text(kind: str, text: str) -> str:
    field, _ = _ASKS[kind]
    try:
        doc = json.loads(text)
    except ValueError:
        return text
    return string(doc.get(field)) if isinstance(doc, dict) else text


def parse_ui(path: Path, data: bytes, agent: str) -> Parsed:
    parsed = Parsed()
    rows = load_json_document(data, parsed)
    task = path.parent
    history = _history(task)
    info = SessionInfo(task.name, agent)
    info.project = string(history.get("cwdOnTaskInitialization") or history.get("workspace"))
    info.project = info.project or None
    info.parent_session_id = string(history.get("parentTaskId")) or None
    part = SessionPart(info, replace=True)
    if not isinstance(rows, list):
        if rows is not None:
            parsed.skip(SKIP_BAD_SHAPE)
        parsed.parts = [part]
        return parsed
    kept: dict[str, Message] = {}
    for row in rows:
        if not isinstance(row, dict):
            parsed.skip(SKIP_BAD_SHAPE)
            continue
        if row.get("partial") is True:
            continue
        say, ask, text = string(row.get("say")), string(row.get("ask")), string(row.get("text"))
        if row.get("type") == "say" and say in _SAYS:
            role, kind = _SAYS[say], say
        elif row.get("type") == "ask" and ask in _ASKS:
            role, kind, text = _ASKS[ask][1], ask, _ask_text(ask, text)
        else:
            continue
        text = _clean(role, text)
        ts = row.get("ts")
        if not text or not isinstance(ts, int | float) or isinstance(ts, bool):
            continue
        if info.started_at is None:
            info.started_at = when(ts)
        key = f"{task.name}@{int(ts)}:{kind}"  # a rewrite repeats its ts: the last one wins
        kept[key] = Message(key, role, text, when(ts))
    part.messages = list(kept.values())
    parsed.parts = [part]
    return parsed


def _sdk_text(role: str, content: Any) -> str:
    if isinstance(content, str):
        texts = [content]
    else:
        blocks = content if isinstance(content, list) else []
        texts = [
            string(b.get("text"))
            for b in blocks
            if isinstance(b, dict) and b.get("type") not in _HIDDEN
        ]
    return _clean(role, "\n\n".join(t for t in texts if t.strip()))


def _clean(role: str, text: str) -> str:
    """A turn's text without what the extension wraps a user's words in or injects."""
    if role == USER:
        text = _WRAP.sub("", _ENV.sub("", text))
    return str(_accel.strip_reminders(text)).strip()


def _sdk_index(folder: Path, sid: str) -> dict[str, Any]:
    """The cwd and parent `sessions.db` records for `sid`; empty when it has none."""
    db = folder.parent / "sessions.db"
    if not is_sqlite(db):
        return {}
    try:
        with open_readonly(db) as conn:
            have = columns(conn, "sessions")
            wanted = [c for c in ("cwd", "workspace_root", "parent_session_id") if c in have]
            if "session_id" not in have or not wanted:
                return {}
            row = conn.execute(
                f"SELECT {', '.join(wanted)} FROM sessions WHERE session_id = ?", (sid,)
            ).fetchone()
    except (sqlite3.Error, OSError):  # an index recall cannot read now costs only the cwd
        return {}
    return dict(zip(wanted, row, strict=True)) if row else {}


def parse_sdk(path: Path, data: bytes, agent: str) -> Parsed:
    parsed = Parsed()
    doc = load_json_document(data, parsed)
    folder = path.parent
    stem = path.name[: -len(_SDK)]
    main = stem == folder.name
    index = _sdk_index(folder, stem)
    info = SessionInfo(stem, agent)
    info.project = string(index.get("cwd") or index.get("workspace_root")) or None
    parent = string(index.get("parent_session_id"))
    info.parent_session_id = parent or (None if main else folder.name)
    manifest = _document(folder / f"{stem}.json") if main else None
    meta = manifest.get("metadata") if isinstance(manifest, dict) else None
    title = string(meta.get("title")) if isinstance(meta, dict) else ""
    if title:
        info.title, info.title_rank = title, TITLE_AGENT
    part = SessionPart(info, replace=True)
    rows = doc.get("messages") if isinstance(doc, dict) else doc
    if not isinstance(rows, list):
        if doc is not None:
            parsed.skip(SKIP_BAD_SHAPE)
        rows = []
    for n, row in enumerate(rows):
        if not isinstance(row, dict):
            parsed.skip(SKIP_BAD_SHAPE)
            continue
        role = string(row.get("role"))
        if role not in (USER, ASSISTANT):
            continue
        text = _sdk_text(role, row.get("content"))
        if text:
            key = f"{stem}@{string(row.get('id')) or n}"
            part.messages.append(Message(key, role, text, when(row.get("ts"))))
    parsed.parts = [part]
    return parsed


class TaskAdapter:
    """One extension's task folders (and, for Cline, the SDK's session store)."""

    incremental = False
    resume: tuple[str, ...] = ()
    """No command is known to reopen a session by id (docs/agents.md, "Resuming")."""

    def __init__(self, name: str, extension: str, sdk: bool) -> None:
        self.name = name
        self.extension = extension
        self.sdk = sdk

    def default_roots(self) -> list[Path]:
        roots = extension_dirs(Path.home(), self.extension)
        return [*roots, cline_sessions(Path.home())] if self.sdk else roots

    def discover(self, root: Path) -> Iterable[Path]:
        found = sorted(p for p in root.glob(f"tasks/*/{_UI}") if p.is_file())
        if self.sdk:
            found += sorted(p for p in root.glob(f"*/*{_SDK}") if p.is_file() and self._sdk_file(p))
        return found

    def _sdk_file(self, path: Path) -> bool:
        return path.name.endswith(_SDK) and (path.parent / f"{path.parent.name}{_SDK}").exists()

    def owns(self, path: Path) -> bool:
        if path.name == _UI and path.parent.parent.name == "tasks":
            return self.extension in path.parts
        return self.sdk and self._sdk_file(path)

    def whole_file(self, path: Path) -> bool:
        return True

    def origin(self, path: Path) -> Origin:
        if path.name == _UI:
            return (path.parent.name, None, None, True)
        stem = path.name[: -len(_SDK)]
        return (stem, None, None if stem == path.parent.name else path.parent.name, True)

    def parse(self, path: Path, data: bytes, offset: int, state: dict[str, Any]) -> Parsed:
        if path.name == _UI:
            return parse_ui(path, data, self.name)
        return parse_sdk(path, data, self.name)


def ClineAdapter() -> TaskAdapter:
    return TaskAdapter("cline", "saoudrizwan.claude-dev", sdk=True)


def RooAdapter() -> TaskAdapter:
    return TaskAdapter("roo", "rooveterinaryinc.roo-cline", sdk=False)


__all__ = ["ClineAdapter", "RooAdapter", "TaskAdapter"]
