"""Each agent's home folder, read once for everyone: the adapters find transcripts under
it and setup writes hooks and MCP entries into it, so both must name the same folder.

Claude Code: `$CLAUDE_CONFIG_DIR` (a comma-separated list; blank entries are
ignored) or `~/.claude`, with `~/.config/claude` as a second default home.
Codex: `$CODEX_HOME` or `~/.codex`. Gemini CLI: `$GEMINI_CLI_HOME/.gemini` or
`~/.gemini`. Copilot CLI: `$COPILOT_HOME` or `~/.copilot`. Pi: `$PI_CODING_AGENT_DIR`
or `~/.pi/agent` (and oh-my-pi's `~/.omp/agent`). OpenClaw: `$OPENCLAW_STATE_DIR` or
`~/.openclaw` (and the legacy `~/.clawdbot`). Qwen Code: `$QWEN_RUNTIME_DIR` and
`$QWEN_HOME` or `~/.qwen`. Antigravity's CLI: `~/.gemini/antigravity-cli` (no
override of its own). Every OS alike: each of these agents keeps its folder in
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


def xdg_data(home: Path) -> Path:
    """`$XDG_DATA_HOME`, or `~/.local/share` (where OpenCode and Goose keep their data on
    every OS, Windows and macOS included)."""
    configured = os.environ.get("XDG_DATA_HOME", "").strip()
    return Path(configured).expanduser() if configured else home / ".local" / "share"


def opencode_roots(home: Path) -> list[Path]:
    """OpenCode's data folder, and the database `$OPENCODE_DB` names when it is set."""
    configured = os.environ.get("OPENCODE_DB", "").strip()
    named = [Path(configured).expanduser()] if configured else []
    return [*named, xdg_data(home) / "opencode"]


def app_data_dirs(home: Path, app: str) -> list[Path]:
    """Where a VS Code-family editor named `app` (Code, Cursor, VSCodium, …) keeps its
    `User` folder: `$APPDATA/<app>` on Windows, `~/Library/Application Support/<app>`
    on macOS, `$XDG_CONFIG_HOME/<app>` or `~/.config/<app>` elsewhere. All three are
    returned (only those that exist are read), so a home copied between systems works."""
    appdata = os.environ.get("APPDATA", "").strip()
    config = os.environ.get("XDG_CONFIG_HOME", "").strip()
    bases = [
        Path(config).expanduser() if config else home / ".config",
        home / "Library" / "Application Support",
        Path(appdata) if appdata else home / "AppData" / "Roaming",
    ]
    return [base / app / "User" for base in bases]


def cursor_homes(home: Path) -> list[Path]:
    """Cursor's own folders, `$CURSOR_CONFIG_DIR` first when set, then `~/.cursor`:
    agent transcripts under `projects/`, the MCP servers in `mcp.json`."""
    configured = os.environ.get("CURSOR_CONFIG_DIR", "").strip()
    named = [Path(configured).expanduser()] if configured else []
    return [*named, home / ".cursor"]


EDITORS = ("Code", "Code - Insiders", "VSCodium", "Cursor", "Windsurf")
"""VS Code and the forks whose `globalStorage` can hold Cline's or Roo Code's tasks."""


def extension_dirs(home: Path, extension: str) -> list[Path]:
    """`<editor User>/globalStorage/<extension>` for every editor and OS recall knows."""
    return [
        user / "globalStorage" / extension
        for editor in EDITORS
        for user in app_data_dirs(home, editor)
    ]


def cline_sessions(home: Path) -> Path:
    """The Cline SDK's session store: `$CLINE_SESSION_DATA_DIR`, `$CLINE_DATA_DIR/sessions`,
    or `~/.cline/data/sessions`."""
    configured = os.environ.get("CLINE_SESSION_DATA_DIR", "").strip()
    if configured:
        return Path(configured).expanduser()
    data = os.environ.get("CLINE_DATA_DIR", "").strip()
    return (Path(data).expanduser() if data else home / ".cline" / "data") / "sessions"


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


def antigravity_home(home: Path) -> Path:
    """The Antigravity CLI's (`agy`) folder: its conversations under `brain/`."""
    return home / ".gemini" / "antigravity-cli"
