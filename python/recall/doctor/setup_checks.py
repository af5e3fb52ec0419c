"""Doctor's checks of what every command needs first: a readable config, a usable data folder."""

from __future__ import annotations

import os
import tempfile

from recall.doctor.findings import FAIL, OK, Check, Context
from recall.errors import ConfigError


def check_config(ctx: Context) -> Check:
    """A config every command can load: the file, the variables, the redaction patterns."""
    from recall import config
    from recall.privacy.redaction import current

    path = config.config_path()
    try:
        config._load.cache_clear()
        config.load_config()
        config.core_wanted()
        config.embedding_provider()
        current()
    except ConfigError as exc:
        return Check(
            "config",
            FAIL,
            str(exc),
            fix=f"edit {path}: until then every command stops with this error and every hook "
            "logs it and indexes nothing (config.example.toml shows every setting)",
        )
    where = f"{path}" if path.exists() else f"no {path}: the defaults"
    return Check("config", OK, f"{where} (and RECALL_* variables) read without error")


def check_data_dir(ctx: Context) -> Check:
    """The folder holding the index: a directory this user can create files in."""
    folder = ctx.db.parent
    if folder.exists() and not folder.is_dir():
        return Check(
            "data directory",
            FAIL,
            f"{folder} is not a directory, so no index can be written",
            fix=f"move {folder} aside, or point RECALL_HOME at a directory",
        )
    probe = folder
    while not probe.exists() and probe != probe.parent:
        probe = probe.parent
    if not probe.is_dir():
        return Check(
            "data directory",
            FAIL,
            f"{folder} cannot be created: {probe} is not a directory",
            fix="point RECALL_HOME at a directory you own",
        )
    why = ""
    try:
        with tempfile.NamedTemporaryFile(dir=probe, prefix=".recall-doctor-"):
            pass
    except OSError as exc:
        why = f" ({exc.strerror})"
    if why or not os.access(probe, os.W_OK | os.X_OK):
        where = "" if probe == folder else f"{folder} cannot be created: "
        return Check(
            "data directory",
            FAIL,
            f"{where}{probe} is not writable by this user{why}, so no index can be written",
            fix=f"`chmod u+rwx {probe}`, or point RECALL_HOME at a directory you own",
        )
    state = "" if folder.exists() else " (created on the first sync)"
    return Check("data directory", OK, f"{folder} is writable{state}")
