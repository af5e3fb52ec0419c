"""The registry of tools the MCP server offers, and the error a tool reports.

A provider is a function returning the tools it offers right now: the
history tools and the memory tools (remember, search_memories), each from a
provider of its own; a provider returns only tools that can work right now.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from recall.record import Record, field


class ToolError(Exception):
    """A call the tool refuses (bad arguments, nothing indexed): returned to the model as
    a tool result with `isError`, in words it can act on, never as a protocol error."""


class Tool(Record):
    name: str
    description: str
    """When the model should call it, not only what it does."""
    input_schema: dict[str, Any]
    run: Callable[[dict[str, Any]], dict[str, Any]]
    """Arguments in, a JSON object out; raises ToolError."""
    aliases: dict[str, str] = field(default_factory=dict)
    """Older argument names still accepted (`session` → `session_id`), renamed before
    `run`; not listed in the schema, so an agent is shown one name for each thing."""

    def arguments(self, args: dict[str, Any]) -> dict[str, Any]:
        """`args` with aliases renamed, or ToolError naming an unknown argument and listing
        the valid ones: a misspelt `limit` silently ignored would hand the agent ten
        results it did not ask for."""
        valid = list(self.input_schema.get("properties", {}))
        out: dict[str, Any] = {}
        for key, value in args.items():
            name = self.aliases.get(key, key)
            if name not in valid:
                shown = key if len(key) <= 40 else key[:39] + "…"
                raise ToolError(
                    f"Unknown parameter '{shown}' for {self.name}. "
                    f"Valid parameters: {', '.join(valid)}"
                )
            if name in out:
                raise ToolError(f"Parameter '{name}' was given twice (as '{key}' too)")
            out[name] = value
        return out

    def describe(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "description": self.description,
            "inputSchema": self.input_schema,
        }


Provider = Callable[[], list[Tool]]
PROVIDERS: list[Provider] = []
"""Registered with `provide` (the server registers the built-in ones); asked in order on
every `tools/list` and `tools/call`."""


def provide(provider: Provider) -> Provider:
    """Register a provider (usable as a decorator)."""
    if provider not in PROVIDERS:
        PROVIDERS.append(provider)
    return provider


def list_tools() -> list[Tool]:
    return [tool for provider in PROVIDERS for tool in provider()]


MAX_ARGUMENT = 10_000
"""Characters in one string argument. A model sends a few words; a longer value is
refused in words (SQLite refuses a LIKE pattern over 50 KB as an internal error)."""


def call_tool(name: str, args: dict[str, Any]) -> dict[str, Any]:
    """Run tool `name`; KeyError when no listed tool has that name."""
    for tool in list_tools():
        if tool.name == name:
            _check_lengths(args)
            return _guarded(tool, tool.arguments(args))
    raise KeyError(name)


def _check_lengths(args: dict[str, Any]) -> None:
    for key, value in args.items():
        if isinstance(value, str) and len(value) > MAX_ARGUMENT:
            shown = key if len(key) <= 40 else key[:39] + "…"
            raise ToolError(
                f"Parameter '{shown}' is too long: {len(value)} characters, at most {MAX_ARGUMENT}"
            )


def _guarded(tool: Tool, args: dict[str, Any]) -> dict[str, Any]:
    """A recall error (nothing indexed, a session that is not there) becomes a tool
    error in its own words; anything else is a bug and goes up as one."""
    from recall.errors import RecallError

    try:
        return tool.run(args)
    except RecallError as exc:
        raise ToolError(str(exc)) from None
