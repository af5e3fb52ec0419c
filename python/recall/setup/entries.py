"""What recall adds to each agent's settings, and how it finds its own entries again.

Ingest hooks always (a turn's end indexes it; a session's end indexes it
detached); context hooks on request; one MCP server named `recall`. An entry
is recall's when its command is exactly what setup writes (`commands.
written_by_recall`, any path to recall): setup updates such an entry in place
when recall moved, and removes it on uninstall. Every other hook is the
user's, even one that runs recall (`RECALL_HOME=… recall ingest …`): it is
never changed or removed, and when it already does the job of one of
recall's hooks, no second one is added beside it.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from recall.record import Record
from recall.setup.commands import command_line, runs, written_by_recall
from recall.setup.jsonfile import SettingsError
from recall.setup.where import shown


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
    # Cursor's `stop` names the agent transcript (`transcript_path`) the Cursor adapter
    # reads; its context hooks answer in a shape of their own, not written (docs/agents.md)
    "cursor": [Hook("stop", ("ingest", "--event", "agent-stop"), 30)],
}
"""Each agent's hooks; an agent missing here (OpenCode, Cline, Roo Code) gets none."""
FLAT = frozenset({"cursor"})
"""Agents whose event lists hold the hook entries themselves (`{"command": …}`), not
groups of them (`{"hooks": [{…}]}`)."""
SCAFFOLD: dict[str, dict[str, Any]] = {"cursor": {"version": 1}}
"""What a hooks file recall creates holds besides its hooks (Cursor's schema version)."""


def wanted(agent: str, context: bool) -> list[Hook]:
    return [h for h in HOOKS.get(agent, []) if context or not h.context]


def _entries(groups: Any) -> Iterator[dict[str, Any]]:
    """The hook entries in an event's list: the hooks of each group, and the entries that
    stand in the list themselves (Cursor's); whatever else the list holds is skipped."""
    for g in groups if isinstance(groups, list) else []:
        inner = g.get("hooks") if isinstance(g, dict) else None
        if isinstance(inner, list):
            yield from (h for h in inner if isinstance(h, dict))
        elif isinstance(g, dict) and "command" in g:
            yield g


def _entry(agent: str, hook: Hook, program: list[str]) -> dict[str, Any]:
    if agent in FLAT:
        return {"command": command_line(program, *hook.args)}
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
) -> list[str]:
    """Add each hook unless it is there: recall's own with an old path is updated, a
    user's line that runs the same is left as is. Returns a note for each such line."""
    for key, value in SCAFFOLD.get(agent, {}).items():
        data.setdefault(key, value)
    table = _object(data, "hooks", where)
    notes = []
    for hook in hooks:
        groups = table.setdefault(hook.event, [])
        if not isinstance(groups, list):
            raise SettingsError(f'"hooks.{hook.event}" in {where} is not a list; left untouched')
        entry = _entry(agent, hook, program)
        found = list(_entries(groups))
        mine = [h for h in found if written_by_recall(h.get("command"), hook.args)]
        theirs = [h for h in found if h not in mine and runs(h.get("command"), hook.args)]
        for h in mine:
            h["command"] = entry["command"]
        if theirs and not mine:
            notes += [
                f"{hook.event} runs your own '{shown(str(h['command']))}': left as is"
                for h in theirs
            ]
        elif not mine:
            groups.append(entry if agent in FLAT else {"hooks": [entry]})
    return notes


def _recall_args(agent: str) -> list[tuple[str, ...]]:
    return [h.args for h in HOOKS.get(agent, [])]


def remove_hooks(data: dict[str, Any], agent: str, only_context: bool = False) -> None:
    """Remove the hooks recall wrote (nothing else), or with `only_context` its context
    hooks alone; an event list or `hooks` object left empty by that goes too."""
    table = data.get("hooks")
    if not isinstance(table, dict):
        return
    ours = [h.args for h in HOOKS[agent] if h.context] if only_context else _recall_args(agent)

    def written(h: Any) -> bool:
        return isinstance(h, dict) and any(written_by_recall(h.get("command"), a) for a in ours)

    for event in list(table):
        groups = table[event]
        if not isinstance(groups, list):
            continue
        kept = []
        for g in groups:
            inner = g.get("hooks") if isinstance(g, dict) else None
            if not isinstance(inner, list):
                if not written(g):  # an entry standing in the list itself (Cursor's)
                    kept.append(g)
                continue
            rest = [h for h in inner if not written(h)]
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


def hooks_present(data: dict[str, Any], agent: str) -> set[str]:
    """The jobs of recall's hooks that something in `data` does, recall's entry or the
    user's own line ('Stop: ingest --event agent-stop', …)."""
    table = data.get("hooks")
    if not isinstance(table, dict):
        return set()
    return {
        f"{h.event}: {' '.join(h.args)}"
        for h in HOOKS.get(agent, [])
        if any(runs(e.get("command"), h.args) for e in _entries(table.get(h.event)))
    }


def hook_commands(data: dict[str, Any], agent: str) -> list[str]:
    """The hook commands recall wrote in `data`, for checking that their program (recall,
    where it was installed then) still exists."""
    table = data.get("hooks")
    if not isinstance(table, dict):
        return []
    return [
        e["command"]
        for groups in table.values()
        for e in _entries(groups)
        if any(written_by_recall(e.get("command"), a) for a in _recall_args(agent))
    ]


def mcp_entry(agent: str, program: list[str]) -> dict[str, Any]:
    """recall's MCP server as `agent` names one: OpenCode a `local` server whose command
    is one list; Claude Code, Cline and Roo Code with `"type": "stdio"` (Cline's newer
    releases want it); Codex, Gemini CLI and Cursor `command` and `args` alone."""
    if agent == "opencode":
        return {"type": "local", "command": [*program, "mcp"], "enabled": True}
    entry: dict[str, Any] = {"command": program[0], "args": [*program[1:], "mcp"]}
    return {"type": "stdio", **entry} if agent in ("claude", "cline", "roo") else entry


def is_recall_server(entry: Any) -> bool:
    """Whether an MCP entry is the one setup writes: recall (any path) with `mcp`, as
    `command` and `args`, or as OpenCode's one `command` list of a `local` server."""
    if not isinstance(entry, dict):
        return False
    command = entry.get("command")
    if isinstance(command, list):
        return entry.get("type") == "local" and written_by_recall(command, ("mcp",))
    args = entry.get("args", [])
    return (
        isinstance(command, str)
        and isinstance(args, list)
        and written_by_recall([command, *args], ("mcp",))
    )


def server_command(entry: dict[str, Any]) -> list[str]:
    """The command line an MCP entry runs, as words."""
    command = entry.get("command", "")
    if isinstance(command, list):
        return [str(w) for w in command]
    args = entry.get("args", [])
    return [str(command), *(str(a) for a in args if isinstance(args, list))]


def add_mcp(data: dict[str, Any], agent: str, program: list[str], where: str) -> None:
    servers = _object(data, "mcpServers", where)
    existing = servers.get("recall")
    if existing is not None and not is_recall_server(existing):
        raise SettingsError(
            f'{where} already has an MCP server named "recall" that recall did not write; '
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
