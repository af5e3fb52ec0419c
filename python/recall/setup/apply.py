"""Installing, uninstalling and reporting recall's entries, file by file.

Every change is shown as a unified diff, written atomically (`safewrite`),
and preceded by a private backup of the file as it was (`state`).
The first backup of a file is its state before recall ever touched it:
uninstall writes those very bytes back when, recall's entries aside, the
file still says what it said then, and otherwise removes recall's entries
alone. A file that cannot be read, or be written (read-only, immutable, in a
folder that refuses), is reported in one line and left untouched; the
others are still done.
"""

from __future__ import annotations

import difflib
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from recall.record import Record, field, replace
from recall.setup import (
    entries,
    goose,
    jsonc,
    jsonfile,
    opencode,
    safewrite,
    state,
    tomlfile,
    where,
)
from recall.setup.jsonfile import SettingsError
from recall.setup.where import shown


class Edit(Record):
    """One settings file, as it is and as it would be."""

    agent: str
    path: Path
    before: str | None
    after: str | None
    """None: the file does not exist (or is to be removed)."""
    note: str = ""

    @property
    def changed(self) -> bool:
        return self.before != self.after

    def diff(self) -> str:
        old = (self.before or "").splitlines(keepends=True)
        new = (self.after or "").splitlines(keepends=True)
        name = shown(self.path)
        lines = difflib.unified_diff(old, new, name + " (before)", name + " (after)")
        return "".join(
            x if x.endswith("\n") else x + "\n\\ No newline at end of file\n" for x in lines
        )


class Outcome(Record):
    edits: list[Edit] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    """Files left untouched, and why."""
    notes: list[str] = field(default_factory=list)
    """What was left as it is on purpose (a user's own hook that runs recall)."""


JsonEditor = Callable[[dict[str, Any], str], None]


class Target(Record):
    """One settings file of an agent, and what of recall's it holds."""

    path: Path
    hooks: bool
    mcp: bool
    kind: str = "json"
    """json, toml (Codex's config.toml), jsonc (OpenCode's config, edited as text) or yaml
    (Goose's config.yaml, edited as text)."""


def targets(agent: str, home: Path) -> list[Target]:
    """The files that hold `agent`'s hooks and its MCP servers (docs/agents.md)."""
    if agent == "claude":
        return [
            Target(where.claude_dir(home) / "settings.json", hooks=True, mcp=False),
            Target(where.claude_json(home), hooks=False, mcp=True),
        ]
    if agent == "codex":
        base = where.codex_dir(home)
        return [
            Target(base / "hooks.json", hooks=True, mcp=False),
            Target(base / "config.toml", hooks=False, mcp=True, kind="toml"),
        ]
    if agent == "gemini":
        return [Target(where.gemini_dir(home) / "settings.json", hooks=True, mcp=True)]
    if agent == "cursor":
        base = where.cursor_dir(home)
        return [
            Target(base / "hooks.json", hooks=True, mcp=False),
            Target(base / "mcp.json", hooks=False, mcp=True),
        ]
    if agent == "opencode":
        return [Target(where.opencode_file(home), hooks=False, mcp=True, kind="jsonc")]
    if agent == "copilot":
        base = where.copilot_dir(home)
        return [
            Target(base / "hooks" / "recall.json", hooks=True, mcp=False),
            Target(base / "mcp-config.json", hooks=False, mcp=True),
        ]
    if agent == "qwen":
        return [Target(where.qwen_dir(home) / "settings.json", hooks=True, mcp=True)]
    if agent == "crush":
        return [Target(where.crush_dir(home) / "crush.json", hooks=False, mcp=True)]
    if agent == "continue":
        return [Target(where.continue_dir(home) / "mcpServers" / "recall.json", False, True)]
    if agent == "goose":
        return [Target(where.goose_dir(home) / "config.yaml", False, True, kind="yaml")]
    return [Target(p, hooks=False, mcp=True) for p in where.extension_settings(agent, home)]


def _json_edit(
    agent: str, path: Path, editor: JsonEditor, original: str | None = None, scaffold: Any = None
) -> Edit:
    before = jsonfile.read_text(path)
    data = jsonfile.parse(path, before)
    old = json.loads(json.dumps(data))
    editor(data, shown(path))
    if data == old:
        return Edit(agent, path, before, before)
    after = jsonfile.dump(data, jsonfile.style_of(before))
    restored = _restore(path, data, original, jsonfile.parse, scaffold)
    if restored is not None:
        return Edit(agent, path, before, restored[0], restored[1])
    note = "" if jsonfile.keeps_layout(before) else "its layout could not be kept exactly"
    return Edit(agent, path, before, after if data or before is not None else None, note)


def _opencode_edit(
    agent: str, path: Path, program: list[str] | None, original: str | None = None
) -> Edit:
    """OpenCode's config, JSON or JSONC: recall's member added or cut out as text."""
    before = jsonfile.read_text(path)
    if program is not None:
        return Edit(agent, path, before, opencode.installed_text(path, before, program))
    after, data = opencode.uninstalled_text(path, before)
    if after == before:
        return Edit(agent, path, before, before)

    def said(where: Path, text: str | None) -> dict[str, Any]:  # comments are said too
        return {"data": jsonc.parse(where, text), "notes": jsonc.comments(text)}

    said_now = {"data": data, "notes": jsonc.comments(after)}
    restored = _restore(path, said_now if data else data, original, said)
    if restored is not None:
        return Edit(agent, path, before, restored[0], restored[1])
    return Edit(agent, path, before, after)


Parser = Callable[[Path, "str | None"], dict[str, Any]]


def _restore(
    path: Path, data: Any, original: str | None, parse: Parser, scaffold: Any = None
) -> tuple[str | None, str] | None:
    """The bytes to write back when uninstalling leaves `data` equal to the file before
    recall first changed it (original: the backup's path, or "" when it did not exist;
    a file recall created goes when nothing but its `scaffold` is left in it)."""
    if original is None:
        return None
    if original == "":
        empty = not data or (scaffold is not None and data == scaffold)
        return (None, "removed: recall had created it") if empty else None
    try:
        text = jsonfile.read_text(Path(original))  # as bytes: line endings and BOM kept
        if text is None:
            return None
        then = parse(path, text)
    except SettingsError:
        return None
    return (text, "restored byte for byte") if then == data else None


def _toml_edit(
    agent: str, path: Path, program: list[str] | None, original: str | None = None
) -> Edit:
    """Codex's config.toml: add (program given) or remove recall's MCP table."""
    before = jsonfile.read_text(path)
    data = tomlfile.parse(path, before)
    table = tomlfile.current(data)
    # a server with no command: what an older uninstall left of recall's ([…recall.env])
    orphan = isinstance(table, dict) and not {"command", "url"} & set(table)
    if program is not None:
        wanted = entries.mcp_entry(agent, program)
        if table is not None and not orphan and not entries.is_recall_server(table):
            raise SettingsError(
                f"{shown(path)} already has an [mcp_servers.recall] that recall did not write; "
                "left untouched: rename or remove it and run this again"
            )
        if isinstance(table, dict) and all(table.get(k) == v for k, v in wanted.items()):
            return Edit(agent, path, before, before)
        if not isinstance(data.get("mcp_servers", {}), dict):
            raise SettingsError(f"{shown(path)}: mcp_servers is not a table; left untouched")
        after = tomlfile.with_table(path, before, program)
        # never write what Codex could not read, or would not read as recall's server
        got = tomlfile.current(tomlfile.parse(path, after))
        if not isinstance(got, dict) or any(got.get(k) != v for k, v in wanted.items()):
            raise SettingsError(
                f"{shown(path)}: recall's server could not be added where Codex reads it; "
                "left untouched"
            )
        return Edit(agent, path, before, after)
    if before is None or not (orphan or entries.is_recall_server(table)):
        return Edit(agent, path, before, before)
    after = tomlfile.without_table(path, before)
    remaining = tomlfile.parse(path, after)
    restored = _restore(path, remaining, original, tomlfile.parse)
    if restored is not None:
        return Edit(agent, path, before, restored[0], restored[1])
    return Edit(agent, path, before, after)


def _yaml_edit(
    agent: str, path: Path, program: list[str] | None, original: str | None = None
) -> Edit:
    """Goose's config.yaml: recall's extension added or cut out as lines (`goose`)."""
    before = jsonfile.read_text(path)
    if program is not None:
        return Edit(agent, path, before, goose.installed_text(path, before, program))
    after = goose.uninstalled_text(path, before)
    if after == before or original is None:
        return Edit(agent, path, before, after)
    if original == "":
        if after is not None and not after.strip(BLANK):
            return Edit(agent, path, before, None, "removed: recall had created it")
        return Edit(agent, path, before, after)
    then = jsonfile.read_text(Path(original))
    if then is not None and goose.settled(path, then) == goose.settled(path, after):
        return Edit(agent, path, before, then, "restored byte for byte")
    return Edit(agent, path, before, after)


BLANK = "\ufeff \t\r\n"


def plan(agent: str, home: Path, program: list[str] | None, context: bool = False) -> Outcome:
    """The edits that install (program given) or uninstall recall for `agent`; uninstalling
    with `context` takes out the context hooks alone (indexing and MCP stay)."""
    known = state.load()
    outcome = Outcome()
    hooks = entries.wanted(agent, context)
    only_context = program is None and context

    def hooks_editor(data: dict[str, Any], name: str) -> None:
        if program is None:
            entries.remove_hooks(data, agent, only_context)
        else:
            notes = entries.add_hooks(data, agent, hooks, program, name)
            outcome.notes.extend(f"{agent}: {note}" for note in notes)

    def mcp_editor(data: dict[str, Any], name: str) -> None:
        if program is None:
            entries.remove_mcp(data, agent)
        else:
            entries.add_mcp(data, agent, program, name)

    def job_for(target: Target) -> Callable[[], Edit]:
        path = target.path
        # uninstalling may write back the file as it was before recall first changed it
        restoring = program is None and not only_context
        original = known.get(str(path), {}).get("original") if restoring else None
        if target.kind == "toml":
            return lambda: _toml_edit(agent, path, program, original)
        if target.kind == "jsonc":
            return lambda: _opencode_edit(agent, path, program, original)
        if target.kind == "yaml":
            return lambda: _yaml_edit(agent, path, program, original)
        editors = [e for e, on in ((hooks_editor, target.hooks), (mcp_editor, target.mcp)) if on]
        scaffold = entries.SCAFFOLD.get(agent) if target.hooks else None

        def both(data: dict[str, Any], name: str) -> None:
            for editor in editors:
                editor(data, name)

        return lambda: _json_edit(agent, path, both, original, scaffold)

    for target in targets(agent, home):
        if target.hooks and not target.mcp and not entries.HOOKS.get(agent):
            continue
        if only_context and not target.hooks:
            continue  # the MCP entry stays
        if only_context:
            target = replace(target, mcp=False)
        try:
            edit = job_for(target)()
            if edit.changed:
                safewrite.check_writable(target.path)
            outcome.edits.append(edit)
        except SettingsError as exc:
            outcome.problems.append(f"{agent}: {exc}")
        except RecursionError:
            outcome.problems.append(f"{agent}: {jsonfile.too_deep(target.path)}")
    return outcome


def commit(edits: list[Edit], installing: bool) -> tuple[list[str], list[str]]:
    """Write the changed files, backing each up first: a line per file written, and a line
    per file that could not be (left as it was). Run under `state.locked()`."""
    known = state.load()
    done, problems = [], []
    for edit in edits:
        if not edit.changed:
            continue
        try:
            done.append(_commit_one(edit, installing, known))
        except SettingsError as exc:
            problems.append(f"{edit.agent}: {exc}")
    try:
        state.save(known)
    except OSError as exc:
        problems.append(f"cannot save {shown(state.folder() / 'state.json')}: {exc.strerror}")
    return done, problems


def _commit_one(edit: Edit, installing: bool, known: dict[str, Any]) -> str:
    safewrite.check_writable(edit.path)
    backup = ""
    if edit.before is not None:
        try:
            backup = str(state.backup(edit.agent, edit.path, edit.before))
        except OSError as exc:
            raise SettingsError(
                f"cannot back up {shown(edit.path)} into {shown(state.folder())}: "
                f"{exc.strerror}; left untouched"
            ) from None
    try:
        if edit.after is None:
            safewrite.unchanged(edit.path, edit.before)
            edit.path.unlink(missing_ok=True)
        else:
            edit.path.parent.mkdir(parents=True, exist_ok=True)
            safewrite.write(edit.path, edit.after, expected=edit.before)
    except OSError as exc:
        raise SettingsError(
            f"cannot write {shown(edit.path)}: {exc.strerror}; left untouched"
        ) from None
    key = str(edit.path)
    if installing:
        known.setdefault(key, {}).setdefault("original", backup)  # "": recall created it
    else:
        known.pop(key, None)  # the next install starts from the file as it then is
    line = f"wrote {shown(edit.path)}" if edit.after is not None else f"removed {shown(edit.path)}"
    extra = [x for x in (edit.note, f"backup: {shown(backup)}" if backup else "") if x]
    return line + (f" ({'; '.join(extra)})" if extra else "")
