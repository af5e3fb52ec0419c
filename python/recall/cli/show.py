"""`recall show SESSION`: one mirror, or with `--raw` the original transcript."""

from __future__ import annotations

import argparse
import sys
from typing import Any


def add_parser(subs: Any) -> None:
    p = subs.add_parser("show", help="print one session's conversation")
    p.add_argument("session", help="a session id or a unique prefix of one")
    p.add_argument("--agent", metavar="A", help="the agent, when ids of two agents collide")
    p.add_argument("--raw", action="store_true", help="print the original transcript file")
    p.add_argument("--json", action="store_true", help="machine-readable output (SPEC §9)")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from recall.cli.render import day, print_json
    from recall.errors import NotFoundError
    from recall.store import open_reader
    from recall.store.queries import load_mirror, resolve_session

    with open_reader() as store:
        mirror = load_mirror(store.conn, resolve_session(store.conn, args.session, args.agent))
    if args.raw:
        if not mirror.transcript_path:
            raise NotFoundError(f"session {mirror.session_id} was imported; it has no transcript")
        from recall.sync import find_transcript

        path = find_transcript(mirror.transcript_path) or mirror.transcript_path
        from recall.privacy.redaction import current
        from recall.safeio import NotARegularFile, lines, open_regular

        redactor = current()  # the transcript leaves recall as clean as the mirror
        try:
            with open_regular(path) as fh:
                for line in lines(fh):
                    if isinstance(line, int):
                        sys.stdout.buffer.write(
                            b"[a line of %d bytes, over 64 MB: not shown]\n" % line
                        )
                        continue
                    sys.stdout.buffer.write(
                        redactor.redact_line(line) if redactor.enabled else line
                    )
        except NotARegularFile as exc:
            raise NotFoundError(f"the transcript of {mirror.session_id} is gone: {exc}") from None
        except FileNotFoundError:
            raise NotFoundError(
                f"the transcript of {mirror.session_id} is gone ({path}); "
                f"its mirror is kept: recall show {mirror.session_id}"
            ) from None
        return 0
    if args.json:
        print_json(mirror)
        return 0
    print(f"{mirror.title or '(untitled)'}")
    print(
        f"{mirror.agent} · {mirror.project or '?'} · {mirror.computer} · "
        f"{day(mirror.started_at)} → {day(mirror.ended_at)}"
    )
    print(
        f"session {mirror.session_id}"
        + (f" (sub-agent of {mirror.parent_session_id})" if mirror.parent_session_id else "")
    )
    for sub in mirror.subagents:
        print(f"  sub-agent: {sub}")
    for m in mirror.messages:
        print(f"\n── {m.role} · {day(m.timestamp)}\n{m.text}")
    return 0
