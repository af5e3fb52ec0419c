"""`recall ingest`: index one transcript, a directory, an import file, or a hook's payload.

With `--event`, recall is running as an agent hook: it reads the payload from
stdin (or, for Codex's `notify`, from the last argument), prints nothing to
stdout, and exits 0 whatever happens, logging problems to recall.log.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import argparse

EVENTS = ("agent-stop", "session-closed")


def add_parser(subs: Any) -> None:
    p = subs.add_parser("ingest", help="index transcripts now (also the agents' hook command)")
    p.add_argument(
        "paths",
        nargs="*",
        metavar="PATH",
        help="transcript files or directories ('-' with --format jsonl: stdin)",
    )
    p.add_argument(
        "--transcript",
        action="append",
        default=[],
        metavar="PATH",
        help="a transcript to index (same as a PATH argument)",
    )
    p.add_argument("--agent", metavar="A", help="which agent wrote the transcripts")
    p.add_argument(
        "--format",
        choices=("agent", "jsonl"),
        default="agent",
        help="'jsonl': the plain import format, one message object a line",
    )
    p.add_argument(
        "--event", choices=EVENTS, help="run as a hook: read the agent's JSON payload from stdin"
    )
    p.add_argument("--force", action="store_true", help="re-read files from the start")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    if args.event:
        return run_hook(args.event, args.paths, args.agent)
    return _run_paths(args)


def hook_event(argv: list[str]) -> str | None:
    """The event when `argv` is exactly the hook command (`ingest --event E`), else None.

    Agents run that command after every turn: `recall.cli.main` serves it
    without argparse, whose import and parser cost a hook ~9 ms.
    """
    if len(argv) == 3 and argv[:2] == ["ingest", "--event"] and argv[2] in EVENTS:
        return argv[2]
    if len(argv) == 2 and argv[0] == "ingest" and argv[1].startswith("--event="):
        event = argv[1].removeprefix("--event=")
        return event if event in EVENTS else None
    return None


def run_hook(event: str, paths: list[str], agent: str | None) -> int:
    from recall.log import log

    try:
        if event == "session-closed":
            _detached(paths, agent)
        else:
            _hook(event, paths, agent)
    except KeyboardInterrupt:
        pass
    except Exception as exc:
        log(f"ingest --event {event}: {type(exc).__name__}: {exc}")
    return 0


DETACH_ARG_MAX = 100_000
"""A payload passed on to the detached process as an argument stays under Linux's
128 KiB limit on one argument; a larger one is ingested in the hook itself."""


def _detached(paths: list[str], agent: str | None) -> None:
    """A session's end: read the payload, hand the ingest to a process of its own and
    return at once. Claude Code gives SessionEnd hooks about 1.5 s in all and Gemini
    CLI does not wait for them; the ingest outlives the hook either way."""
    import json
    import subprocess

    from recall.hooks import payload_from

    raw = json.dumps(payload_from(paths), ensure_ascii=False)
    if len(raw) > DETACH_ARG_MAX:
        _hook("session-closed", [raw], agent)
        return
    cmd = [sys.executable, "-m", "recall", "ingest", "--event", "agent-stop"]
    cmd += ["--agent", agent] if agent else []
    options: dict[str, Any] = {"start_new_session": True}
    if sys.platform == "win32":  # no sessions there: a detached process group instead
        flags = subprocess.DETACHED_PROCESS | subprocess.CREATE_NEW_PROCESS_GROUP
        options = {"creationflags": flags}
    subprocess.Popen(
        [*cmd, raw],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        close_fds=True,
        **options,
    )


def _hook(event: str, paths: list[str], agent: str | None) -> None:
    """Index what is new in the payload's transcripts. One that has not changed since the
    last ingest is passed by with one read of the index: no parse, no write lock."""
    from recall.config import computer_name, digest_child
    from recall.hooks import payload_from, transcripts_from_payload
    from recall.log import log
    from recall.store import open_writer
    from recall.vetting import shown, unchanged, vet

    payload = payload_from(paths)
    targets = transcripts_from_payload(payload, agent)
    if digest_child():  # a session `recall digest`'s summariser started: never indexed
        _keep_out(payload, [a.name for a, _ in targets])
        return
    with open_writer() as store:  # no lock: each write below takes it, if there is one
        for adapter, path in targets:
            real, why = vet(path)  # what sync would pass over, the hook passes over too
            if why:
                log(f"ingest --event {event}: passed over {shown(path)}: {why}")
                continue
            if unchanged(store.conn, real):
                continue
            from recall.ingest import ingest_path

            try:
                ingest_path(store, adapter, real, computer_name())
            except OSError as exc:
                log(f"ingest --event {event}: cannot read {shown(path)}: {exc}")


def _keep_out(payload: dict[str, Any], agents: list[str]) -> None:
    """Tombstone the payload's session (and delete what of it is indexed) for each agent."""
    from recall.privacy.forget import forget_marked
    from recall.store import open_writer

    session = payload.get("session_id") or payload.get("thread-id")
    if not isinstance(session, str) or not session.strip():
        return
    with open_writer() as store, store.transaction() as db:
        for name in agents:
            forget_marked(db, session.strip(), name)


class ImportMeter:
    """An import's progress on one rewritten stderr line: MB read, messages, MB/s, ETA."""

    EVERY = 0.25

    def __init__(self, stream: Any) -> None:
        from recall.cli.embed import Meter

        self.line = Meter(stream)

    def __call__(self, tick: Any) -> None:
        import time

        from recall.cli.embed import duration

        if time.monotonic() - self.line.drawn < self.EVERY:
            return
        mb = 1024 * 1024
        ran = tick.done - tick.start
        rate = ran / tick.seconds if tick.seconds > 0 else 0.0
        text = f"Importing {tick.done / mb:,.1f}"
        if tick.total:
            text += f"/{tick.total / mb:,.1f}"
        text += f" MB, {tick.messages:,} messages"
        if ran and tick.seconds > 0.5:
            text += f", {rate / mb:.1f} MB/s"
            if tick.total and tick.total > tick.done:
                text += f", ETA {duration((tick.total - tick.done) / rate)}"
        self.line._draw(text)

    def end(self) -> None:
        self.line.end()


def _stdin_size() -> int | None:
    """stdin's size when it is a regular file (`< file`): an import's ETA needs it."""
    import os
    import stat

    try:
        st = os.fstat(sys.stdin.buffer.fileno())
    except (OSError, ValueError, AttributeError):
        return None
    return st.st_size if stat.S_ISREG(st.st_mode) else None


def _run_paths(args: argparse.Namespace) -> int:
    from recall.agents import ADAPTERS, IMPORT, Adapter, adapter_for, adapter_named
    from recall.config import computer_name
    from recall.errors import NotFoundError, RecallError, UsageError
    from recall.ingest import ingest_path, resolve
    from recall.store import open_writer
    from recall.types import Parsed
    from recall.vetting import shown, vet

    targets = [*args.paths, *args.transcript]
    if not targets:
        raise UsageError("nothing to ingest: give a PATH, --transcript PATH or --event")
    if args.format == "jsonl" and args.agent:
        raise UsageError("--format jsonl takes the agent from each line's 'agent' field")
    if "-" in targets and args.format != "jsonl":
        raise UsageError("'-' (stdin) needs --format jsonl")
    computer = computer_name()
    sessions: set[str] = set()
    imported = 0
    files = 0
    skipped: dict[str, int] = {}
    passed_over: list[tuple[str, str]] = []
    meter = ImportMeter(sys.stderr) if args.format == "jsonl" and sys.stderr.isatty() else None

    def count(found: dict[str, int]) -> None:
        for reason, n in found.items():
            skipped[reason] = skipped.get(reason, 0) + n

    def count_parsed(parsed: Parsed) -> None:
        count(parsed.skipped)
        sessions.update(part.info.session_id for part in parsed.parts)

    with open_writer() as store:
        try:
            for target in targets:
                if target == "-":
                    from recall.imports import import_stream

                    stdin = sys.stdin.buffer
                    report = import_stream(store, stdin, computer, _stdin_size(), meter)
                    count(report.skipped)
                    imported += report.sessions
                    continue
                path = resolve(target)
                if not path.exists():
                    raise NotFoundError(f"no such file or directory: {target}")
                adapter: Adapter | None = (
                    IMPORT
                    if args.format == "jsonl"
                    else (adapter_named(args.agent) if args.agent else None)
                )
                if path.is_dir():
                    candidates = [
                        (a, p)
                        for a in ([adapter] if adapter else list(ADAPTERS.values()))
                        for p in a.discover(path)
                    ]
                    if adapter is None:  # several adapters may claim a file: ask each
                        seen: dict[Path, Adapter] = {}
                        for a, p in candidates:
                            if p not in seen and a.owns(p):
                                seen[p] = a
                        candidates = [(a, p) for p, a in seen.items()]
                else:
                    chosen = adapter or adapter_for(path)
                    if chosen is None:
                        raise UsageError(f"cannot tell which agent wrote {target}; pass --agent")
                    _, why = vet(path)
                    if why:  # the file asked for: one line, as for a missing one
                        raise RecallError(f"cannot ingest {shown(path)}: {why}")
                    candidates = [(chosen, path)]
                for a, p in candidates:
                    real, why = vet(p)  # as sync: pass over what cannot be read or keyed
                    if why:
                        passed_over.append((shown(p), why))
                        continue
                    files += 1
                    if a is IMPORT:  # streamed, in bounded pieces, resumable
                        from recall.imports import import_file

                        report = import_file(store, real, computer, args.force, meter)
                        count(report.skipped)
                        imported += report.sessions
                        continue
                    job = ingest_path(store, a, real, computer, force=args.force)
                    if job is not None:
                        count_parsed(job.parsed)
        finally:
            if meter:
                meter.end()
        from recall.privacy.forget import compact_if_pending  # a marker deleted one

        compact_if_pending(store)
    why = ", ".join(f"{n} {r}" for r, n in sorted(skipped.items()))
    print(
        f"ingested {len(sessions) + imported} sessions from "
        + ("stdin" if all(t == "-" for t in targets) else f"{files} file{'s' * (files != 1)}")
        + (f"; lines skipped: {why}" if why else "")
    )
    for shown_path, reason in passed_over:
        print(f"  passed over {shown_path}: {reason}")
    return 0
