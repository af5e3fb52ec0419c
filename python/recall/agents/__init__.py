"""One adapter per agent; `ADAPTERS` is the registry sync and ingest consult."""

from __future__ import annotations

from pathlib import Path

from recall.agents.aider import AiderAdapter
from recall.agents.antigravity import AntigravityAdapter
from recall.agents.base import Adapter
from recall.agents.claude import ClaudeAdapter
from recall.agents.cline import ClineAdapter, RooAdapter
from recall.agents.codex import CodexAdapter
from recall.agents.continuedev import ContinueAdapter
from recall.agents.copilot import CopilotAdapter
from recall.agents.crush import CrushAdapter
from recall.agents.cursor import CursorAdapter
from recall.agents.gemini import GeminiAdapter
from recall.agents.goose import GooseAdapter
from recall.agents.jsonl_import import JsonlImportAdapter
from recall.agents.opencode import OpenCodeAdapter
from recall.agents.pi import OpenClawAdapter, PiAdapter
from recall.agents.qwen import QwenAdapter
from recall.errors import UsageError

ADAPTERS: dict[str, Adapter] = {
    a.name: a
    for a in (
        ClaudeAdapter(),
        CodexAdapter(),
        GeminiAdapter(),
        OpenCodeAdapter(),
        CursorAdapter(),
        ClineAdapter(),
        RooAdapter(),
        CopilotAdapter(),
        OpenClawAdapter(),
        PiAdapter(),
        QwenAdapter(),
        GooseAdapter(),
        CrushAdapter(),
        ContinueAdapter(),
        AntigravityAdapter(),
        AiderAdapter(),
    )
}
"""Agents whose transcripts `recall sync` discovers."""

_SNIFF_ORDER = ("antigravity", "copilot", "openclaw", "pi", "qwen")
"""Asked first by `adapter_for`: Qwen's lines look like Claude's and OpenClaw's
like Pi's, so the adapter with the narrower test answers first."""

IMPORT = JsonlImportAdapter()
"""The plain JSONL import format (`recall ingest --format jsonl`)."""


def adapter_for(path: Path) -> Adapter | None:
    """The agent whose transcript `path` looks like (the first adapter that owns it)."""
    first = [ADAPTERS[n] for n in _SNIFF_ORDER]
    rest = [a for a in ADAPTERS.values() if a.name not in _SNIFF_ORDER]
    return next((a for a in (*first, *rest) if a.owns(path)), None)


def adapter_named(name: str) -> Adapter:
    if name == IMPORT.name:
        return IMPORT
    try:
        return ADAPTERS[name]
    except KeyError:
        known = ", ".join(sorted(ADAPTERS))
        raise UsageError(f"unknown agent {name!r} (known: {known})") from None


__all__ = ["ADAPTERS", "IMPORT", "Adapter", "adapter_for", "adapter_named"]
