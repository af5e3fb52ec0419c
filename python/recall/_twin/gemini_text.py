"""Twin of `rust/src/gemini_text.rs`: what of a Gemini message record is conversation."""

from __future__ import annotations

import re
from typing import Any

from recall._twin.reminders import strip_reminders
from recall.jsonlines import text_of
from recall.textutil import scrub

_IGNORED_USER_PREFIXES = ("/", "?", "<session_context>", "<hook_context>")
_HOOK_TAIL = re.compile(r"\s*<hook_context>.*?</hook_context>\s*$", re.DOTALL)
_REF_HEADER = "--- Content from referenced files ---"


def _parts(content: Any) -> list[Any]:
    """A PartListUnion (string, one part, or a list of either) as a list."""
    if content is None:
        return []
    return content if isinstance(content, list) else [content]


def _part_texts(parts: list[Any]) -> list[str]:
    texts: list[str] = []
    for part in parts:
        # Each piece is scrubbed alone, as the Rust core decodes each string alone.
        if isinstance(part, str):
            texts.append(scrub(part))
        elif isinstance(part, dict) and not part.get("thought") and "text" in part:
            texts.append(scrub(text_of(part.get("text"))))
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


def model_text(record: dict[str, Any]) -> str:
    return "".join(_part_texts(_parts(record.get("content")))).strip()
