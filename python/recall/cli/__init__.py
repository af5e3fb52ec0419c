"""The `recall` command line: `main(argv) -> int`, one module per subcommand."""

from __future__ import annotations

import sys
from collections.abc import Sequence

from recall import __version__
from recall.errors import RecallError, is_disk_full


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    # the two hooks are served without argparse; any other command imports neither module
    if argv[:1] == ["ingest"]:
        from recall.cli.ingest import hook_event, run_hook

        event = hook_event(argv)
        if event is not None:
            return run_hook(event, [], None)
    if argv[:1] == ["context"]:
        from recall.cli.context import fast_args, run_context

        context = fast_args(argv)
        if context is not None:
            return run_context(*context)
    from recall.cli.parser import build_parser

    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except RecallError as exc:  # e.g. a bad RECALL_IMPL met while a subcommand loads
        sys.stderr.write(f"recall: {exc}\n")
        return exc.exit_code
    if args.command is None and not args.version:
        parser.print_help()
        return 2
    try:
        if args.version:
            from recall import _accel

            print(f"recall {__version__} ({_accel.IMPL} core: {_accel.IMPL_REASON})")
            return 0
        return int(args.run(args))
    except RecallError as exc:  # it may quote a peer, a summariser, a file: printable
        from recall.textutil import printable

        sys.stderr.write(f"recall: {printable(str(exc))}\n")
        return exc.exit_code
    except KeyboardInterrupt:
        sys.stderr.write("recall: interrupted\n")
        return 130
    except BrokenPipeError:
        return 0
    except UnicodeEncodeError as exc:  # a non-UTF-8 byte in an argument reached SQLite
        bad = exc.object[exc.start : exc.end] if isinstance(exc.object, str) else "?"
        sys.stderr.write(f"recall: {bad!r} is not valid UTF-8 text; pass arguments as UTF-8\n")
        return 2
    except Exception as exc:
        if not is_disk_full(exc):
            raise
        sys.stderr.write(f"recall: disk full ({exc}): free some space and run it again\n")
        return 1


def cli() -> None:
    """Console-script entry point."""
    code = main()
    if "onnxruntime" in sys.modules and not _other_threads():
        _exit_now(code)
    sys.exit(code)


def _other_threads() -> bool:
    """Whether a non-daemon thread is still running: Python's exit waits for it, so must we."""
    import threading

    return any(t is not threading.main_thread() and not t.daemon for t in threading.enumerate())


def _exit_now(code: int) -> None:
    """Exit without tearing the interpreter down, once the output is flushed.

    With numpy, onnxruntime, the model and the HNSW index loaded, Python's
    orderly shutdown (freeing every module and object, joining onnxruntime's
    pool) cost a cold hybrid search ~50 ms of CPU, a sixth of the process,
    for nothing: recall's files are closed by then (the database by its
    context manager, recall.log after each line) and no atexit work is needed.
    """
    import contextlib
    import os

    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(BrokenPipeError, ValueError):  # a reader gone, a closed stream
            stream.flush()
    os._exit(code)
