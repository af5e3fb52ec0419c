"""`recall redact`: show what the rules remove from a text, or re-apply them to the index.

`recall redact [FILE ...]` prints each file (or stdin) with its secrets
replaced, as the index would store it. `recall redact --rescan` applies the
current rules and privacy settings to everything already indexed and leaves no
copy of a removed secret in the database file (docs/privacy.md).
"""

from __future__ import annotations

import argparse
import sys
from typing import Any


def add_parser(subs: Any) -> None:
    p = subs.add_parser("redact", help="redact secrets from text, or re-apply the rules (--rescan)")
    p.add_argument("files", nargs="*", metavar="FILE", help="text to redact ('-' or none: stdin)")
    p.add_argument(
        "--rescan",
        action="store_true",
        help="apply the current rules and privacy settings to the whole index",
    )
    p.add_argument("--json", action="store_true", help="with --rescan: machine-readable report")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from recall.errors import UsageError

    if args.rescan:
        if args.files:
            raise UsageError("--rescan works on the index; it takes no FILE")
        return _rescan(args)
    if args.json:
        raise UsageError("--json goes with --rescan")
    return _filter(args.files or ["-"])


def _filter(files: list[str]) -> int:
    from recall.errors import NotFoundError
    from recall.privacy.redaction import current

    redactor = current()
    for name in files:
        if name == "-":
            data = sys.stdin.buffer.read()
        else:
            try:
                with open(name, "rb") as fh:
                    data = fh.read()
            except OSError as exc:
                raise NotFoundError(f"cannot read {name}: {exc.strerror or exc}") from None
        text = data.decode("utf-8", errors="replace")
        sys.stdout.write(redactor.redact(text))
    sys.stdout.flush()
    return 0


def _rescan(args: argparse.Namespace) -> int:
    from recall.cli.render import print_json
    from recall.memory.digest_forget import describe, purge
    from recall.memory.files import sync_files
    from recall.privacy.forget import compact
    from recall.privacy.redaction import current
    from recall.privacy.rescan import rescan
    from recall.store import open_writer

    redactor = current()
    with open_writer() as store:
        # notes from their files: a token their old chunking cut in two is whole only there
        report = rescan(store, redactor, lambda: sync_files(store, embed=False, force=True).changed)
        taken = purge(store)  # digests of sessions the marker or a tombstone removed
        if taken.digests:
            report.wal_emptied = compact(store)
    if not report.wal_emptied:
        sys.stderr.write(
            "recall: warning: another process is reading the index, so its WAL could not be"
            " emptied yet; run `recall redact --rescan` again when it is done\n"
        )
    if args.json:
        print_json(report)
        return 0
    print(
        f"rescanned {report.messages_scanned} messages: {report.messages_changed} redacted, "
        f"{report.sessions_changed} sessions' titles or metadata redacted, "
        f"{report.sessions_removed} sessions removed by privacy settings, "
        f"{report.notes_reindexed} note files re-indexed; FTS rebuilt and database compacted"
        + (f"; {report.log_lines_changed} log lines redacted" if report.log_lines_changed else "")
    )
    for line in describe(taken, source="forgotten sessions"):
        print(line)
    return 0
