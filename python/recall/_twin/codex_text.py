"""Twin of `rust/src/codex_text.rs`: what of a Codex record is conversation."""

from __future__ import annotations

from typing import Any

from recall._twin.reminders import strip_reminders
from recall.jsonlines import text_of
from recall.textutil import scrub

TEXT_ITEMS = {"input_text", "output_text", "text"}

# Injected context that Codex sends as `role:"user"` text (instruction_markers.rs,
# contextual_user_message.rs and the fragments under codex-rs/core/src/context/).
INJECTED_PREFIXES = tuple(
    m.lower()
    for m in (
        "# AGENTS.md instructions for",
        "<INSTRUCTIONS>",
        "<user_instructions>",
        "<environment_context>",
        "<skill>",
        "<skills_instructions>",
        "<user_shell_command>",
        "<turn_aborted>",
        "<subagent_notification>",
        "<hook_prompt",
        "<hook_context>",
        "<additional_context>",
        "<extension_context>",
        "<goal_context>",
        "<external_",
        "Warning: apply_patch was requested via ",
        "Warning: The maximum number of unified exec processes you can keep open is",
        "Warning: Your account was flagged for potentially high-risk cyber activity",
    )
)


def is_injected(text: str) -> bool:
    """Whether a user content item is scaffolding Codex injected, not typed text."""
    return text.strip().lower().startswith(INJECTED_PREFIXES)


def user_text(raw: str) -> str:
    return "" if is_injected(raw) else strip_reminders(raw)


def sval(value: Any) -> str | None:
    """A string field, scrubbed and trimmed; None when absent, empty or not a string."""
    return scrub(value).strip() or None if isinstance(value, str) else None


def parent_of(payload: dict[str, Any]) -> str | None:
    parent = sval(payload.get("parent_thread_id"))
    source = payload.get("source")
    if parent is None and isinstance(source, dict):
        sub = source.get("subagent")
        if isinstance(sub, dict):
            for value in sub.values():
                if isinstance(value, dict):
                    parent = parent or sval(value.get("parent_thread_id"))
    return parent


def message_texts(item: dict[str, Any]) -> list[str] | None:
    """The text items of a message payload; None when `content` has the wrong shape."""
    content = item.get("content", item.get("message"))
    if isinstance(content, str):
        return [content]
    if not isinstance(content, list):
        return None
    texts: list[str] = []
    for part in content:
        if isinstance(part, str):
            texts.append(part)
        elif isinstance(part, dict) and part.get("type", "text") in TEXT_ITEMS:
            texts.append(text_of(part.get("text")))
    return texts
