"""VS Code Copilot Chat: the editor's own chat sessions, one document per session.

Where (microsoft/vscode `chatSessionStore.ts`): `<User>/workspaceStorage/<hash>/
chatSessions/<id>.json` or `.jsonl` for a window with a folder (`workspace.json`
beside `chatSessions/` names the folder), `<User>/globalStorage/
emptyWindowChatSessions/` for windows without one, and `transferredChatSessions/`
there too, in VS Code and VS Code Insiders on every OS (`agent_homes.app_data_dirs`).

Two layouts of one document (`ISerializableChatData`, `version` 3): a `.json` file
is the whole document; a `.jsonl` file is its mutation log (`objectMutationLog.ts`):
`{"kind":0,"v":doc}` first, then `{"kind":1,"k":path,"v":value}` (set),
`{"kind":2,"k":path,"v":items,"i":from}` (truncate the array at `i`, then push) and
`{"kind":3,"k":path}` (delete). The log is not a stream of messages but the edits of
one JSON document, which VS Code rewrites whole when it compacts it: it is replayed
and read whole, in Python, like the `.json` snapshot.

Kept: each request's `message.text` (the user's) and the markdown of its `response`
(parts with a `value` and no `kind`, or `kind: "markdownContent"`). Skipped: thinking,
tool invocations, references, code-block URIs, edit groups, progress, confirmations
and every other response part; the `result` metadata (where prompts and tool
outputs the model saw are kept). Title: `customTitle` (set by a rename, or
generated); project: the workspace folder; times: `creationDate` and each
request's `timestamp`.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse

from recall.agent_homes import app_data_dirs
from recall.agents.base import SKIP_BAD_SHAPE, load_json_document
from recall.agents.rows import string, when
from recall.jsonlines import SKIP_BAD_UTF8, SKIP_BROKEN, decode_json
from recall.safeio import MAX_LINE, open_regular
from recall.textutil import scrub
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

AGENT = "vscode"
EDITORS = ("Code", "Code - Insiders")
"""The editors whose Copilot Chat sessions are read (Cursor's and Windsurf's chats are
their own, read by their adapters)."""
_GLOBAL = ("emptyWindowChatSessions", "transferredChatSessions")
_MARKDOWN = "markdownContent"
SKIP_BAD_LOG = "mutation log entry that does not apply"


def vscode_roots(home: Path) -> list[Path]:
    """Each editor's `User` folder, on every OS."""
    return [user for editor in EDITORS for user in app_data_dirs(home, editor)]


def _folder(value: Any) -> str | None:
    """A folder from a `file://` URI (`workspace.json`'s `folder`); None for a remote."""
    text = string(value)
    if not text.startswith("file://"):
        return None
    path = unquote(urlparse(text).path)
    if len(path) > 2 and path[0] == "/" and path[2] == ":":  # file:///C:/… on Windows
        path = path[1:]
    return path or None


def _workspace(path: Path) -> str | None:
    """The folder of the window whose `chatSessions/` holds `path`."""
    if path.parent.name != "chatSessions":
        return None
    try:
        with open_regular(path.parent.parent / "workspace.json") as fh:
            doc = json.loads(fh.read(MAX_LINE))
    except (OSError, ValueError, RecursionError):
        return None
    return _folder(doc.get("folder")) if isinstance(doc, dict) else None


# --- the mutation log ---
def _index(node: Any, step: Any) -> bool:
    """`step` can index the list `node` (a non-negative int, not a bool)."""
    return isinstance(node, list) and type(step) is int and step >= 0


def _container(doc: Any, path: list[Any]) -> Any:
    """The object or array `path` (all but its last step) leads to in `doc`."""
    node = doc
    for step in path[:-1]:
        if isinstance(node, dict) and isinstance(step, str):
            node = node.get(step)
        elif _index(node, step) and step < len(node):
            node = node[step]
        else:
            raise LookupError(step)
    if not isinstance(node, dict | list):
        raise LookupError(path)
    return node


def _assign(node: Any, step: Any, value: Any, delete: bool = False) -> None:
    if isinstance(node, dict) and isinstance(step, str):
        if delete:
            node.pop(step, None)
        else:
            node[step] = value
    elif _index(node, step) and step <= len(node):
        if step == len(node):
            node.append(value)
        else:
            node[step] = value
    else:
        raise LookupError(step)


def _apply(doc: Any, entry: dict[str, Any]) -> Any:
    """`doc` after one log entry; LookupError/TypeError when it does not apply."""
    kind, path = entry.get("kind"), entry.get("k")
    if kind == 0:
        return entry.get("v")
    if not isinstance(path, list):
        raise TypeError("k")
    if not path:  # the root itself: a set replaces the document
        return entry.get("v") if kind == 1 else doc
    node = _container(doc, path)
    last = path[-1]
    if kind in (1, 3):
        _assign(node, last, entry.get("v"), delete=kind == 3)
    elif kind == 2:
        current = node.get(last) if isinstance(node, dict) else None
        if _index(node, last) and last < len(node):
            current = node[last]
        items = list(current) if isinstance(current, list) else []
        start = entry.get("i")
        if isinstance(start, int) and not isinstance(start, bool) and start >= 0:
            del items[start:]
        pushed = entry.get("v")
        if isinstance(pushed, list):
            items.extend(pushed)
        _assign(node, last, items)
    else:
        raise TypeError("kind")
    return doc


def replay(data: bytes, parsed: Parsed) -> Any:
    """The document a `.jsonl` mutation log describes (None before its first entry).
    A broken line, or an entry that does not apply, is counted and passed over; a
    last line without its newline (VS Code is writing it) waits for the next read."""
    parsed.offset = len(data)
    doc: Any = None
    lines = data.split(b"\n")
    if lines and lines[-1].strip():
        lines.pop()  # a last line without its newline is still being written
    for raw in lines:
        if not raw.strip():
            continue
        try:
            entry = decode_json(raw)
        except UnicodeDecodeError:
            parsed.skip(SKIP_BAD_UTF8)
            continue
        except ValueError:
            parsed.skip(SKIP_BROKEN)
            continue
        if not isinstance(entry, dict) or (doc is None and entry.get("kind") != 0):
            parsed.skip(SKIP_BAD_SHAPE)
            continue
        try:
            doc = _apply(doc, entry)
        except (LookupError, TypeError):
            parsed.skip(SKIP_BAD_LOG)
    return doc


# --- the document ---
def _answer(response: Any) -> str:
    """The markdown of a response: its parts with a `value` and no `kind`, and its
    `markdownContent` parts; every other part is not conversation."""
    texts = []
    for part in response if isinstance(response, list) else []:
        if not isinstance(part, dict):
            continue
        kind = part.get("kind")
        value = part.get("value") if kind is None else None
        if kind == _MARKDOWN and isinstance(part.get("content"), dict):
            value = part["content"].get("value")
        if isinstance(value, str):
            texts.append(scrub(value))  # fragments of one answer: their spaces are its own
    return "".join(texts).strip()


def session_of(path: Path, doc: Any, parsed: Parsed) -> SessionPart:
    body = doc if isinstance(doc, dict) else {}
    if doc is not None and not isinstance(doc, dict):
        parsed.skip(SKIP_BAD_SHAPE)
    sid = string(body.get("sessionId")) or path.stem
    info = SessionInfo(sid, AGENT)
    info.project = _workspace(path)
    title = string(body.get("customTitle"))
    if title:
        info.title, info.title_rank = title, TITLE_AGENT
    info.started_at = when(body.get("creationDate"))
    part = SessionPart(info, replace=True)
    requests = body.get("requests", [])
    if not isinstance(requests, list):
        parsed.skip(SKIP_BAD_SHAPE)
        requests = []
    for n, request in enumerate(requests):
        if not isinstance(request, dict):
            parsed.skip(SKIP_BAD_SHAPE)
            continue
        rid = string(request.get("requestId")) or str(n)
        stamp = when(request.get("timestamp"))
        message = request.get("message")
        if not isinstance(message, dict):
            parsed.skip(SKIP_BAD_SHAPE)
            message = {}
        asked = string(message.get("text"))
        if asked:
            part.messages.append(Message(f"{sid}#{rid}", USER, asked, stamp))
        answer = _answer(request.get("response"))
        if answer:
            part.messages.append(Message(f"{sid}#{rid}:response", ASSISTANT, answer, stamp))
    return part


def parse_session(path: Path, data: bytes) -> Parsed:
    parsed = Parsed(offset=len(data))
    doc = replay(data, parsed) if path.suffix == ".jsonl" else load_json_document(data, parsed)
    if doc is not None:  # nothing readable yet: no session
        parsed.parts = [session_of(path, doc, parsed)]
    parsed.offset = len(data)
    return parsed


class VSCodeAdapter:
    """VS Code Copilot Chat's session documents, read whole."""

    name = AGENT
    incremental = False
    resume: tuple[str, ...] = ()
    """VS Code has no command line that reopens a chat session by id."""

    def default_roots(self) -> list[Path]:
        return vscode_roots(Path.home())

    def discover(self, root: Path) -> Iterable[Path]:
        folders = [*(root / "globalStorage" / g for g in _GLOBAL)]
        with contextlib.suppress(OSError):
            folders += sorted((root / "workspaceStorage").glob("*/chatSessions"))
        if root.name == "chatSessions" or root.name in _GLOBAL:
            folders.append(root)
        found: list[Path] = []
        for folder in folders:
            try:
                names = sorted(os.listdir(folder))
            except OSError:
                continue
            found += [folder / n for n in names if n.endswith((".json", ".jsonl"))]
        return [p for p in found if p.is_file()]

    def owns(self, path: Path) -> bool:
        return path.suffix in (".json", ".jsonl") and (
            path.parent.name == "chatSessions" or path.parent.name in _GLOBAL
        )

    def whole_file(self, path: Path) -> bool:
        return True

    def origin(self, path: Path) -> Origin:
        return (path.stem, None, None, True)

    def parse(self, path: Path, data: bytes, offset: int, state: dict[str, Any]) -> Parsed:
        return parse_session(path, data)


__all__ = ["VSCodeAdapter", "replay", "vscode_roots"]
