"""`recall digest [--date D]`: summarise a day's conversations with the user's summariser.

Writes `daily/D.md`, queues the long-term facts it proposes for `recall
memory review` (or, with `[digest] facts = "memory"`, writes them into
MEMORY.md as notes), and moves each session's watermark so nothing is
summarised twice (docs/memory.md). With no `[digest] command` configured it says so and
does nothing.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

NO_SUMMARISER = (
    "no summariser is configured, so nothing was digested: set one in config.toml, e.g.\n"
    '  [digest]\n  command = "claude -p"\n'
)


def add_parser(subs: Any) -> None:
    p = subs.add_parser("digest", help="summarise a day's conversations into daily/DATE.md")
    p.add_argument("--date", metavar="D", default="today", help="YYYY-MM-DD, today or yesterday")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.set_defaults(run=run)


def day_of(value: str) -> str:
    """`value` as a local calendar day, YYYY-MM-DD."""
    from datetime import date, datetime, timedelta

    from recall.errors import UsageError

    text = value.strip().lower()
    today = datetime.now().astimezone().date()
    if text in ("today", "yesterday"):
        return str(today - timedelta(days=1 if text == "yesterday" else 0))
    try:
        return str(date.fromisoformat(text))
    except ValueError:
        raise UsageError(f"--date must be YYYY-MM-DD, today or yesterday, not {value!r}") from None


def _index(store: Any, names: list[str]) -> list[str]:
    """Index the files a digest wrote; what could not be indexed, and why."""
    from recall.memory.files import Source, daily_dir, index_file, memory_file

    problems = []
    for name in names:
        if name == str(memory_file()):
            source = Source(memory_file(), "memory_md")
        else:
            stem = name.rsplit("/", 1)[-1].removesuffix(".md")
            source = Source(daily_dir() / f"{stem}.md", "daily_log", day=stem)
        try:
            index_file(store, source)
        except OSError as exc:
            problems.append(f"{source.path} was written but not indexed: {exc}")
    return problems


def run(args: argparse.Namespace) -> int:
    from recall.cli.render import print_json
    from recall.config import load_config
    from recall.memory.daily import digest
    from recall.memory.digest_forget import purge
    from recall.memory.files import daily_dir
    from recall.memory.vectors import embed_quietly
    from recall.privacy.forget import compact
    from recall.store import open_writer

    day = day_of(args.date)
    config = load_config().digest
    if not config.command:
        sys.stderr.write(f"recall: {NO_SUMMARISER}")
        return 0
    with open_writer() as store:
        if purge(store).digests:  # sessions forgotten by a hook's ignore marker meanwhile
            compact(store)
        out = digest(store, day, config)
        problems = _index(store, out.files)
        embed_quietly(store)
    for problem in out.warnings + problems:
        sys.stderr.write(f"recall: warning: {problem}\n")
    if args.json:
        print_json(out)
        return 0
    if out.recovered:
        print(f"finished {out.recovered} digest(s) an earlier run left half done")
    if not out.messages:
        print(f"nothing new to digest for {day}")
    else:
        print(
            f"digested {out.messages} messages of {out.sessions} sessions into "
            f"{daily_dir() / (day + '.md')}"
            + (f"; {out.left} more wait for the next run (token budget)" if out.left else "")
        )
    if out.proposed:
        print(f"{out.proposed} proposed fact(s) wait for you: recall memory review")
    return 0
