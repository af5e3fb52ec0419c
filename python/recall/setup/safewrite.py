"""Writing settings files and their backups without widening who can read them.

A settings file can hold a token (an MCP server's `env`), so nothing setup
writes is ever readable by more users than the file it came from: the
temporary is created 0600 (`mkstemp`, whatever the umask), gets the
original's mode only once its bytes are in, and is renamed over the file or
removed: a failed write never leaves a second copy behind, and one a killed
setup left is swept away by the next. Backups keep the owner's bits of the
original and live in folders only their owner can enter. A file its owner
made read-only is refused, never replaced behind their back, and so is one
that no longer holds the text setup read (the agent saved it meanwhile).
"""

from __future__ import annotations

import contextlib
import glob
import os
import stat
import tempfile
import time
from pathlib import Path

from recall.setup.jsonfile import SettingsError
from recall.setup.where import shown

NEW_FILE_MODE = 0o600
"""A settings file recall creates: the agent runs as its owner, no one else needs it."""


def private_dir(path: Path) -> None:
    """Create `path` (and its parents) and make it 0700; a folder an older recall left
    open is closed, with everything in it losing every bit but its owner's."""
    path.mkdir(parents=True, exist_ok=True)
    mode = stat.S_IMODE(path.stat().st_mode)
    if mode == 0o700:
        return
    os.chmod(path, 0o700)
    if not mode & 0o077:
        return
    for root, dirs, names in os.walk(path):
        for name in dirs + names:
            child = os.path.join(root, name)
            with contextlib.suppress(OSError):
                child_mode = stat.S_IMODE(os.lstat(child).st_mode)
                if not os.path.islink(child) and child_mode & 0o077:
                    os.chmod(child, child_mode & 0o700)


def check_writable(path: Path) -> None:
    """SettingsError when `path` exists but may not be changed: its owner took the write
    bits away (root ignores them, so the bits are read, not just `access`), or the
    system refuses (immutable, another user's)."""
    try:
        mode = stat.S_IMODE(path.stat().st_mode)
    except FileNotFoundError:
        return
    except OSError as exc:
        raise SettingsError(f"cannot read {shown(path)}: {exc.strerror}; left untouched") from None
    if not mode & 0o222:
        raise SettingsError(
            f"{shown(path)} is read-only (mode {mode:04o}); left untouched: "
            f"`chmod u+w {shown(path)}` to let recall change it"
        )
    if not os.access(path, os.W_OK):
        raise SettingsError(
            f"{shown(path)} is not writable by this user (immutable, or another user's); "
            "left untouched"
        )


UNCHECKED = object()
"""`write`'s `expected` when whatever the file holds may be replaced (recall's own files)."""


def changed_meanwhile(path: Path) -> SettingsError:
    return SettingsError(
        f"{shown(path)} changed while recall was changing it (the agent or you saved it);"
        " left as it is now: run this again"
    )


def unchanged(path: Path, expected: object) -> None:
    """SettingsError unless `path` still holds `expected` (its text, None: no file), or
    `expected` is UNCHECKED: setup writes only over the text it read."""
    from recall.setup.jsonfile import read_text

    if expected is not UNCHECKED and read_text(path) != expected:
        raise changed_meanwhile(path)


def write(path: Path, text: str, mode: int | None = None, expected: object = UNCHECKED) -> None:
    """Write `text` atomically: through a symlink to its target (dotfiles stay links),
    keeping the file's mode and owner, or `mode` (default 0600) for a new file.
    With `expected` (the text setup read, None for no file), a file that no longer holds
    it is left as it is (SettingsError): it is compared again just before the rename.
    OSError when it cannot be done; the file is then as it was and no temporary is left."""
    path = Path(os.path.realpath(path))
    try:
        old = path.stat()
    except FileNotFoundError:
        old = None
    final = stat.S_IMODE(old.st_mode) if old is not None else NEW_FILE_MODE
    if mode is not None:
        final = mode
    data = text.encode("utf-8")
    _sweep(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.recall-", dir=path.parent)
    try:
        with open(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
            if old is not None and hasattr(os, "fchown"):
                with contextlib.suppress(OSError):  # only root may give a file away
                    os.fchown(fh.fileno(), old.st_uid, old.st_gid)
        os.chmod(tmp, final)
        unchanged(path, expected)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


STALE_S = 60.0


def _sweep(path: Path) -> None:
    """Remove temporaries of `path` that a killed setup left (each a copy of the whole
    settings): older than a minute, so never one a running setup is writing."""
    with contextlib.suppress(OSError):
        for old in path.parent.glob(f".{glob.escape(path.name)}.recall-*"):
            with contextlib.suppress(OSError):
                if old.is_file() and time.time() - old.lstat().st_mtime > STALE_S:
                    old.unlink()


def backup_mode(path: Path) -> int:
    """The mode of `path`'s backup: the owner's bits of the original, never more."""
    try:
        return stat.S_IMODE(path.stat().st_mode) & 0o600
    except OSError:
        return 0o600
