"""Opening the user's editor ($VISUAL, $EDITOR, else vi or notepad) on a file or a text."""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
import tempfile
from pathlib import Path

from recall.errors import RecallError, UsageError


def editor_command() -> list[str]:
    value = os.environ.get("VISUAL") or os.environ.get("EDITOR")
    if not value:
        return ["notepad"] if sys.platform == "win32" else ["vi"]
    try:
        words = shlex.split(value, posix=sys.platform != "win32")
    except ValueError as exc:
        raise UsageError(f"cannot read $EDITOR {value!r}: {exc}") from None
    return words or ["vi"]


def has_terminal() -> bool:
    """Whether stdin is a terminal an editor can read keys from."""
    return sys.stdin is not None and sys.stdin.isatty()


def edit_file(path: Path) -> None:
    """Run the editor on `path` and wait for it; RecallError if it fails, UsageError
    without a terminal (an editor started on a pipe hangs or garbles it)."""
    if not has_terminal():
        raise UsageError("no terminal to run the editor in (stdin is not a terminal)")
    command = [*editor_command(), str(path)]
    try:
        done = subprocess.run(command, check=False)
    except OSError as exc:
        raise RecallError(f"cannot start the editor {command[0]!r}: {exc}; set $EDITOR") from None
    if done.returncode != 0:
        raise RecallError(f"the editor exited with status {done.returncode}; nothing was saved")


def edit_text(text: str, suffix: str = ".md") -> str:
    """`text` as the user left it after editing it in a temporary file."""
    fd, name = tempfile.mkstemp(prefix="recall-", suffix=suffix)
    path = Path(name)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
        edit_file(path)
        return path.read_text(encoding="utf-8", errors="replace")
    finally:
        path.unlink(missing_ok=True)
