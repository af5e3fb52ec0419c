"""Twin of `rust/src/jsonlines.rs`'s line loop (`parse_lines`): one for every line parser."""

from __future__ import annotations

from typing import Any, Protocol

from recall.jsonlines import SKIP_BAD_SHAPE, iter_json_lines
from recall.types import Parsed


class LineRun(Protocol):
    """A parser's run over one file (Rust's `LineRun`): its state, a record at a time."""

    st: dict[str, Any]

    def record(self, off: int, obj: dict[str, Any]) -> None: ...

    def finish(self) -> None: ...


def parse_lines(run: LineRun, data: bytes, base: int, parsed: Parsed) -> Parsed:
    """Every object line of `data` (the file from byte `base` on) through `run.record`, a
    record of the wrong shape counted and passed over, then `run.finish`; the state goes
    on to the next parse of the file."""
    for off, obj in iter_json_lines(data, parsed, base=base):
        try:
            run.record(off, obj)
        except (AttributeError, TypeError, ValueError, KeyError):
            parsed.skip(SKIP_BAD_SHAPE)
    run.finish()
    parsed.state = run.st
    return parsed
