"""Every string the shared transcript fixtures hold: the widest real text both cores must agree on."""

from __future__ import annotations

import json
from pathlib import Path


def fixture_strings(root: Path, errors: str = "replace") -> list[str]:
    """Every JSON string in every fixture under `root`, whole documents and JSONL lines alike.

    A line that is not JSON (a broken fixture line) counts as text itself.
    `errors` is how undecodable bytes are read ("surrogateescape" keeps them
    as lone surrogates, which the cores must also handle).
    """
    out: list[str] = []

    def walk(value: object) -> None:
        if isinstance(value, str):
            out.append(value)
        elif isinstance(value, dict):
            for v in value.values():
                walk(v)
        elif isinstance(value, list):
            for v in value:
                walk(v)

    for path in sorted(root.rglob("*.json*")):
        raw = path.read_text(encoding="utf-8", errors=errors)
        try:
            walk(json.loads(raw))
        except ValueError:
            for line in raw.splitlines():
                try:
                    walk(json.loads(line))
                except ValueError:
                    out.append(line)
    return out
