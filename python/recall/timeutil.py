"""Time parsing and formatting: transcripts carry ISO strings, the store epoch seconds."""

from __future__ import annotations

import re
import time
from datetime import UTC, datetime, timedelta

from recall.errors import UsageError

_RELATIVE = re.compile(r"^\s*(\d+)\s*(s|m|min|h|d|w|y)\s*$", re.IGNORECASE)
_UNIT_SECONDS = {"s": 1, "m": 60, "min": 60, "h": 3600, "d": 86400, "w": 604800, "y": 31536000}


def parse_iso(value: object) -> float | None:
    """Epoch seconds of an ISO-8601 string (or epoch number), None if unreadable.

    Times without an offset are taken as UTC, the convention of every agent's
    transcripts.
    """
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        seconds = float(value) / 1000 if value > 1e11 else float(value)
        return seconds if 0 < seconds < 4e10 else None
    if not isinstance(value, str) or not value:
        return None
    try:
        dt = datetime.fromisoformat(value.strip())
    except ValueError:
        return None
    if dt.tzinfo is None:
        dt = dt.replace(tzinfo=UTC)
    return dt.timestamp()


def format_ts(epoch: float | None) -> str | None:
    """ISO-8601 in UTC with an explicit offset, as the JSON contract requires."""
    if epoch is None:
        return None
    return datetime.fromtimestamp(epoch, UTC).isoformat(timespec="seconds")


def parse_when(value: str, now: float | None = None) -> float:
    """A `--since`/`--until` value: `7d`, `12h`, `2w`, `today`, `yesterday`, or a date/ISO time."""
    now = time.time() if now is None else now
    text = value.strip().lower()
    rel = _RELATIVE.match(text)
    if rel:
        return max(0.0, now - int(rel.group(1)) * _UNIT_SECONDS[rel.group(2).lower()])
    if text in ("today", "yesterday"):
        local = datetime.fromtimestamp(now).astimezone()
        midnight = local.replace(hour=0, minute=0, second=0, microsecond=0)
        if text == "yesterday":
            midnight -= timedelta(days=1)
        return midnight.timestamp()
    try:
        dt = datetime.fromisoformat(value.strip())
    except ValueError:
        raise UsageError(
            f"cannot read the time {value!r}: use e.g. 7d, 12h, 2w, today, 2026-01-31"
        ) from None
    try:
        if dt.tzinfo is None:
            dt = dt.astimezone()  # a bare date means the user's local calendar day
        return dt.timestamp()
    except (ValueError, OverflowError, OSError):  # year 1 in a zone ahead of UTC, say
        raise UsageError(f"the time {value!r} is out of range here: use a later date") from None
