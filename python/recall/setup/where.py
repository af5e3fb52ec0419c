"""Where each agent keeps its user-scope configuration (docs/agents.md).

Claude Code: `~/.claude/settings.json` for hooks (`$CLAUDE_CONFIG_DIR`, first
of a comma-separated list), `~/.claude.json` for user-scope MCP servers (in
`$CLAUDE_CONFIG_DIR` when that is set). Codex: `$CODEX_HOME` or `~/.codex`,
hooks in `hooks.json`, MCP servers in `config.toml`. Gemini CLI:
`$GEMINI_CLI_HOME/.gemini` or `~/.gemini`, both in `settings.json`.
"""

from __future__ import annotations

import os
from pathlib import Path

from recall import agent_homes as homes

AGENTS = ("claude", "codex", "gemini")


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


def agent_dir(agent: str, home: Path) -> Path:
    """The folder whose existence says the agent is installed."""
    return {"claude": claude_dir, "codex": codex_dir, "gemini": gemini_dir}[agent](home)
