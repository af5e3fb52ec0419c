"""Telling the person installing what the build is doing: pip captures a backend's output."""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from typing import TextIO


def _terminal() -> TextIO | None:
    """The controlling terminal, if there is one (pip keeps stdout and stderr)."""
    with suppress(OSError):
        return open("/dev/tty", "w", encoding="utf-8")
    return None


def announce(line: str) -> None:
    """Say `line` on the terminal when there is one, and in pip's log either way."""
    sys.stderr.write(f"recall: {line}\n")
    tty = _terminal()
    if tty is not None:
        with tty:
            tty.write(f"recall: {line}\n")


@contextmanager
def ticking(what: str, every: float = 15.0) -> Iterator[None]:
    """While the block runs, say every `every` seconds how long `what` has taken."""
    done = threading.Event()
    start = time.monotonic()

    def tick() -> None:
        while not done.wait(every):
            announce(f"{what}: {time.monotonic() - start:.0f} s so far")

    thread = threading.Thread(target=tick, daemon=True)
    thread.start()
    try:
        yield
    finally:
        done.set()
        thread.join()
        announce(f"{what}: done in {time.monotonic() - start:.0f} s")
