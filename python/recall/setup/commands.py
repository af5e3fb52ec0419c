"""recall's command lines as hooks and MCP entries run them, and telling ours apart.

Agents run hooks with their own PATH, which may not hold the folder recall
was installed to (pipx, a venv): setup writes the absolute path of the
`recall` being run, and falls back to `python -m recall` with this
interpreter's absolute path.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import sys
from pathlib import Path

_OURS = re.compile(
    r"(?:^|[\\/\s\"'])recall(?:\.exe)?[\"']?\s+(ingest|context|mcp)\b|-m\s+recall\s+(ingest|context|mcp)\b"
)


def executable() -> list[str]:
    """The running recall, as an absolute command: its console script when that is
    what runs, else the `recall` on PATH, else this Python with `-m recall`."""
    argv0 = Path(sys.argv[0]) if sys.argv and sys.argv[0] else None
    if argv0 is not None and argv0.stem == "recall" and argv0.is_file():
        return [os.path.abspath(argv0)]
    found = shutil.which("recall")
    if found:
        return [os.path.abspath(found)]
    return [os.path.abspath(sys.executable), "-m", "recall"]


def command_line(program: list[str], *args: str) -> str:
    """A shell command line for a hook (agents run hook commands through a shell)."""
    return shlex.join([*program, *args])


def action_of(command: object) -> str | None:
    """'ingest', 'context' or 'mcp' when `command` (a string or argv list) runs recall."""
    if isinstance(command, list):
        command = " ".join(str(x) for x in command)
    if not isinstance(command, str):
        return None
    found = _OURS.search(command)
    return (found.group(1) or found.group(2)) if found else None


def _words(command: object) -> list[str] | None:
    if isinstance(command, list) and all(isinstance(w, str) for w in command):
        return list(command)
    if not isinstance(command, str):
        return None
    try:
        return shlex.split(command)
    except ValueError:
        return None


def _is_recall(program: list[str]) -> bool:
    """Whether `program` is a way setup writes recall: one path whose last part is
    `recall` (`recall.exe`), or an interpreter's path with `-m recall`."""
    if len(program) == 1:  # the stem, as `executable` takes it: recall, recall.exe
        return re.split(r"[\\/]", program[0])[-1].lower().split(".")[0] == "recall"
    return len(program) == 3 and program[1:] == ["-m", "recall"]


def written_by_recall(command: object, args: tuple[str, ...]) -> bool:
    """Whether `command` is exactly what setup writes for `args`, whatever recall's path
    was then: setup changes and removes only such entries. A user's own line that runs
    recall (`RECALL_HOME=… recall ingest …`, a redirect, a wrapper) is not one."""
    words = _words(command)
    if not words or len(words) <= len(args) or tuple(words[-len(args) :]) != args:
        return False
    return _is_recall(words[: -len(args)])


def runs(command: object, args: tuple[str, ...]) -> bool:
    """Whether `command` runs `recall ARGS…` in any form (a user's own line included):
    then it does the job of recall's entry, and setup adds no second one."""
    action = action_of(command)
    words = _words(command)
    if action is None or not words or action not in words:
        return False
    start = words.index(action)
    return tuple(words[start : start + len(args)]) == args


_ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=")


def program_of(command: str | list[str]) -> str | None:
    """The program a command runs (its first word after any `NAME=value` the shell sets
    for it), or None when it cannot be split."""
    try:
        words = shlex.split(command) if isinstance(command, str) else list(command)
    except ValueError:
        return None
    if isinstance(command, str):
        while words and _ASSIGNMENT.match(words[0]):
            words = words[1:]
    return words[0] if words else None


def runnable(program: str) -> bool:
    """Whether `program` names an executable file (absolute, or found on PATH)."""
    if os.path.isabs(program):
        return os.path.isfile(program) and os.access(program, os.X_OK)
    return shutil.which(program) is not None
