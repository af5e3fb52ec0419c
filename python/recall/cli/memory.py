"""`recall memory edit|path|review`: the long-term MEMORY.md in recall's data directory.

MEMORY.md is the user's own file: recall indexes it (by headings) whenever
it changes, after `memory edit` at once, otherwise at the next `sync`. The
facts `recall digest` proposes wait for `memory review` (`memory_review`).
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

TEMPLATE = (
    "# Memory\n\n"
    "Long-term facts recall should keep: one heading per topic. recall indexes this\n"
    "file by headings; facts you accept in `recall memory review` go under dated headings.\n"
)


def add_parser(subs: Any) -> None:
    p = subs.add_parser("memory", help="the long-term MEMORY.md: edit it, or print its path")
    acts = p.add_subparsers(dest="action", metavar="ACTION", parser_class=type(p))
    acts.add_parser("edit", help="open MEMORY.md in $EDITOR, then index it")
    acts.add_parser("path", help="print where MEMORY.md is")
    from recall.cli.memory_review import add_review

    add_review(acts)
    p.set_defaults(run=run, action=None)


def _check_regular(path: Path) -> None:
    """RecallError (one line) when MEMORY.md is there but is no regular file: a FIFO,
    a device, a directory, or a symlink to one, which the editor or indexer would hang on."""
    import os
    import stat

    from recall.errors import RecallError
    from recall.safeio import kind_of

    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        if path.is_symlink():
            msg = f"{path} is a dangling symlink; remove it or point it at a file"
            raise RecallError(msg) from None
        return
    except OSError as exc:
        raise RecallError(f"cannot read {path}: {exc.strerror}") from None
    if not stat.S_ISREG(mode):
        raise RecallError(f"{path} is {kind_of(mode)}, not a file recall can edit")


def run(args: argparse.Namespace) -> int:
    from recall.memory.files import memory_file

    if args.action == "review":
        from recall.cli.memory_review import review

        return review(args)
    path = memory_file()
    if args.action in (None, "path"):
        print(path)
        return 0
    from recall.cli.editor import edit_file
    from recall.memory.files import Source, index_file
    from recall.memory.vectors import embed_quietly
    from recall.store import open_writer

    _check_regular(path)
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(TEMPLATE, encoding="utf-8")
    edit_file(path)
    with open_writer() as store:
        written = index_file(store, Source(path, "memory_md"))
        embed_quietly(store)
    changed = written.inserted + written.updated + written.deleted
    print(f"{path}: {changed} sections re-indexed" if written.changed else f"{path}: unchanged")
    return 0
