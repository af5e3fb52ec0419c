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

from recall.record import Record, field
from recall.setup import entries, jsonfile, safewrite, state, tomlfile, where
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


def _json_edit(agent: str, path: Path, editor: JsonEditor, original: str | None = None) -> Edit:
    before = jsonfile.read_text(path)
    data = jsonfile.parse(path, before)
    old = json.loads(json.dumps(data))
    editor(data, shown(path))
    if data == old:
        return Edit(agent, path, before, before)
    after = jsonfile.dump(data, jsonfile.style_of(before))
    restored = _restore(path, data, original, json_data=True)
    if restored is not None:
        return Edit(agent, path, before, restored[0], restored[1])
    note = "" if jsonfile.keeps_layout(before) else "its layout could not be kept exactly"
    return Edit(agent, path, before, after if data or before is not None else None, note)


def _restore(
    path: Path, data: Any, original: str | None, json_data: bool
) -> tuple[str | None, str] | None:
    """The bytes to write back when uninstalling leaves `data` equal to the file before
    recall first changed it (original: the backup's path, or "" when it did not exist)."""
    if original is None:
        return None
    if original == "":
        return (None, "removed: recall had created it") if not data else None
    try:
        text = jsonfile.read_text(Path(original))  # as bytes: line endings and BOM kept
        if text is None:
            return None
        then = jsonfile.parse(path, text) if json_data else tomlfile.parse(path, text)
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
    restored = _restore(path, remaining, original, json_data=False)
    if restored is not None:
        return Edit(agent, path, before, restored[0], restored[1])
    return Edit(agent, path, before, after)


def files(agent: str, home: Path) -> dict[str, Path]:
    """The file that holds `agent`'s hooks and the one that holds its MCP servers."""
    if agent == "claude":
        return {"hooks": where.claude_dir(home) / "settings.json", "mcp": where.claude_json(home)}
    if agent == "codex":
        base = where.codex_dir(home)
        return {"hooks": base / "hooks.json", "mcp": base / "config.toml"}
    settings = where.gemini_dir(home) / "settings.json"
    return {"hooks": settings, "mcp": settings}


def plan(agent: str, home: Path, program: list[str] | None, context: bool = False) -> Outcome:
    """The edits that install (program given) or uninstall recall for `agent`; uninstalling
    with `context` takes out the context hooks alone (indexing and MCP stay)."""
    paths = files(agent, home)
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
        if only_context:
            return
        if program is None:
            entries.remove_mcp(data)
        else:
            entries.add_mcp(data, agent, program, name)

    def both(data: dict[str, Any], name: str) -> None:
        hooks_editor(data, name)
        mcp_editor(data, name)

    jobs: list[tuple[Path, Callable[[], Edit]]] = []
    # uninstalling may write back the file as it was before recall first changed it
    original: dict[str, str | None] = {
        str(p): known.get(str(p), {}).get("original")
        if program is None and not only_context
        else None
        for p in paths.values()
    }
    if paths["hooks"] == paths["mcp"]:
        path = paths["hooks"]
        jobs.append((path, lambda: _json_edit(agent, path, both, original[str(path)])))
    else:
        hp, mp = paths["hooks"], paths["mcp"]
        jobs.append((hp, lambda: _json_edit(agent, hp, hooks_editor, original[str(hp)])))
        if only_context:
            pass  # the MCP entry stays
        elif mp.suffix == ".toml":
            jobs.append((mp, lambda: _toml_edit(agent, mp, program, original[str(mp)])))
        else:
            jobs.append((mp, lambda: _json_edit(agent, mp, mcp_editor, original[str(mp)])))
    for path, job in jobs:
        try:
            edit = job()
            if edit.changed:
                safewrite.check_writable(path)
            outcome.edits.append(edit)
        except SettingsError as exc:
            outcome.problems.append(f"{agent}: {exc}")
        except RecursionError:
            outcome.problems.append(f"{agent}: {jsonfile.too_deep(path)}")
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
