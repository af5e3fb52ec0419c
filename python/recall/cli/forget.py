"""`recall forget`: delete sessions for good, and keep them from coming back.

`recall forget SESSION` deletes one session (a unique id prefix, like
`show`) with its sub-agent sessions; `recall forget --project P` deletes every
session of a project (a directory or a glob; sessions in directories below it
too). Messages, FTS entries and the mirror go, the database file is compacted
so no copy remains, and a tombstone (id and agent only) keeps hooks and
`sync` from indexing the session again. Digests made from the session are
taken back too: their daily-log sections, MEMORY.md notes and queued facts
(docs/privacy.md).
"""

from __future__ import annotations

import argparse
import sys
from typing import Any


def add_parser(subs: Any) -> None:
    p = subs.add_parser("forget", help="delete sessions for good (they stay forgotten)")
    p.add_argument("session", nargs="?", help="a session id or a unique prefix of one")
    p.add_argument("--agent", metavar="A", help="the agent, when ids of two agents collide")
    p.add_argument(
        "--project", metavar="P", help="forget every session of this project (a path or a glob)"
    )
    p.add_argument(
        "--dry-run", action="store_true", help="list what would be forgotten, delete nothing"
    )
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from recall.cli.render import print_json
    from recall.errors import RecallError, UsageError
    from recall.memory.digest_forget import Taken, affected, describe, purge
    from recall.memory.files import drop_orphans
    from recall.privacy.forget import (
        Forgotten,
        compact,
        delete,
        session_ids,
        session_keys,
        targets,
    )
    from recall.record import asdict
    from recall.search.engine import known_agents
    from recall.search.request import project_arg
    from recall.store import open_writer

    args.project = project_arg(args.project)
    if bool(args.session) == bool(args.project):
        raise UsageError("give a SESSION or --project P (one of them)")
    with open_writer() as store:
        agent = known_agents(store.conn, [args.agent])[0] if args.agent else None
        rowids = targets(store.conn, args.session, agent, args.project)
        if args.dry_run:
            done = Forgotten(sessions=session_ids(store.conn, rowids), messages=0)
            taken = affected(store.conn, session_keys(store.conn, rowids))
        else:
            keys = session_keys(store.conn, rowids)
            done = delete(store, rowids)
            drop_orphans(store)  # the guidance files of a project forgotten whole
            try:
                taken = purge(store)  # the digests made from them (docs/privacy.md)
            except RecallError as exc:  # the sessions are gone; the next rescan finishes this
                taken = Taken()
                sys.stderr.write(
                    f"recall: warning: the digests made from them are not removed yet: {exc};"
                    " fix that, then run `recall redact --rescan`\n"
                )
            wal_emptied = compact(store)
            if not wal_emptied:
                sys.stderr.write(
                    "recall: warning: another process is reading the index, so its WAL could"
                    " not be emptied yet; run `recall redact --rescan` when it is done\n"
                )
    team = None if args.dry_run else _forget_in_team(keys)
    if args.json:
        print_json(
            {**asdict(done), "digests": asdict(taken), "dry_run": args.dry_run, "team": team}
        )
        return 0
    verb = "would forget" if args.dry_run else "forgot"
    print(
        f"{verb} {len(done.sessions)} sessions"
        + ("" if args.dry_run else f" ({done.messages} messages)")
    )
    for sid in done.sessions:
        print(f"  {sid}")
    for line in describe(taken, args.dry_run, "it" if len(done.sessions) == 1 else "them"):
        print(line)
    if team:
        print(f"deleted {team} of them from the team's index")
    if args.project and not args.dry_run:
        print(
            "to keep new sessions of this project out too: "
            f"[privacy] exclude_projects = [{args.project!r}]"
        )
    return 0


def _forget_in_team(keys: list[tuple[str, str]]) -> int | None:
    """Delete the forgotten sessions from the team's index now, when one is configured
    (docs/team.md); None when there is none. Whatever happens here, they are gone from the
    next push: a tombstoned session is never pushed, and a push deletes what it does not send."""
    from recall.errors import RecallError
    from recall.team.connect import configured

    if not keys or not configured():
        return None
    from recall.team.jobs import forget

    try:
        return forget([(agent, sid) for sid, agent in keys])
    except RecallError as exc:
        sys.stderr.write(
            f"recall: warning: the team's index still holds them ({exc}); the next "
            "`recall team push` deletes them\n"
        )
        return None
