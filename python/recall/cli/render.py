"""Terminal rendering shared by the subcommands: highlights, dates, JSON."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from typing import Any

BOLD, RESET = "\x1b[1m", "\x1b[0m"


def use_color() -> bool:
    import os

    return sys.stdout.isatty() and "NO_COLOR" not in os.environ


def highlight(snippet: str, color: bool) -> str:
    from recall.search.results import HL_END, HL_START

    start, end = (BOLD, RESET) if color else ("**", "**")
    return " ".join(snippet.replace(HL_START, start).replace(HL_END, end).split())


def progress(label: str) -> Callable[[int, int], None]:
    """A progress callback that rewrites one stderr line: `label done/total`."""

    def show(done: int, total: int) -> None:
        sys.stderr.write(f"\r{label} {done}/{total}")
        if done >= total:
            sys.stderr.write("\n")
        sys.stderr.flush()

    return show


def to_json(obj: Any) -> str:
    """Compact JSON text of `obj` (records become objects), non-ASCII kept as is."""
    from recall.record import to_builtins

    return json.dumps(to_builtins(obj), ensure_ascii=False, separators=(",", ":"), allow_nan=False)


def print_json(obj: Any) -> None:
    sys.stdout.write(to_json(obj) + "\n")


def day(iso: str | None) -> str:
    return iso[:16].replace("T", " ") if iso else "—"
