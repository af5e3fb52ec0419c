"""The `recall` command line: `main(argv) -> int`, one module per subcommand."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from recall import __version__
from recall.cli import (
    demo,
    doctor,
    embed,
    forget,
    ingest,
    model,
    redact,
    search,
    show,
    status,
    sync,
)
from recall.errors import RecallError

COMMANDS = (ingest, sync, search, show, status, demo, embed, model, doctor, redact, forget)


class _Parser(argparse.ArgumentParser):
    """argparse that reports usage errors through RecallError's one-line path."""

    def error(self, message: str) -> None:  # type: ignore[override]
        self.print_usage(sys.stderr)
        sys.stderr.write(f"recall: error: {message}\n")
        raise SystemExit(2)


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="recall",
        description="Search every Claude Code, Codex and Gemini conversation on this computer.",
    )
    parser.add_argument("--version", action="store_true", help="print version and core, then exit")
    subs = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    for command in COMMANDS:
        command.add_parser(subs)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.version:
        from recall import _accel

        print(f"recall {__version__} ({_accel.IMPL} core: {_accel.IMPL_REASON})")
        return 0
    if args.command is None:
        parser.print_help()
        return 2
    try:
        return int(args.run(args))
    except RecallError as exc:
        sys.stderr.write(f"recall: {exc}\n")
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


def cli() -> None:
    """Console-script entry point."""
    sys.exit(main())
