"""Rewriting the `[serve]` and `[[peers]]` tables of config.toml, and nothing else.

The standard library reads TOML but cannot write it, and the user's file is
theirs: recall removes only its own tables, appends them freshly rendered,
and checks by parsing both versions that every other setting is unchanged
before it replaces the file (atomically, keeping its permissions).
"""

from __future__ import annotations

import json
import os
import re
import tempfile
from pathlib import Path
from typing import Any

from recall import config
from recall.errors import ConfigError
from recall.record import to_builtins

MANAGED = ("serve", "peers")
_HEADER = re.compile(r"^\s*\[\[?\s*([A-Za-z0-9_.\"' -]+?)\s*\]\]?\s*(#.*)?$")


def _toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, str):  # JSON's escapes are TOML's, once DEL is escaped too
        return json.dumps(value, ensure_ascii=False).replace("\x7f", "\\u007f")
    if isinstance(value, list):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    raise ConfigError(f"internal: cannot write {type(value).__name__} to config.toml")


def _table(header: str, values: dict[str, Any]) -> str:
    lines = [header]
    lines += [f"{k} = {_toml_value(v)}" for k, v in values.items() if v is not None]
    return "\n".join(lines) + "\n"


def _managed_name(line: str) -> bool | None:
    """For a table header line: whether it opens one of recall's tables; else None."""
    m = _HEADER.match(line)
    if not m:
        return None
    name = m.group(1).strip().strip("\"'")
    return name in MANAGED or name.startswith(tuple(f"{t}." for t in MANAGED))


def _parse(text: str, path: Path) -> dict[str, Any]:
    import tomllib

    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"cannot read config {path}: {exc}") from exc


def write_managed(serve: config.ServeConfig, peers: list[config.PeerConfig]) -> Path:
    """Replace config.toml's `[serve]` and `[[peers]]` tables with these; returns the path."""
    path = config.config_path()
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        text = ""
    before = _parse(text, path)
    kept, skipping = [], False
    for line in text.splitlines(keepends=True):
        opens = _managed_name(line)
        if opens is not None:
            skipping = opens
        if not skipping:
            kept.append(line)
    serve_values = {
        k: v for k, v in to_builtins(serve).items() if v != to_builtins(config.ServeConfig()).get(k)
    }
    blocks = []
    if serve_values:
        blocks.append(_table("[serve]", serve_values))
    blocks += [_table("[[peers]]", to_builtins(p)) for p in peers]
    body = "".join(kept).rstrip("\n")
    new = (body + "\n\n" if body else "") + "\n".join(blocks)
    after = _parse(new, path)
    others = [k for k in set(before) | set(after) if k not in MANAGED]
    if any(before.get(k) != after.get(k) for k in others):
        raise ConfigError(
            f"cannot safely rewrite {path}: edit its [serve] and [[peers]] tables by hand"
        )
    path.parent.mkdir(parents=True, exist_ok=True)
    mode = path.stat().st_mode & 0o777 if path.exists() else 0o600
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".config-", suffix=".toml")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(new)
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    config.forget_loaded()
    return path
