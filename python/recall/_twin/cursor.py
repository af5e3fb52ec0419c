"""Twin of `rust/src/cursor.rs`: Cursor agent transcripts, `{"role", "message": {"content"}}`.

`content` is a string or a list of blocks; kept are `text` blocks (and an
unknown block's visible `text`), bare string blocks, and of a user's turn
only the words inside `<user_query>` when Cursor wrapped them so, without
injected reminders. Thinking, tool calls and results, images and files are
not conversation; roleless lines (`turn_ended`) are markers, passed over
without a count. Lines carry no time and the path names the session (the
origin): the adapter stamps the messages with the file's mtime and resolves
the workspace folder, which need the disk. A message's key is
`<session>@<byte offset>`.
"""

from __future__ import annotations

from typing import Any

from recall._twin.records import Origin
from recall._twin.reminders import strip_reminders
from recall.jsonlines import iter_json_lines
from recall.textutil import scrub
from recall.types import ASSISTANT, USER, Message, Parsed, SessionInfo, SessionPart

AGENT = "cursor"
_ROLES = {"user": USER, "assistant": ASSISTANT}
_HIDDEN = frozenset(
    {"thinking", "redacted_thinking", "tool_use", "tool_call", "tool_result", "tool-result",
     "image", "file"}
)  # fmt: skip
_OPEN = "<user_query>"
_CLOSE = "</user_query>"


def _string(value: Any) -> str:
    return scrub(value).strip() if isinstance(value, str) else ""


def block_text(content: Any) -> str:
    """The visible text of a message's content: a string, or its text-bearing blocks."""
    if isinstance(content, str):
        return scrub(content).strip()
    texts = []
    for block in content if isinstance(content, list) else []:
        if isinstance(block, str):
            texts.append(scrub(block))
        elif isinstance(block, dict):
            kind = block.get("type")
            if not (isinstance(kind, str) and kind in _HIDDEN):
                texts.append(_string(block.get("text")))
    return "\n\n".join(t for t in texts if t).strip()


def user_words(text: str) -> str:
    """What the user typed: inside `<user_query>` when Cursor wrapped it (every such
    span, non-greedy), without the injected reminders."""
    found: list[str] = []
    pos = 0
    while (start := text.find(_OPEN, pos)) >= 0:
        inner = start + len(_OPEN)
        end = text.find(_CLOSE, inner)
        if end < 0:
            break
        found.append(text[inner:end].strip())
        pos = end + len(_CLOSE)
    return strip_reminders("\n\n".join(found) if found else text).strip()


def parse(origin: Origin, data: bytes, base: int, state: dict[str, Any]) -> Parsed:
    """Parse `data` (the file from byte `base` on); a transcript carries no state."""
    parsed = Parsed()
    sid, _, parent, _ = origin
    part = SessionPart(SessionInfo(sid, AGENT, parent_session_id=parent))
    for at, obj in iter_json_lines(data, parsed, base=base):
        role = _ROLES.get(_string(obj.get("role")))
        if role is None:
            continue  # turn_ended and other markers
        message = obj.get("message")
        content = message.get("content") if isinstance(message, dict) else obj.get("content")
        text = block_text(content)
        text = user_words(text) if role == USER else text
        if text:
            part.messages.append(Message(f"{sid}@{at}", role, text, None))
    parsed.parts = [part]
    return parsed
