"""What recall has in each agent's configuration: for `recall hooks status` and doctor."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from recall.record import Record, field
from recall.setup import entries, jsonc, jsonfile, tomlfile, where
from recall.setup.apply import Target, targets
from recall.setup.commands import program_of, runnable
from recall.setup.jsonfile import SettingsError
from recall.setup.where import shown


class AgentStatus(Record):
    agent: str
    installed: bool
    """The agent's folder exists."""
    hooks_file: str
    """'' for an agent recall has no hooks for (OpenCode, Cline, Roo Code)."""
    mcp_file: str
    hooks: list[str] = field(default_factory=list)
    """recall's hooks found ('Stop: ingest --event agent-stop', …)."""
    missing: list[str] = field(default_factory=list)
    """Ingest hooks setup would add."""
    mcp: bool = False
    broken: list[str] = field(default_factory=list)
    """Commands whose program does not exist (or cannot run)."""
    problems: list[str] = field(default_factory=list)
    mcp_files: list[str] = field(default_factory=list)
    """Every file recall's MCP server is written to (Cline and Roo Code: one per editor);
    `mcp` says it is in all of them."""

    @property
    def context(self) -> bool:
        return any(": context " in h for h in self.hooks)


def _read(target: Target) -> dict[str, Any]:
    text = jsonfile.read_text(target.path)
    if target.kind == "toml":
        return tomlfile.parse(target.path, text)
    if target.kind == "jsonc":
        return jsonc.parse(target.path, text)
    return jsonfile.parse(target.path, text)


def _server(target: Target, data: dict[str, Any]) -> Any:
    if target.kind == "toml":
        return tomlfile.current(data)
    servers = data.get("mcp" if target.kind == "jsonc" else "mcpServers")
    return servers.get("recall") if isinstance(servers, dict) else None


def status(agent: str, home: Path) -> AgentStatus:
    found_targets = targets(agent, home)
    hooks_target = next((t for t in found_targets if t.hooks), None)
    if hooks_target is not None and not entries.HOOKS.get(agent):
        hooks_target = None
    mcp_targets = [t for t in found_targets if t.mcp]
    found = AgentStatus(  # paths as shown: a home that is not UTF-8 cannot go into JSON
        agent,
        where.installed(agent, home),
        shown(hooks_target.path) if hooks_target else "",
        shown(mcp_targets[0].path),
        mcp_files=[shown(t.path) for t in mcp_targets],
    )
    commands: list[str | list[str]] = []
    if hooks_target is not None:
        try:
            data = _read(hooks_target)
            found.hooks = sorted(entries.hooks_present(data, agent))
            commands += entries.hook_commands(data, agent)
        except SettingsError as exc:
            found.problems.append(str(exc))
    registered = []
    for target in mcp_targets:
        try:
            server = _server(target, _read(target))
        except SettingsError as exc:
            found.problems.append(str(exc))
            continue
        if entries.is_recall_server(server) and isinstance(server, dict):
            registered.append(target)
            commands.append(entries.server_command(server))
    found.mcp = len(registered) == len(mcp_targets)
    have = set(found.hooks)
    found.missing = [
        f"{h.event}: {' '.join(h.args)}"
        for h in entries.wanted(agent, False)
        if f"{h.event}: {' '.join(h.args)}" not in have
    ]
    for command in commands:
        program = program_of(command)
        if not program or not runnable(program):
            found.broken.append(shown(command if isinstance(command, str) else " ".join(command)))
    return found
