"""`recall doctor`: a list of independent checks, each saying what is wrong and how to fix it.

A check is a function from `Context` to `Check`. Adding one means writing
the function and listing it in `checks()`; the CLI, the JSON output and the
exit status follow.
"""

from __future__ import annotations

from recall.doctor.findings import FAIL, OK, SKIP, WARN, Check, CheckFn, Context
from recall.doctor.hook_checks import check_hooks, check_mcp
from recall.doctor.memory_checks import check_memory_files
from recall.doctor.peer_checks import check_peers
from recall.doctor.setup_checks import check_config, check_data_dir
from recall.doctor.store_checks import (
    check_database,
    check_indexes,
    check_lock,
    check_log,
    check_model,
    check_sqlite,
)

__all__ = ["FAIL", "OK", "SKIP", "WARN", "Check", "CheckFn", "Context", "checks", "repair", "run"]


def checks() -> list[CheckFn]:
    """Every check, in the order they are shown."""
    return [
        check_config,
        check_data_dir,
        check_sqlite,
        check_database,
        check_indexes,
        check_lock,
        check_hooks,
        check_mcp,
        check_model,
        check_memory_files,
        check_peers,
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
