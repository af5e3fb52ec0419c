"""What recall adds to each agent's settings, and how it finds its own entries again.

Ingest hooks always (a turn's end indexes it; a session's end indexes it
detached); context hooks on request; one MCP server named `recall`. An entry
is recall's when its command runs `recall ingest|context|mcp`: setup never
touches another program's hook, and updates its own in place when the path
of recall changed.
"""

from __future__ import annotations

import shlex
from typing import Any

from recall.record import Record
from recall.setup.commands import action_of, command_line
from recall.setup.jsonfile import SettingsError


class Hook(Record):
    event: str
    """The agent's event name (Stop, AfterAgent, …)."""
    args: tuple[str, ...]
    timeout: int
    """In the agent's unit: seconds for Claude Code and Codex, milliseconds for Gemini CLI."""
    context: bool = False
    """A context hook: only with --context."""


def _hooks(
    agent: str, stop: str, end: str | None, start: str, prompt: str, unit: int
) -> list[Hook]:
    """The agent's hooks, given its names for the four events (None: it has no such event)
    and its unit of time (1: seconds, 1000: milliseconds)."""
    found = [Hook(stop, ("ingest", "--event", "agent-stop"), 30 * unit)]
    if end:
        found.append(Hook(end, ("ingest", "--event", "session-closed"), 10 * unit))
    for event, which, seconds in ((start, "session-start", 10), (prompt, "prompt-submit", 5)):
        args = ("context", "--event", which, "--format", agent)
        found.append(Hook(event, args, seconds * unit, context=True))
    return found


HOOKS = {
    "claude": _hooks("claude", "Stop", "SessionEnd", "SessionStart", "UserPromptSubmit", 1),
    "codex": _hooks("codex", "Stop", None, "SessionStart", "UserPromptSubmit", 1),
    "gemini": _hooks("gemini", "AfterAgent", "SessionEnd", "SessionStart", "BeforeAgent", 1000),
}


def wanted(agent: str, context: bool) -> list[Hook]:
    return [h for h in HOOKS[agent] if context or not h.context]


def _purpose(command: Any) -> str | None:
    """What a recall command does, whatever its path: 'ingest --event agent-stop'."""
    action = action_of(command)
    if action is None or not isinstance(command, str):
        return None
    try:
        words = shlex.split(command)
    except ValueError:
        return None
    return " ".join(words[words.index(action) :]) if action in words else None


def _entry(agent: str, hook: Hook, program: list[str]) -> dict[str, Any]:
    entry: dict[str, Any] = {"type": "command", "command": command_line(program, *hook.args)}
    if agent == "gemini":
        entry = {"name": f"recall-{hook.args[0]}-{hook.args[2]}", **entry}
    entry["timeout"] = hook.timeout
    return entry


def _object(data: dict[str, Any], key: str, where: str) -> dict[str, Any]:
    value = data.setdefault(key, {})
    if not isinstance(value, dict):
        raise SettingsError(f'"{key}" in {where} is not an object; left untouched')
    return value


def add_hooks(
    data: dict[str, Any], agent: str, hooks: list[Hook], program: list[str], where: str
) -> None:
    """Add each hook unless recall's is there; a recall hook with an old path is updated."""
    table = _object(data, "hooks", where)
    for hook in hooks:
        groups = table.setdefault(hook.event, [])
        if not isinstance(groups, list):
            raise SettingsError(f'"hooks.{hook.event}" in {where} is not a list; left untouched')
        entry = _entry(agent, hook, program)
        purpose = " ".join(hook.args)
        mine = [
            h
            for g in groups
            if isinstance(g, dict) and isinstance(g.get("hooks"), list)
            for h in g["hooks"]
            if isinstance(h, dict) and _purpose(h.get("command")) == purpose
        ]
        if mine:
            for h in mine:
                h["command"] = entry["command"]
        else:
            groups.append({"hooks": [entry]})


def remove_hooks(data: dict[str, Any]) -> None:
    """Remove every recall hook; an event list or `hooks` object left empty by it goes too."""
    table = data.get("hooks")
    if not isinstance(table, dict):
        return
    for event in list(table):
        groups = table[event]
        if not isinstance(groups, list):
            continue
        kept = []
        for g in groups:
            inner = g.get("hooks") if isinstance(g, dict) else None
            if not isinstance(inner, list):
                kept.append(g)
                continue
            rest = [h for h in inner if not (isinstance(h, dict) and action_of(h.get("command")))]
            if len(rest) == len(inner):
                kept.append(g)
            elif rest:
                kept.append({**g, "hooks": rest})
        if len(kept) != len(groups):
            if kept:
                table[event] = kept
            else:
                del table[event]
    if not table:
        del data["hooks"]


def hooks_present(data: dict[str, Any]) -> set[str]:
    """The purposes of the recall hooks in `data` ('Stop: ingest --event agent-stop', …)."""
    found = set()
    table = data.get("hooks")
    for event, groups in table.items() if isinstance(table, dict) else []:
        for g in groups if isinstance(groups, list) else []:
            for h in g.get("hooks", []) if isinstance(g, dict) else []:
                purpose = _purpose(h.get("command")) if isinstance(h, dict) else None
                if purpose:
                    found.add(f"{event}: {purpose}")
    return found


def hook_commands(data: dict[str, Any]) -> list[str]:
    """Every recall hook command in `data`, for checking the program still exists."""
    table = data.get("hooks")
    return [
        h["command"]
        for groups in (table.values() if isinstance(table, dict) else [])
        for g in (groups if isinstance(groups, list) else [])
        for h in (g.get("hooks", []) if isinstance(g, dict) else [])
        if isinstance(h, dict) and action_of(h.get("command"))
    ]


def mcp_entry(agent: str, program: list[str]) -> dict[str, Any]:
    entry: dict[str, Any] = {"command": program[0], "args": [*program[1:], "mcp"]}
    return {"type": "stdio", **entry} if agent == "claude" else entry


def is_recall_server(entry: Any) -> bool:
    return (
        isinstance(entry, dict)
        and action_of([entry.get("command", ""), *entry.get("args", [])]) == "mcp"
    )


def add_mcp(data: dict[str, Any], agent: str, program: list[str], where: str) -> None:
    servers = _object(data, "mcpServers", where)
    existing = servers.get("recall")
    if existing is not None and not is_recall_server(existing):
        raise SettingsError(
            f'{where} already has an MCP server named "recall" that does not run recall; '
            "left untouched: rename or remove it and run this again"
        )
    entry = mcp_entry(agent, program)
    if existing is None:
        servers["recall"] = entry
    else:  # keep the user's additions (env, timeout, …), update what recall owns
        existing.update({k: v for k, v in entry.items() if existing.get(k) != v})


def remove_mcp(data: dict[str, Any]) -> None:
    servers = data.get("mcpServers")
    if isinstance(servers, dict) and is_recall_server(servers.get("recall")):
        del servers["recall"]
        if not servers:
            del data["mcpServers"]
