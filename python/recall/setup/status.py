"""What recall has in each agent's configuration: for `recall hooks status` and doctor."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from recall.record import Record, field
from recall.setup import entries, jsonfile, tomlfile, where
from recall.setup.apply import files
from recall.setup.commands import program_of, runnable
from recall.setup.jsonfile import SettingsError
from recall.setup.where import shown


class AgentStatus(Record):
    agent: str
    installed: bool
    """The agent's folder exists."""
    hooks_file: str
    mcp_file: str
    hooks: list[str] = field(default_factory=list)
    """recall's hooks found ('Stop: ingest --event agent-stop', …)."""
    missing: list[str] = field(default_factory=list)
    """Ingest hooks setup would add."""
    mcp: bool = False
    broken: list[str] = field(default_factory=list)
    """Commands whose program does not exist (or cannot run)."""
    problems: list[str] = field(default_factory=list)

    @property
    def context(self) -> bool:
        return any(": context " in h for h in self.hooks)


def _read(path: Path) -> dict[str, Any]:
    text = jsonfile.read_text(path)
    return tomlfile.parse(path, text) if path.suffix == ".toml" else jsonfile.parse(path, text)


def status(agent: str, home: Path) -> AgentStatus:
    paths = files(agent, home)
    found = AgentStatus(  # paths as shown: a home that is not UTF-8 cannot go into JSON
        agent, where.agent_dir(agent, home).is_dir(), shown(paths["hooks"]), shown(paths["mcp"])
    )
    commands: list[str | list[str]] = []
    try:
        data = _read(paths["hooks"])
        found.hooks = sorted(entries.hooks_present(data, agent))
        commands += entries.hook_commands(data, agent)
    except SettingsError as exc:
        found.problems.append(str(exc))
    try:
        data = _read(paths["mcp"])
        server = tomlfile.current(data) if paths["mcp"].suffix == ".toml" else None
        if server is None and isinstance(data.get("mcpServers"), dict):
            server = data["mcpServers"].get("recall")
        found.mcp = entries.is_recall_server(server)
        if found.mcp and isinstance(server, dict):
            commands.append([server.get("command", ""), *server.get("args", [])])
    except SettingsError as exc:
        found.problems.append(str(exc))
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
