"""Rewriting the `[serve]` and `[[peers]]` tables of config.toml, and nothing else.

The standard library reads TOML but cannot write it, and the user's file is
theirs: recall edits it as text, changing only the lines of `[serve]` keys
whose value changes and adding or removing one `[[peers]]` block, so
comments and order stay. A file it cannot edit that way (dotted keys, values
over several lines) has recall's tables removed and appended freshly
rendered. Either way both versions are parsed to check that every other
setting is unchanged and recall's are as meant, before the file is replaced
(atomically, keeping its permissions).
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


def _spans(lines: list[str]) -> list[tuple[str, int, int]]:
    """(header name, first line, end) of every table; end stops before trailing blank
    and comment lines, which belong to what follows."""
    heads = []
    for i, line in enumerate(lines):
        m = _HEADER.match(line)
        if m:
            heads.append((m.group(1).strip().strip("\"'"), i, line.lstrip().startswith("[[")))
    out = []
    for n, (name, start, array) in enumerate(heads):
        end = heads[n + 1][1] if n + 1 < len(heads) else len(lines)
        while end > start + 1 and (not lines[end - 1].strip() or lines[end - 1].lstrip()[0] == "#"):
            end -= 1
        out.append((f"[[{name}]]" if array else name, start, end))
    return out


def _edited(
    text: str, serve: dict[str, Any], peers: list[dict[str, Any]], before: dict[str, Any]
) -> str | None:
    """`text` with only the lines that change edited, or None when that cannot be done."""
    lines = text.splitlines(keepends=True)
    newline = "\r\n" if "\r\n" in text else "\n"
    if lines and not lines[-1].endswith("\n"):
        lines[-1] += newline
    spans = _spans(lines)
    old_serve = before.get("serve", {})
    old_peers = _peer_values(before.get("peers", []))
    if old_peers is None:
        return None
    serve_spans = [sp for sp in spans if sp[0] == "serve"]
    peer_spans = [sp for sp in spans if sp[0] == "[[peers]]"]
    if len(peer_spans) != len(old_peers) or len(serve_spans) > 1:
        return None
    edits: list[tuple[int, int, list[str]]] = []  # (start, end, replacement lines)
    if serve != old_serve:
        if not serve_spans:
            if old_serve:
                return None  # [serve] written some other way
            block = _table("[serve]", serve).replace("\n", newline)
            edits.append((len(lines), len(lines), [newline, block] if lines else [block]))
        else:
            _, start, end = serve_spans[0]
            last = end
            for key in [*serve, *(k for k in old_serve if k not in serve)]:
                if serve.get(key) == old_serve.get(key):
                    continue
                at = [
                    i
                    for i in range(start + 1, end)
                    if re.match(rf"^\s*[\"']?{re.escape(key)}[\"']?\s*=", lines[i])
                ]
                if len(at) > 1 or (old_serve.get(key) is not None and not at):
                    return None
                new_line = [f"{key} = {_toml_value(serve[key])}{newline}"] if key in serve else []
                if at:
                    edits.append((at[0], at[0] + 1, new_line))
                else:
                    edits.append((last, last, new_line))
    if peers != old_peers:
        if peers[: len(old_peers)] == old_peers and len(peers) == len(old_peers) + 1:
            block = _table("[[peers]]", peers[-1]).replace("\n", newline)
            after_last = peer_spans[-1][2] if peer_spans else len(lines)
            edits.append((after_last, after_last, [newline, block] if lines else [block]))
        else:
            gone = [i for i in range(len(old_peers)) if old_peers[:i] + old_peers[i + 1 :] == peers]
            if len(peers) != len(old_peers) - 1 or not gone:
                return None
            _, start, end = peer_spans[gone[0]]
            while end < len(lines) and not lines[end].strip():
                end += 1  # the blank line that set the block apart
            edits.append((start, end, []))
    for start, end, new in sorted(edits, key=lambda e: e[0], reverse=True):
        lines[start:end] = new
    return "".join(lines)


def _rewritten(text: str, blocks: list[str]) -> str:
    """`text` less recall's tables, with them appended freshly rendered."""
    kept, skipping = [], False
    for line in text.splitlines(keepends=True):
        opens = _managed_name(line)
        if opens is not None:
            skipping = opens
        if not skipping:
            kept.append(line)
    body = "".join(kept).rstrip("\n")
    return (body + "\n\n" if body else "") + "\n".join(blocks)


def write_managed(serve: config.ServeConfig, peers: list[config.PeerConfig]) -> Path:
    """Replace config.toml's `[serve]` and `[[peers]]` tables with these; returns the path."""
    path = config.config_path()
    try:
        text = path.read_bytes().decode("utf-8")
    except FileNotFoundError:
        text = ""
    before = _parse(text, path)
    default = to_builtins(config.ServeConfig())
    serve_values = {k: v for k, v in to_builtins(serve).items() if v != default.get(k)}
    kept = before.get("serve", {}) if isinstance(before.get("serve"), dict) else {}
    wanted = {  # a default the user wrote out stays written
        **{k: v for k, v in kept.items() if k not in default},
        **{
            k: v
            for k, v in to_builtins(serve).items()
            if v is not None and (k in kept or k in serve_values)
        },
    }
    peer_values = [{k: v for k, v in to_builtins(p).items() if v is not None} for p in peers]
    blocks = []
    if serve_values:
        blocks.append(_table("[serve]", serve_values))
    blocks += [_table("[[peers]]", p) for p in peer_values]
    new = _edited(text, wanted, peer_values, before)
    after = _checked(new, path) if new is not None else None
    if new is None or after is None or not _same(before, after, wanted, peer_values):
        new = _rewritten(text, blocks)
        after = _checked(new, path)
    others = [k for k in set(before) | set(after or {}) if k not in MANAGED]
    if after is None or any(before.get(k) != after.get(k) for k in others):
        raise ConfigError(
            f"cannot safely rewrite {path}: edit its [serve] and [[peers]] tables by hand"
        )
    path.parent.mkdir(parents=True, exist_ok=True)
    mode = path.stat().st_mode & 0o777 if path.exists() else 0o600
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".config-", suffix=".toml")
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as fh:
            fh.write(new)
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    config.forget_loaded()
    return path


def _peer_values(raw: Any) -> list[dict[str, Any]] | None:
    """`[[peers]]` as parsed, with the defaults filled in as `PeerConfig` has them."""
    from recall.record import ConversionError, convert

    if not isinstance(raw, list):
        return None
    try:
        peers = [convert(p, config.PeerConfig) for p in raw]
    except ConversionError:
        return None
    return [{k: v for k, v in to_builtins(p).items() if v is not None} for p in peers]


def _checked(text: str, path: Path) -> dict[str, Any] | None:
    try:
        return _parse(text, path)
    except ConfigError:
        return None


def _same(
    before: dict[str, Any], after: dict[str, Any], serve: dict[str, Any], peers: list[Any]
) -> bool:
    """Whether the text edit gave exactly the meant tables and left the rest alone."""
    others = set(before) | set(after)
    return (
        after.get("serve", {}) == serve
        and _peer_values(after.get("peers", [])) == peers
        and all(before.get(k) == after.get(k) for k in others - set(MANAGED))
    )
