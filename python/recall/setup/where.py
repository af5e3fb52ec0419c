"""Where each agent keeps its user-scope configuration (docs/agents.md).

Claude Code: `~/.claude/settings.json` for hooks (`$CLAUDE_CONFIG_DIR`, first
of a comma-separated list), `~/.claude.json` for user-scope MCP servers (in
`$CLAUDE_CONFIG_DIR` when that is set). Codex: `$CODEX_HOME` or `~/.codex`,
hooks in `hooks.json`, MCP servers in `config.toml`. Gemini CLI:
`$GEMINI_CLI_HOME/.gemini` or `~/.gemini`, both in `settings.json`. Cursor:
`~/.cursor` (`$CURSOR_CONFIG_DIR`), MCP servers in `mcp.json`, hooks in
`hooks.json`. OpenCode: `$XDG_CONFIG_HOME/opencode` (`~/.config/opencode` on
every OS), its `opencode.jsonc`, `opencode.json` or `config.json`, MCP servers
only. Cline and Roo Code: each editor's `globalStorage/<extension>/settings/`
(`cline_mcp_settings.json`, `mcp_settings.json`), MCP servers only.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from recall import agent_homes as homes

AGENTS = ("claude", "codex", "gemini", "cursor", "opencode", "cline", "roo")
EXTENSIONS = {"cline": "saoudrizwan.claude-dev", "roo": "rooveterinaryinc.roo-cline"}
"""The VS Code extensions whose MCP settings setup writes, by agent."""
MCP_SETTINGS = {"cline": "cline_mcp_settings.json", "roo": "mcp_settings.json"}
OPENCODE_FILES = ("opencode.jsonc", "opencode.json", "config.json")
"""The global config files OpenCode reads, the one setup edits first when it exists."""


def shown(path: str | os.PathLike[str]) -> str:
    """A path (or command) fit to print: bytes that are not UTF-8 (a home folder named in
    Latin-1, kept by Python as `\\udce9`) as `\\xe9`, any other lone surrogate and every
    control character escaped, so a strict UTF-8 terminal or JSON never ends the command.
    (`sync.shown` is for file names only: a command read from JSON can hold `\\ud800`.)"""
    out = []
    for c in os.fspath(path):
        if "\udc80" <= c <= "\udcff":
            out.append(f"\\x{ord(c) - 0xDC00:02x}")
        elif "\ud800" <= c <= "\udfff":
            out.append(f"\\u{ord(c):04x}")
        else:
            out.append(c if c.isprintable() else repr(c)[1:-1])
    return "".join(out)


def claude_dir(home: Path) -> Path:
    return homes.claude_homes(home)[0]


def claude_json(home: Path) -> Path:
    return homes.claude_json(home)


def codex_dir(home: Path) -> Path:
    return homes.codex_home(home)


def gemini_dir(home: Path) -> Path:
    return homes.gemini_home(home)


def cursor_dir(home: Path) -> Path:
    return homes.cursor_homes(home)[0]


def opencode_dir(home: Path) -> Path:
    """OpenCode's config folder: `$XDG_CONFIG_HOME/opencode`, else `~/.config/opencode`
    (xdg-basedir's answer on macOS and Windows too)."""
    configured = os.environ.get("XDG_CONFIG_HOME", "").strip()
    return (Path(configured).expanduser() if configured else home / ".config") / "opencode"


def opencode_file(home: Path) -> Path:
    """The OpenCode config file setup edits: the first of `opencode.jsonc`,
    `opencode.json`, `config.json` that exists, else a new `opencode.json`."""
    folder = opencode_dir(home)
    for name in OPENCODE_FILES:
        if (folder / name).exists() or (folder / name).is_symlink():
            return folder / name
    return folder / "opencode.json"


def _this_platform_first(paths: list[Path]) -> list[Path]:
    """`agent_homes.app_data_dirs` order (XDG, macOS, Windows) with this system's first."""
    first = 1 if sys.platform == "darwin" else 2 if sys.platform == "win32" else 0
    return [paths[first], *paths[:first], *paths[first + 1 :]]


def extension_settings(agent: str, home: Path) -> list[Path]:
    """Cline's or Roo Code's MCP settings file in every editor that has the extension
    (VS Code, Insiders, VSCodium, Cursor, Windsurf); in VS Code on this system when
    none has it yet."""
    found = _this_platform_first(homes.extension_dirs(home, EXTENSIONS[agent]))
    name = MCP_SETTINGS[agent]
    present = [d / "settings" / name for d in found if d.is_dir()]
    return present or [found[0] / "settings" / name]


def agent_dir(agent: str, home: Path) -> Path:
    """The folder whose existence says the agent is installed (the first, for an agent
    that can live in several places: `installed` looks at all)."""
    if agent in EXTENSIONS:
        return extension_settings(agent, home)[0].parent.parent
    return {
        "claude": claude_dir,
        "codex": codex_dir,
        "gemini": gemini_dir,
        "cursor": cursor_dir,
        "opencode": opencode_dir,
    }[agent](home)


def installed(agent: str, home: Path) -> bool:
    """Whether the agent is installed here: its folder exists (for OpenCode its config or
    its data folder; for Cline and Roo Code the extension's folder in any editor)."""
    if agent in EXTENSIONS:
        return any(d.is_dir() for d in homes.extension_dirs(home, EXTENSIONS[agent]))
    if agent == "opencode" and (homes.xdg_data(home) / "opencode").is_dir():
        return True
    return agent_dir(agent, home).is_dir()
