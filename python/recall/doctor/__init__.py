"""`recall doctor`: a list of independent checks, each saying what is wrong and how to fix it.

A check is a function from `Context` to `Check`. Adding one (the
peers' once they exist) means writing the function and listing
it in `CHECKS`; the CLI, the JSON output and the exit status follow.
"""

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


def checks() -> list[CheckFn]:
    """Every check, in the order they are shown."""
    from recall.doctor.hook_checks import check_hooks
    from recall.doctor.store_checks import (
        check_database,
        check_indexes,
        check_lock,
        check_log,
        check_model,
        check_sqlite,
    )

    return [
        check_sqlite,
        check_database,
        check_indexes,
        check_lock,
        check_hooks,
        check_model,
        check_log,
    ]


def run(ctx: Context) -> list[Check]:
    out = []
    for fn in checks():
        try:
            out.append(fn(ctx))
        except Exception as exc:  # a check that crashes is itself a finding
            name = fn.__name__.removeprefix("check_")
            out.append(Check(name, FAIL, f"the check itself failed: {type(exc).__name__}: {exc}"))
    return out


def repair(ctx: Context, found: list[Check]) -> list[str]:
    """Repair what `recall doctor --fix` may repair; returns what was done."""
    from recall.store.health import rebuild_fts

    done = []
    if any(c.repairable and c.name == "indexes" and c.status == FAIL for c in found):
        rebuild_fts(ctx.db)
        done.append("rebuilt the full-text indexes from the stored messages and titles")
    if any(c.repairable and c.name == "database" and c.status == WARN for c in found):
        from recall.store import open_writer

        open_writer(ctx.db).close()
        done.append("migrated the database schema")
    return done
