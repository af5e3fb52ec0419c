"""Doctor's agent checks: does each installed agent call `recall ingest --event` when a turn
ends, does each know recall's MCP server, and does every such command point at a program
that exists?

Where each agent keeps its hooks (FORMATS.md §5): Claude Code in
`~/.claude/settings.json` (`$CLAUDE_CONFIG_DIR`), Codex in `~/.codex/hooks.json`,
inline `[hooks]` in `~/.codex/config.toml`, or its older `notify` program
(`$CODEX_HOME`), Gemini CLI in `~/.gemini/settings.json` (`$GEMINI_CLI_HOME`).
An agent whose directory does not exist is not installed and not reported.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from recall.doctor.findings import FAIL, OK, SKIP, WARN, Check, Context
from recall.record import Record, field
from recall.setup.commands import program_of, runnable
from recall.setup.where import claude_dir, codex_dir, gemini_dir

_RECALL_HOOK = re.compile(r"\brecall\b.*\bingest\b.*--event|-m recall ingest .*--event")

CLAUDE_SNIPPET = (
    '{"hooks": {"Stop": [{"hooks": [{"type": "command", '
    '"command": "recall ingest --event agent-stop"}]}]}}'
)
GEMINI_SNIPPET = (
    '{"hooks": {"AfterAgent": [{"hooks": [{"type": "command", '
    '"command": "recall ingest --event agent-stop"}]}]}}'
)
CODEX_SNIPPET = 'notify = ["recall", "ingest", "--event", "agent-stop"]'


class AgentHooks(Record):
    agent: str
    installed: bool
    hooked: bool
    where: str
    """The file that holds (or would hold) the hook."""
    problem: str | None = None
    """Why a settings file could not be read."""
    commands: list[Any] = field(default_factory=list)
    """The recall hook commands found (strings, or argv lists for Codex's notify)."""


def _calls_recall(value: Any) -> bool:
    """Whether any string inside `value` is a recall ingest hook command."""
    if isinstance(value, str):
        return bool(_RECALL_HOOK.search(value))
    if isinstance(value, list):
        return any(_calls_recall(v) for v in value) or _calls_recall(
            " ".join(v for v in value if isinstance(v, str))
        )
    if isinstance(value, dict):
        return any(_calls_recall(v) for v in value.values())
    return False


def _recall_commands(value: Any) -> list[Any]:
    """The hook commands inside `value` that run recall (a notify list counts as one)."""
    if isinstance(value, str):
        return [value] if _RECALL_HOOK.search(value) else []
    if isinstance(value, list):
        if value and all(isinstance(v, str) for v in value):
            return [value] if _calls_recall(value) else []
        return [c for v in value for c in _recall_commands(v)]
    if isinstance(value, dict):
        return [c for v in value.values() for c in _recall_commands(v)]
    return []


def _read_json(path: Path) -> tuple[dict[str, Any], str | None]:
    """The settings object and why it could not be read; setup's reader, so a FIFO, a
    dangling link or deep nesting is a problem reported, never a hang or a traceback."""
    from recall.setup.jsonfile import SettingsError, read_text

    try:
        text = read_text(path)
        data = json.loads(text) if text is not None else {}
    except SettingsError as exc:
        return {}, f"cannot read {path}: {exc}"
    except RecursionError:
        return {}, f"cannot read {path}: nested too deeply"
    except ValueError as exc:
        return {}, f"cannot read {path}: {exc}"
    return (data, None) if isinstance(data, dict) else ({}, f"{path} is not a JSON object")


def _json_hooks(agent: str, base: Path, events: tuple[str, ...]) -> AgentHooks:
    settings = base / "settings.json"
    data, problem = _read_json(settings)
    hooks = data.get("hooks")
    hooked = isinstance(hooks, dict) and any(_calls_recall(hooks.get(e)) for e in events)
    found = AgentHooks(agent, base.is_dir(), hooked, str(settings), problem)
    found.commands = _recall_commands(hooks)
    return found


def claude(home: Path) -> AgentHooks:
    return _json_hooks("claude", claude_dir(home), ("Stop", "SessionEnd", "SubagentStop"))


def gemini(home: Path) -> AgentHooks:
    return _json_hooks("gemini", gemini_dir(home), ("AfterAgent", "SessionEnd"))


def codex(home: Path) -> AgentHooks:
    base = codex_dir(home)
    config = base / "config.toml"
    hooks_json, problem = _read_json(base / "hooks.json")
    hooked = _calls_recall(hooks_json.get("hooks"))
    commands = _recall_commands(hooks_json.get("hooks"))
    from recall.setup.jsonfile import SettingsError, read_text

    try:
        text = read_text(config) or ""
    except SettingsError as exc:
        text, problem = "", f"cannot read {config}: {exc}"
    if text:
        import tomllib

        try:
            toml = tomllib.loads(text)
        except tomllib.TOMLDecodeError as exc:
            toml, problem = {}, f"cannot read {config}: {exc}"
        except RecursionError:
            toml, problem = {}, f"cannot read {config}: nested too deeply"
        hooked = hooked or _calls_recall(toml.get("notify")) or _calls_recall(toml.get("hooks"))
        commands += _recall_commands(toml.get("notify")) + _recall_commands(toml.get("hooks"))
    found = AgentHooks("codex", base.is_dir(), hooked, str(config), problem)
    found.commands = commands
    return found


def _unrunnable(commands: list[Any]) -> list[str]:
    """The programs of `commands` that do not exist or cannot run."""
    bad = []
    for command in commands:
        program = program_of(command)
        if program is None or not runnable(program):
            bad.append(program or str(command))
    return sorted(set(bad))


def _fix(found: AgentHooks) -> str:
    if found.agent == "codex":
        return f"add `{CODEX_SNIPPET}` to {found.where} (or a Stop hook in hooks.json)"
    snippet = CLAUDE_SNIPPET if found.agent == "claude" else GEMINI_SNIPPET
    return f"merge {snippet} into {found.where}"


def check_hooks(ctx: Context) -> Check:
    agents = [claude(ctx.home), codex(ctx.home), gemini(ctx.home)]
    installed = [a for a in agents if a.installed]
    if not installed:
        return Check("hooks", SKIP, "no Claude Code, Codex or Gemini CLI settings found")
    broken = [a for a in installed if a.problem]
    missing = [a for a in installed if not a.hooked and not a.problem]
    details = [
        f"{a.agent}: {'hooked' if a.hooked else a.problem or 'no recall hook'} ({a.where})"
        for a in installed
    ]
    fixes = [f"{a.agent}: fix or remove the file ({a.problem})" for a in broken]
    fixes += [f"{a.agent}: {_fix(a)}" for a in missing]
    hooked = [a.agent for a in installed if a.hooked]
    status = WARN if fixes else OK
    bad = _unrunnable([c for a in installed for c in a.commands])
    if bad:
        status = FAIL  # the hooks run, fail, and nobody sees it
        bare = [b for b in bad if "/" not in b and "\\" not in b]
        if bare:
            fixes.append(
                f"`{bare[0]}` is not on PATH, so the hooks cannot run it: install recall with "
                "`pipx install recall-sessions`, or run `recall setup` (it writes the full path)"
            )
        for program in (b for b in bad if b not in bare):
            fixes.append(f"a hook runs {program}, which does not exist: run `recall setup` again")
    summary = (
        f"hooked: {', '.join(hooked) or 'none'}"
        + (f"; not hooked: {', '.join(a.agent for a in missing)}" if missing else "")
        + ("; `recall sync` still indexes everything on demand" if missing else "")
    )
    return Check("hooks", status, summary, fix="\n".join(fixes) or None, details=details)


def check_mcp(ctx: Context) -> Check:
    """Each installed agent has recall's MCP server, and it points at a program that runs."""
    from recall.setup.status import status
    from recall.setup.where import AGENTS

    found = [status(a, ctx.home) for a in AGENTS]
    installed = [s for s in found if s.installed]
    if not installed:
        return Check("mcp", SKIP, "no agent settings found (Claude Code, Codex, Gemini CLI, …)")
    details = [
        f"{s.agent}: {'registered' if s.mcp else 'not registered'} ({s.mcp_file})"
        for s in installed
    ]
    missing = [s.agent for s in installed if not s.mcp]
    broken = [(s.agent, b) for s in installed if s.mcp for b in s.broken if b.endswith("mcp")]
    fixes = [f"{agent}: `{cmd}` cannot run: run `recall setup` again" for agent, cmd in broken]
    fixes += [f"{agent}: run `recall hooks install --agent {agent}`" for agent in missing]
    registered = [s.agent for s in installed if s.mcp]
    summary = f"recall's MCP server registered: {', '.join(registered) or 'none'}" + (
        f"; not in {', '.join(missing)} (the agent cannot search its history itself)"
        if missing
        else ""
    )
    status_ = FAIL if broken else WARN if missing else OK
    return Check("mcp", status_, summary, fix="\n".join(fixes) or None, details=details)
