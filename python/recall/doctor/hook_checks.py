"""Doctor's hook check: does each installed agent call `recall ingest --event` when a turn ends?

Where each agent keeps its hooks (FORMATS.md §5): Claude Code in
`~/.claude/settings.json` (`$CLAUDE_CONFIG_DIR`), Codex in `~/.codex/hooks.json`,
inline `[hooks]` in `~/.codex/config.toml`, or its older `notify` program
(`$CODEX_HOME`), Gemini CLI in `~/.gemini/settings.json` (`$GEMINI_CLI_HOME`).
An agent whose directory does not exist is not installed and not reported.
"""

from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path
from typing import Any

from recall.doctor.findings import FAIL, OK, SKIP, WARN, Check, Context
from recall.record import Record

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


def _read_json(path: Path) -> tuple[dict[str, Any], str | None]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}, None
    except (OSError, ValueError) as exc:
        return {}, f"cannot read {path}: {exc}"
    return (data, None) if isinstance(data, dict) else ({}, f"{path} is not a JSON object")


def _json_hooks(agent: str, base: Path, events: tuple[str, ...]) -> AgentHooks:
    settings = base / "settings.json"
    data, problem = _read_json(settings)
    hooks = data.get("hooks")
    hooked = isinstance(hooks, dict) and any(_calls_recall(hooks.get(e)) for e in events)
    return AgentHooks(agent, base.is_dir(), hooked, str(settings), problem)


def claude(home: Path) -> AgentHooks:
    configured = os.environ.get("CLAUDE_CONFIG_DIR", "").split(",")[0].strip()
    base = Path(configured).expanduser() if configured else home / ".claude"
    return _json_hooks("claude", base, ("Stop", "SessionEnd", "SubagentStop"))


def gemini(home: Path) -> AgentHooks:
    configured = os.environ.get("GEMINI_CLI_HOME", "").strip()
    base = (Path(configured).expanduser() if configured else home) / ".gemini"
    return _json_hooks("gemini", base, ("AfterAgent", "SessionEnd"))


def codex(home: Path) -> AgentHooks:
    configured = os.environ.get("CODEX_HOME", "").strip()
    base = Path(configured).expanduser() if configured else home / ".codex"
    config = base / "config.toml"
    hooks_json, problem = _read_json(base / "hooks.json")
    hooked = _calls_recall(hooks_json.get("hooks"))
    try:
        text = config.read_text(encoding="utf-8")
    except FileNotFoundError:
        text = ""
    except OSError as exc:
        text, problem = "", f"cannot read {config}: {exc}"
    if text:
        import tomllib

        try:
            toml = tomllib.loads(text)
        except tomllib.TOMLDecodeError as exc:
            toml, problem = {}, f"cannot read {config}: {exc}"
        hooked = hooked or _calls_recall(toml.get("notify")) or _calls_recall(toml.get("hooks"))
    return AgentHooks("codex", base.is_dir(), hooked, str(config), problem)


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
    if hooked and shutil.which("recall") is None:
        status = FAIL  # the hooks run, fail, and nobody sees it
        fixes.append(
            "`recall` is not on PATH, so the hooks cannot run it: install recall with "
            "`pipx install recall-sessions`, or write its full path in the hook commands"
        )
    summary = (
        f"hooked: {', '.join(hooked) or 'none'}"
        + (f"; not hooked: {', '.join(a.agent for a in missing)}" if missing else "")
        + ("; `recall sync` still indexes everything on demand" if missing else "")
    )
    return Check("hooks", status, summary, fix="\n".join(fixes) or None, details=details)
