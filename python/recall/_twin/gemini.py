"""Twin of `rust/src/gemini.rs`: Gemini CLI chat records into one session's turns.

JSONL (v0.40+) is read incrementally: a metadata line, message records (the
same `id` re-appended on every update, the last copy wins), `{"$set":{…}}`
patches (`messages` in one is a checkpoint, merged so compression loses nothing) and
`{"$rewindTo": id}` (drop that message and everything after it). Legacy
`.json` files are one document, always read whole (`origin[3]`).

Message keys are `<sessionId>#<message id>`: ids repeat within a file by
design, and short fixture ids (`u1`) repeat across sessions, which the store
would otherwise take for resume copies. The project root, when no record
names it, is looked up on disk by `recall.agents.gemini` after the parse.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

from recall._twin.gemini_text import model_text, user_text
from recall._twin.records import Origin, carried_sid
from recall.jsonlines import SKIP_BAD_SHAPE, SKIP_UNKNOWN, iter_json_lines, load_json_document
from recall.textutil import scrub
from recall.types import (
    ASSISTANT,
    TITLE_AGENT,
    USER,
    Message,
    Parsed,
    SessionInfo,
    SessionPart,
)

AGENT = "gemini"

_DROPPED_TYPES = {"info", "error", "warning"}
_ROLES = {"user": USER, "gemini": ASSISTANT, "model": ASSISTANT}


def _str(value: Any) -> str | None:
    return scrub(value).strip() or None if isinstance(value, str) else None


def stamp(value: Any) -> str | None:
    """An ISO timestamp string; epoch seconds/milliseconds are converted."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        try:
            seconds = value / 1000 if value > 1e11 else value
            return datetime.fromtimestamp(seconds, UTC).isoformat().replace("+00:00", "Z")
        except (OverflowError, OSError, ValueError):
            return None  # a huge integer overflows even the division
    return _str(value)


class _Run:
    """One parse of one transcript: resumable state plus the part being built."""

    def __init__(self, origin: Origin, state: dict[str, Any], parsed: Parsed) -> None:
        self.origin = origin
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
        return carried_sid(self.st, self.origin[0])

    def key(self, msg_id: str) -> str:
        return f"{self.sid()}#{msg_id}"

    def metadata(self, rec: dict[str, Any]) -> None:
        st = self.st
        sid = _str(rec.get("sessionId"))
        if sid and not isinstance(st.get("sid"), str):
            st["sid"] = sid
        st["started"] = st.get("started") or stamp(rec.get("startTime", rec.get("start_time")))
        dirs = rec.get("directories")
        first = _str(dirs[0]) if isinstance(dirs, list) and dirs else None
        if first:
            st["project"] = first
        for key, value in (("kind", rec.get("kind")), ("project_hash", rec.get("projectHash"))):
            clean = _str(value)
            if clean:
                st["meta"][key] = clean
        meta = rec.get("meta")
        model = _str(meta.get("model")) if isinstance(meta, dict) else None
        if model:
            st["meta"].setdefault("model", model)
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
            text = model_text(rec)
        elif not isinstance(kind, str):
            self.parsed.skip(SKIP_BAD_SHAPE)
        elif kind not in _DROPPED_TYPES:
            self.parsed.skip(SKIP_UNKNOWN)
        when = stamp(rec.get("timestamp", rec.get("ts")))
        kept = Message(key, role, text, when) if text and role else None
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
        title = st.get("title")
        info = SessionInfo(
            session_id=self.sid(),
            agent=AGENT,
            project=st.get("project"),
            title=title,
            title_rank=TITLE_AGENT if title else 0,
            parent_session_id=self.origin[2],
            started_at=st.get("started"),
            metadata=dict(st["meta"]),
        )
        self.parsed.parts.append(
            SessionPart(info=info, messages=messages, replace=self.replace, rewinds=self.rewinds)
        )


def parse(origin: Origin, data: bytes, base: int, state: dict[str, Any]) -> Parsed:
    parsed = Parsed()
    whole = origin[3]
    run = _Run(origin, {} if whole else state, parsed)
    try:
        if whole:
            run.document(load_json_document(data, parsed))
        else:
            for off, rec in iter_json_lines(data, parsed, base=base):
                try:
                    run.record(off, rec)
                except (AttributeError, TypeError, ValueError, KeyError):
                    parsed.skip(SKIP_BAD_SHAPE)
    except (AttributeError, TypeError, ValueError, KeyError):
        parsed.skip(SKIP_BAD_SHAPE)
    run.finish()
    parsed.state = run.st
    return parsed
