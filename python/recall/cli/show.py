"""`recall show SESSION`: one mirror, or with `--raw` the original transcript."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from recall.store.queries import Mirror


def add_parser(subs: Any) -> None:
    p = subs.add_parser("show", help="print one session's conversation")
    p.add_argument(
        "session",
        help="a session id or a unique prefix of one, as search prints it; `ID#N` opens at "
        "message N",
    )
    p.add_argument(
        "at", nargs="?", metavar="#N", help="open at message N (also written `ID#N`, `ID #N`)"
    )
    p.add_argument("--agent", metavar="A", help="the agent, when ids of two agents collide")
    p.add_argument("--raw", action="store_true", help="print the original transcript file")
    p.add_argument("--json", action="store_true", help="machine-readable output: one JSON document")
    p.add_argument(
        "--computer",
        metavar="NAME",
        help="fetch it from this peer's daemon, or from the team's index (`team`, "
        "`team:PERSON@COMPUTER`)",
    )
    p.add_argument("--team", action="store_true", help="fetch it from the team's index")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from recall.store import open_reader
    from recall.store.queries import load_mirror, resolve_session

    args.session, start = session_ref(args.session, args.at)
    team = args.computer if args.computer and args.computer.split(":")[0] == "team" else None
    if args.team or team:  # --- the team's index (docs/team.md) ---
        from recall.errors import UsageError
        from recall.team.mirror import load

        if args.raw:
            raise UsageError("the team's index holds mirrors, never transcripts: drop --raw")
        return _print(load(args.session, args.agent, team or "team"), args.json, start)
    if args.computer:  # --- across computers (docs/serve.md) ---
        from recall.peers.remote import fetch_mirror, fetch_transcript, is_remote

        if is_remote(args.computer):
            if args.raw:
                return _write_raw(fetch_transcript(args.computer, args.session, args.agent))
            mirror = fetch_mirror(args.computer, args.session, args.agent)
            return _print(mirror, args.json, start)
    from recall.search.engine import known_agents

    with open_reader() as store:
        agent = known_agents(store.conn, [args.agent])[0] if args.agent else None
        mirror = load_mirror(store.conn, resolve_session(store.conn, args.session, agent))
    if args.raw:
        from recall.privacy.transcript import raw_transcript
        from recall.sync import find_transcript

        return _write_raw(raw_transcript(mirror, find_transcript))
    return _print(mirror, args.json, start)


def show_rowid(rowid: int, start: int | None = None) -> int:
    """Print the session with this rowid from message `start` (`recall pick`'s Enter)."""
    from recall.store import open_reader
    from recall.store.queries import load_mirror

    with open_reader() as store:
        mirror = load_mirror(store.conn, rowid)
    return _print(mirror, False, start)


def session_ref(session: str, at: str | None) -> tuple[str, int | None]:
    """The session and message `show` was given: `ID`, `ID#N`, `"ID #N"` or `ID #N`
    (two words, when the shell did not take `#N` for a comment)."""
    from recall.errors import UsageError
    from recall.store.queries import split_ref

    if at is not None:
        session, index = split_ref(f"{session}{at if at.startswith('#') else '#' + at}")
        if index is None:
            raise UsageError(f"{at!r} is not a message number: give #N, e.g. #11")
        return session, index
    return split_ref(session)


def _write_raw(chunks: Iterator[bytes]) -> int:
    """The transcript's bytes as they are into a pipe; on a terminal, as text with
    escape sequences and control characters dropped (a transcript is not trusted)."""
    if not sys.stdout.isatty():
        for chunk in chunks:
            sys.stdout.buffer.write(chunk)
        return 0
    import codecs

    from recall.textutil import printable

    decoder = codecs.getincrementaldecoder("utf-8")("replace")
    for chunk in chunks:
        sys.stdout.write(printable(decoder.decode(chunk)))
    sys.stdout.write(printable(decoder.decode(b"", final=True)))
    return 0


def _print(mirror: Mirror, as_json: bool, start: int | None = None) -> int:
    from recall.cli.render import day, print_json
    from recall.errors import UsageError
    from recall.textutil import printable

    if start is not None and start >= len(mirror.messages):
        raise UsageError(
            f"session {mirror.session_id} has {len(mirror.messages)} messages (#0 to "
            f"#{len(mirror.messages) - 1}); there is no #{start}"
        )
    if as_json:  # the whole session: a program indexes it itself
        print_json(mirror)
        return 0
    lines = [
        f"{mirror.title or '(untitled)'}",
        f"{mirror.agent} · {mirror.project or '?'} · {mirror.computer} · "
        f"{day(mirror.started_at)} → {day(mirror.ended_at)}",
        f"session {mirror.session_id}"
        + (f" (sub-agent of {mirror.parent_session_id})" if mirror.parent_session_id else ""),
    ]
    lines += [f"  sub-agent: {sub}" for sub in mirror.subagents]
    from recall.cli.resume import hint

    resume = hint(mirror.session_id, mirror.agent)
    lines += [f"resume in {mirror.agent}: {resume} (--print shows the command)"] if resume else []
    first = start or 0
    if first:
        lines.append(f"\n(#0–#{first - 1} above: recall show {mirror.session_id})")
    lines += [
        f"\n── #{n} {m.role} · {day(m.timestamp)}\n{m.text}"
        for n, m in enumerate(mirror.messages[first:], first)
    ]
    for line in lines:
        print(printable(line))
    return 0
