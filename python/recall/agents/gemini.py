"""Gemini CLI chats: `~/.gemini/tmp/<project>/chats/session-*.jsonl` (FORMATS §3).

JSONL (v0.40+) is read incrementally: a metadata line, message records (the
same `id` re-appended on every update, the last copy wins), `{"$set":{…}}`
patches (`messages` in one is a checkpoint, merged so compression loses nothing) and
`{"$rewindTo": id}` (drop that message and everything after it). Legacy
`.json` files are one document, always read whole (`whole_file`).

Message keys are `<sessionId>#<message id>`: ids repeat within a file by
design, and short fixture ids (`u1`) repeat across sessions, which the store
would otherwise take for resume copies.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Iterable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from recall._accel import strip_reminders
from recall.agents.base import (
    SKIP_BAD_SHAPE,
    SKIP_UNKNOWN,
    iter_json_lines,
    load_json_document,
    text_of,
)
from recall.types import (
    ASSISTANT,
    TITLE_AGENT_SUMMARY,
    USER,
    Message,
    Parsed,
    SessionInfo,
    SessionPart,
)

_DROPPED_TYPES = {"info", "error", "warning"}
_ROLES = {"user": USER, "gemini": ASSISTANT, "model": ASSISTANT}
_IGNORED_USER_PREFIXES = ("/", "?", "<session_context>", "<hook_context>")
_HOOK_TAIL = re.compile(r"\s*<hook_context>.*?</hook_context>\s*$", re.DOTALL)
_REF_HEADER = "--- Content from referenced files ---"
_SNIFF_BYTES = 64 * 1024
_MAX_SNIFF_DOC = 64 * 1024 * 1024


def _str(value: Any) -> str | None:
    return value.strip() or None if isinstance(value, str) else None


def _stamp(value: Any) -> str | None:
    """An ISO timestamp string; epoch seconds/milliseconds are converted."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        seconds = value / 1000 if value > 1e11 else value
        try:
            return datetime.fromtimestamp(seconds, UTC).isoformat().replace("+00:00", "Z")
        except (OverflowError, OSError, ValueError):
            return None
    return _str(value)


def _parts(content: Any) -> list[Any]:
    """A PartListUnion (string, one part, or a list of either) as a list."""
    if content is None:
        return []
    return content if isinstance(content, list) else [content]


def _part_texts(parts: list[Any]) -> list[str]:
    texts: list[str] = []
    for part in parts:
        if isinstance(part, str):
            texts.append(part)
        elif isinstance(part, dict) and not part.get("thought") and "text" in part:
            texts.append(text_of(part.get("text")))
    return texts


def _only_tool_responses(parts: list[Any]) -> bool:
    return bool(parts) and all(isinstance(p, dict) and "functionResponse" in p for p in parts)


def user_text(record: dict[str, Any]) -> str:
    """The typed text of a user record, or '' when it is not a human turn."""
    content = _parts(record.get("content"))
    if _only_tool_responses(content):
        return ""
    display = _parts(record.get("displayContent"))
    chosen = display if _part_texts(display) else content
    texts = [t for t in _part_texts(chosen) if not t.lstrip().startswith("<hook_context>")]
    text = "".join(texts).split(_REF_HEADER, 1)[0]  # @file expansions, when no displayContent
    text = strip_reminders(_HOOK_TAIL.sub("", text))
    return "" if text.startswith(_IGNORED_USER_PREFIXES) else text


def _model_text(record: dict[str, Any]) -> str:
    return "".join(_part_texts(_parts(record.get("content")))).strip()


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
            digest = hashlib.sha256(root.encode("utf-8")).hexdigest()
            if (
                slug == folder.name
                or folder.name in (digest, digest[:16])
                or (project_hash and len(project_hash) >= 16 and digest.startswith(project_hash))
            ):
                return str(root)
    except (OSError, ValueError, AttributeError):
        return None
    return None


class _Run:
    """One parse of one transcript: resumable state plus the part being built."""

    def __init__(self, path: Path, state: dict[str, Any], parsed: Parsed) -> None:
        self.path = path
        self.parsed = parsed
        self.st: dict[str, Any] = json.loads(json.dumps(state)) if state else {}
        self.st.setdefault("meta", {})
        # Gemini's current message list: [id, kept] in order, dropped records included
        # so a rewind to an info/tool record still cuts at the right place.
        self.order: list[list[Any]] = self.st.setdefault("order", [])
        self.pos = {entry[0]: i for i, entry in enumerate(self.order)}
        self.stored = {entry[0] for entry in self.order if entry[1]}
        self.pending: dict[str, Message] = {}
        self.rewinds: list[str] = []
        self.replace = False
        self.title_changed = False

    def sid(self) -> str:
        sid = self.st.get("sid")
        if not isinstance(sid, str):
            sid = self.st["sid"] = self.path.stem
        return sid

    def key(self, msg_id: str) -> str:
        return f"{self.sid()}#{msg_id}"

    def metadata(self, rec: dict[str, Any]) -> None:
        st = self.st
        sid = _str(rec.get("sessionId"))
        if sid and not isinstance(st.get("sid"), str):
            st["sid"] = sid
        st["started"] = st.get("started") or _stamp(rec.get("startTime", rec.get("start_time")))
        dirs = rec.get("directories")
        if isinstance(dirs, list) and dirs and _str(dirs[0]):
            st["project"] = dirs[0].strip()
        for key, value in (("kind", rec.get("kind")), ("project_hash", rec.get("projectHash"))):
            clean = _str(value)
            if clean:
                st["meta"][key] = clean
        meta = rec.get("meta")
        if isinstance(meta, dict) and _str(meta.get("model")):
            st["meta"].setdefault("model", meta["model"].strip())
        summary = _str(rec.get("summary"))
        if summary and summary != st.get("title"):
            st["title"] = summary
            self.title_changed = True

    def message(self, rec: dict[str, Any], fallback_key: str) -> None:
        msg_id = _str(rec.get("id"))
        key = self.key(msg_id) if msg_id else fallback_key
        kind = rec.get("type", rec.get("role"))
        role = _ROLES.get(kind) if isinstance(kind, str) else None
        text = ""
        if role == USER:
            text = user_text(rec)
        elif role == ASSISTANT:
            model = _str(rec.get("model"))
            if model:
                self.st["meta"]["model"] = model
            text = _model_text(rec)
        elif not isinstance(kind, str):
            self.parsed.skip(SKIP_BAD_SHAPE)
        elif kind not in _DROPPED_TYPES:
            self.parsed.skip(SKIP_UNKNOWN)
        stamp = _stamp(rec.get("timestamp", rec.get("ts")))
        kept = Message(key, role, text, stamp) if text and role else None
        i = self.pos.get(key)
        if i is None:
            self.pos[key] = len(self.order)
            self.order.append([key, kept is not None])
        elif kept is not None:
            self.order[i][1] = True
        if kept is not None:  # a re-appended id keeps its place and takes the new text
            self.pending[key] = kept

    def rewind(self, msg_id: str) -> None:
        key = self.key(msg_id)
        i = self.pos.get(key)
        if i is None:
            if not self.replace:
                self.rewinds.append(key)  # unknown here: the store may know it
            return
        removed = self.order[i:]
        del self.order[i:]
        first_stored = next((k for k, kept in removed if kept and k in self.stored), None)
        for k, _ in removed:
            self.pos.pop(k, None)
            self.pending.pop(k, None)
            self.stored.discard(k)
        if first_stored is not None:
            self.rewinds.append(first_stored)

    def checkpoint(self, messages: list[Any], off: int, replace: bool) -> None:
        """A full message list: a legacy document (`replace`), or a `$set` inside JSONL.

        Gemini writes `$set.messages` when it compresses a chat, keeping only a
        summary; the mirror keeps what was discussed, so inside JSONL the list
        is merged (known ids updated in place, new ones appended), not replaced.
        """
        if replace:
            self.replace = True
            self.rewinds.clear()
            self.pending.clear()
            self.order.clear()
            self.pos.clear()
            self.stored.clear()
        for n, rec in enumerate(messages):
            if isinstance(rec, dict):
                self.message(rec, f"{self.sid()}@{off}.{n}")
            else:
                self.parsed.skip(SKIP_BAD_SHAPE)

    def record(self, off: int, rec: dict[str, Any]) -> None:
        if "$rewindTo" in rec:
            target = _str(rec["$rewindTo"])
            if target:
                self.rewind(target)
            else:
                self.parsed.skip(SKIP_BAD_SHAPE)
        elif "$set" in rec:
            patch = rec["$set"]
            if not isinstance(patch, dict):
                self.parsed.skip(SKIP_BAD_SHAPE)
                return
            self.metadata(patch)
            if isinstance(patch.get("messages"), list):
                self.checkpoint(patch["messages"], off, replace=False)
        elif isinstance(rec.get("messages"), list):  # a whole legacy record on one line
            self.metadata(rec)
            self.checkpoint(rec["messages"], off, replace=False)
        elif "id" in rec or "type" in rec:
            self.message(rec, f"{self.sid()}@{off}")
        elif "sessionId" in rec:
            self.metadata(rec)
        else:
            self.parsed.skip(SKIP_UNKNOWN)

    def document(self, doc: Any) -> None:
        if not isinstance(doc, dict):
            if not self.parsed.skipped:  # unreadable documents are already counted
                self.parsed.skip(SKIP_BAD_SHAPE)
            return
        self.metadata(doc)
        records = doc.get("messages", doc.get("history"))
        if not isinstance(records, list):
            self.parsed.skip(SKIP_BAD_SHAPE)
            return
        for rec in records:  # `/chat save` checkpoints hold API Content turns: {role, parts}
            if isinstance(rec, dict) and "parts" in rec and "content" not in rec:
                rec["content"] = rec["parts"]
        self.checkpoint(records, 0, replace=True)

    def finish(self) -> None:
        st = self.st
        messages = list(self.pending.values())
        touched = self.replace or self.rewinds or self.title_changed
        if not (messages or (touched and st.get("emitted"))):
            return  # nothing to say, and no empty session is created for it
        st["emitted"] = True
        if not st.get("project"):
            st["project"] = _project_from_disk(self.path, st["meta"].get("project_hash"))
        parent = None
        if self.path.parent.parent.name == "chats":
            parent = self.path.parent.name  # chats/<parentSessionId>/<sessionId>.jsonl
        title = st.get("title")
        info = SessionInfo(
            session_id=self.sid(),
            agent=GeminiAdapter.name,
            project=st.get("project"),
            title=title,
            title_rank=TITLE_AGENT_SUMMARY if title else 0,
            parent_session_id=parent,
            started_at=st.get("started"),
            metadata=dict(st["meta"]),
        )
        self.parsed.parts.append(
            SessionPart(info=info, messages=messages, replace=self.replace, rewinds=self.rewinds)
        )


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
    incremental = True
    """JSONL chats resume from an offset; legacy `.json` ones are read whole."""

    def whole_file(self, path: Path) -> bool:
        return path.suffix == ".json"

    def default_roots(self) -> list[Path]:
        home = os.environ.get("GEMINI_CLI_HOME", "").strip()
        return [(Path(home).expanduser() if home else Path.home()) / ".gemini" / "tmp"]

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
            with open(path, "rb") as fh:
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

    def parse(self, path: Path, data: bytes, offset: int, state: dict[str, Any]) -> Parsed:
        parsed = Parsed()
        whole = self.whole_file(path)
        run = _Run(path, {} if whole else state, parsed)
        try:
            if whole:
                run.document(load_json_document(data, parsed))
            else:
                for off, rec in iter_json_lines(data, parsed, base=offset):
                    try:
                        run.record(off, rec)
                    except (AttributeError, TypeError, ValueError, KeyError):
                        parsed.skip(SKIP_BAD_SHAPE)
        except (AttributeError, TypeError, ValueError, KeyError):
            parsed.skip(SKIP_BAD_SHAPE)
        run.finish()
        parsed.state = run.st
        return parsed
