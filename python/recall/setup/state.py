"""What setup keeps in recall's data folder: its state, the backups, and its lock.

`setup/state.json` remembers, per settings file, the backup of the file as
it was before recall first changed it ("" when recall created it), which is
how uninstall gives the bytes back. Two setups at once (a user's and a
script's, or eight from a dotfiles bootstrap) would each read that state and
the settings files, then write over each other: every change runs under one
lock (`setup/lock`), so they take turns. The folder and the backups are
private (0700, the original's owner bits), as the files they copy can hold
tokens.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from recall.setup import safewrite
from recall.setup.jsonfile import SettingsError
from recall.setup.where import shown

LOCK_WAIT_S = 60.0


def folder() -> Path:
    from recall.config import data_dir

    return data_dir() / "setup"


def _private(path: Path) -> Path:
    try:
        safewrite.private_dir(path)
    except OSError as exc:
        raise SettingsError(
            f"cannot create recall's setup folder {shown(path)}: {exc.strerror}; nothing changed"
        ) from None
    return path


def load() -> dict[str, Any]:
    try:
        state = json.loads((folder() / "state.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return state if isinstance(state, dict) else {}


def save(state: dict[str, Any]) -> None:
    """OSError when it cannot be written (the caller reports it)."""
    text = json.dumps(state, indent=1, ensure_ascii=True) + "\n"
    safewrite.write(_private(folder()) / "state.json", text, mode=0o600)


def backup(agent: str, path: Path, text: str) -> Path:
    """Copy `text` (the file at `path` as it is) into the backups; OSError when it cannot."""
    stamp = time.strftime("%Y%m%dT%H%M%S")
    digest = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:8]
    target = _private(folder() / "backups") / f"{agent}-{path.name}-{stamp}-{digest}"
    safewrite.write(target, text, mode=safewrite.backup_mode(path))
    return target


@contextlib.contextmanager
def locked(timeout: float = LOCK_WAIT_S) -> Iterator[None]:
    """Hold setup's lock: one setup (or hooks install/uninstall) at a time."""
    from recall.errors import StoreError
    from recall.store.locking import write_lock

    lock = _private(folder()) / "lock"
    with contextlib.ExitStack() as stack:
        try:
            stack.enter_context(write_lock(lock, timeout))
        except StoreError as exc:
            held = "timed out" in str(exc)
            raise SettingsError(
                f"another recall setup held {shown(lock)} for {timeout:.0f} s; nothing changed: "
                "run this again when it is done"
                if held
                else f"{exc}; nothing changed"
            ) from None
        yield
