"""What a doctor check reports (`Check`) and what it is given (`Context`)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from recall.record import Record, field

OK, WARN, FAIL, SKIP = "ok", "warn", "fail", "skip"


class Check(Record):
    name: str
    status: str
    """ok, warn (worth knowing, recall still works), fail (something is broken) or skip."""
    summary: str
    fix: str | None = None
    """What the user should do, when there is something to do."""
    details: list[str] = field(default_factory=list)
    repairable: bool = False
    """`recall doctor --fix` can repair this on its own."""


class Context(Record):
    db: Path
    home: Path
    """The user's home directory, where the agents keep their settings."""
    memo: dict[str, Any] = field(default_factory=dict)
    """Results several checks share (the integrity check is read once)."""

    @property
    def lock(self) -> Path:
        return self.db.with_name(self.db.name + ".lock")


CheckFn = Callable[[Context], Check]
