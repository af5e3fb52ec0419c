"""Each agent's home folder, read once for everyone: the adapters find transcripts under
it and setup writes hooks and MCP entries into it, so both must name the same folder.

Claude Code: `$CLAUDE_CONFIG_DIR` (a comma-separated list; blank entries are
ignored) or `~/.claude`, with `~/.config/claude` as a second default home.
Codex: `$CODEX_HOME` or `~/.codex`. Gemini CLI: `$GEMINI_CLI_HOME/.gemini` or
`~/.gemini`. Copilot CLI: `$COPILOT_HOME` or `~/.copilot`. Pi: `$PI_CODING_AGENT_DIR`
or `~/.pi/agent` (and oh-my-pi's `~/.omp/agent`). OpenClaw: `$OPENCLAW_STATE_DIR` or
`~/.openclaw` (and the legacy `~/.clawdbot`). Qwen Code: `$QWEN_RUNTIME_DIR` and
`$QWEN_HOME` or `~/.qwen`. Every OS alike: each of these agents keeps its folder in
the user's home on Windows too. `tests/agents/test_homes.py` holds the adapters and
setup to it. A ground module (os and pathlib only), so setup can ask without loading
the adapters.
"""

from __future__ import annotations

import os
from pathlib import Path


def claude_configured() -> list[Path]:
    """The folders `$CLAUDE_CONFIG_DIR` names, in order (none when it is unset or blank)."""
    entries = os.environ.get("CLAUDE_CONFIG_DIR", "").split(",")
    return [Path(e.strip()).expanduser() for e in entries if e.strip()]


def claude_homes(home: Path) -> list[Path]:
    """Claude Code's home folders, the one its settings live in first."""
    return claude_configured() or [home / ".claude", home / ".config" / "claude"]


def claude_json(home: Path) -> Path:
    """Claude Code's user-scope MCP file: in the configured folder, else beside the home."""
    configured = claude_configured()
    return configured[0] / ".claude.json" if configured else home / ".claude.json"


def codex_home(home: Path) -> Path:
    configured = os.environ.get("CODEX_HOME", "").strip()
    return Path(configured).expanduser() if configured else home / ".codex"


def gemini_home(home: Path) -> Path:
    configured = os.environ.get("GEMINI_CLI_HOME", "").strip()
    return (Path(configured).expanduser() if configured else home) / ".gemini"


def _env_dir(name: str) -> Path | None:
    configured = os.environ.get(name, "").strip()
    return Path(configured).expanduser() if configured else None


def copilot_home(home: Path) -> Path:
    return _env_dir("COPILOT_HOME") or home / ".copilot"


def pi_homes(home: Path) -> list[Path]:
    """Pi's agent folder (sessions, settings), then oh-my-pi's, which writes the same format."""
    return [_env_dir("PI_CODING_AGENT_DIR") or home / ".pi" / "agent", home / ".omp" / "agent"]


def openclaw_homes(home: Path) -> list[Path]:
    """OpenClaw's state folder, then the one it had as Clawdbot."""
    return [_env_dir("OPENCLAW_STATE_DIR") or home / ".openclaw", home / ".clawdbot"]


def qwen_home(home: Path) -> Path:
    """Qwen Code's home (settings.json); its chats are under `qwen_homes`."""
    return _env_dir("QWEN_HOME") or home / ".qwen"


def qwen_homes(home: Path) -> list[Path]:
    """Where Qwen Code keeps its chats: `$QWEN_RUNTIME_DIR` when set, then its home."""
    runtime = _env_dir("QWEN_RUNTIME_DIR")
    return [runtime, qwen_home(home)] if runtime else [qwen_home(home)]
