"""Record types the transcript formats define (docs/mirror.md), shared by the adapters'
sniffers and the twin parsers; the Rust core keeps its own copies in claude.rs and codex.rs."""

from __future__ import annotations

CLAUDE_IGNORED = frozenset(
    {
        # documented by Claude Code (docs/mirror.md, "Claude Code")
        "system", "attachment", "progress", "file-history-snapshot", "queue-operation",
        "last-prompt", "agent-name", "agent-setting", "permission-mode", "mode", "pr-link",
        "bridge-session", "worktree-state", "frame-link",
        # seen in real captures (agent-sessions' kitchen-sink fixture, schema drift)
        "started", "result", "relocated", "atis-latch", "tool_use", "tool_result",
    }
)  # fmt: skip
"""Entry types that are known and carry no conversation: ignored, not counted."""

CLAUDE_TITLE_TYPES = frozenset({"custom-title", "ai-title", "summary"})
"""Claude line types that carry a title (`recall._twin.claude` reads their text)."""

CODEX_ENVELOPES = frozenset({"session_meta", "response_item", "event_msg", "turn_context"})
"""The `type` of Codex's `{timestamp, type, payload}` envelopes."""
