"""`recall doctor`: check the index, SQLite, the write lock and the hooks; say how to fix each.

Exit status 0 when nothing failed (warnings included), 1 when a check failed.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

_MARK = {"ok": "ok  ", "warn": "WARN", "fail": "FAIL", "skip": "--  "}


def add_parser(subs: Any) -> None:
    p = subs.add_parser(
        "doctor", help="check the index, SQLite, the write lock and the hooks; say how to fix"
    )
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.add_argument(
        "--fix",
        action="store_true",
        help="repair what can be repaired safely (rebuild full-text indexes, migrate)",
    )
    p.add_argument(
        "--salvage",
        action="store_true",
        help="copy every readable row of a damaged index into a new one (keeps the old file)",
    )
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from recall import config, doctor
    from recall.cli.render import print_json

    ctx = doctor.Context(db=config.db_path(), home=Path.home())
    if args.salvage:
        return _salvage(ctx.db)
    found = doctor.run(ctx)
    repaired: list[str] = []
    if args.fix:
        repaired = doctor.repair(ctx, found)
        if repaired:
            ctx = doctor.Context(db=ctx.db, home=ctx.home)
            found = doctor.run(ctx)
    failed = any(c.status == doctor.FAIL for c in found)
    if args.json:
        print_json({"ok": not failed, "repaired": repaired, "checks": found})
        return 1 if failed else 0
    for line in repaired:
        print(f"fixed {line}")
    width = max(len(c.name) for c in found)
    for c in found:
        print(f"{_MARK.get(c.status, c.status)}  {c.name:<{width}}  {c.summary}")
        if c.status in (doctor.WARN, doctor.FAIL):
            for detail in (d for d in c.details if d not in c.summary):
                print(f"{'':{width + 8}}{detail}")
            for fix in (c.fix or "").splitlines():
                print(f"{'':{width + 8}}fix: {fix}")
    failures = sum(c.status == doctor.FAIL for c in found)
    warnings = sum(c.status == doctor.WARN for c in found)
    if failures:
        print(f"{failures} check(s) failed")
    elif warnings:
        print(f"no check failed; {warnings} warning(s)")
    else:
        print("all checks passed")
    return 1 if failed else 0


def _salvage(db: Path) -> int:
    from recall.errors import NotFoundError
    from recall.store.locking import write_lock
    from recall.store.salvage import salvage

    if not db.exists():
        raise NotFoundError(f"no index at {db} to salvage")
    with write_lock(db.with_name(db.name + ".lock")):
        report = salvage(db)
    copied = ", ".join(f"{n} {table}" for table, n in report.copied.items() if n)
    print(f"salvaged {copied or 'nothing'} into a new {db}")
    if report.lost:
        print("could not read: " + ", ".join(f"{n} {t}" for t, n in report.lost.items()))
    print(f"the damaged file is kept as {report.kept_as}")
    print("next: `recall sync` re-reads the transcripts still on disk; `recall embed` the vectors")
    return 0
