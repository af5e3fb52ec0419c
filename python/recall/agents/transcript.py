"""The one call shape both cores share: `parse_transcript` into `recall.types.Parsed`.

`recall._accel.parse_transcript` (Rust or the twin) returns plain tuples;
this turns them into the records (`recall.types`) ingest and sync consume, so the
adapters look the same whichever core is active.
"""

from __future__ import annotations

from typing import Any

from recall import _accel
from recall.types import Message, Origin, Parsed, SessionInfo, SessionPart

__all__ = ["Origin", "parse_transcript"]


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
