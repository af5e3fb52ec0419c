"""The one call shape both cores share: `parse_transcript` into `recall.types.Parsed`.

`recall._accel.parse_transcript` (Rust or the twin) returns plain tuples;
this turns them into the records (`recall.types`) ingest and sync consume, so the
adapters look the same whichever core is active. `jsonl_files` is how the adapters of
these line formats find them under a root.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from recall import _accel
from recall.safeio import MAX_LINE, open_regular
from recall.types import Message, Origin, Parsed, SessionInfo, SessionPart

__all__ = ["Origin", "jsonl_files", "parse_branching", "parse_transcript"]


def parse_transcript(
    agent: str,
    data: bytes,
    base: int,
    state: dict[str, Any],
    origin: Origin,
) -> Parsed:
    """Parse `data` (the file from offset `base` on) with the active core."""
    raw_parts, offset, new_state, skipped, summaries = _accel.parse_transcript(
        agent, data, base, state if isinstance(state, dict) else {}, origin
    )
    parts = []
    for sid, name, project, title, rank, parent, started, meta, msgs, replace, rewinds in raw_parts:
        info = SessionInfo(sid, name, project, title, rank, parent, started, meta)
        messages = [Message(k, role, text, ts) for k, role, text, ts in msgs]
        parts.append(SessionPart(info, messages, replace, rewinds))
    return Parsed(
        parts=parts, offset=offset, state=new_state, skipped=dict(skipped), summaries=summaries
    )


def parse_branching(
    agent: str, path: Path, data: bytes, base: int, state: dict[str, Any], origin: Origin
) -> Parsed:
    """`parse_transcript` for a transcript written as a tree (Pi, OpenClaw, Qwen Code).

    When the active branch moved back to entries an earlier parse read (the
    core says `reread`), the file is read again from the start to where this
    parse ended, and each session it holds is replaced: the mirror is then
    what one parse of the whole file gives. A file that cannot be read again
    keeps what this parse found.
    """
    parsed = parse_transcript(agent, data, base, state, origin)
    if not parsed.state.pop("reread", False) or base == 0:
        return parsed
    end = base + parsed.offset
    try:
        with open_regular(path) as fh:
            whole = fh.read(end) if end <= MAX_LINE else b""
    except OSError:
        whole = b""
    if len(whole) < end:
        return parsed
    again = parse_transcript(agent, whole, 0, {}, origin)
    again.state.pop("reread", None)
    for part in again.parts:
        part.replace = True
    return Parsed(
        parts=again.parts,
        offset=parsed.offset,
        state=again.state,
        skipped=parsed.skipped,
        summaries=again.summaries,
    )


def jsonl_files(root: Path) -> Iterator[Path]:
    """Every `*.jsonl` name below `root`, folders in name order; an unreadable folder is
    passed over (the caller keeps only regular files)."""
    for folder, dirs, files in os.walk(root, onerror=lambda _: None):
        dirs.sort()
        for name in files:
            if name.endswith(".jsonl"):
                yield Path(folder) / name
