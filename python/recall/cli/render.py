"""Terminal rendering shared by the subcommands: highlights, dates, JSON."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from typing import Any

BOLD, RESET = "\x1b[1m", "\x1b[0m"


def use_color() -> bool:
    import os

    return sys.stdout.isatty() and "NO_COLOR" not in os.environ


WIDTH = 80


def highlight(snippet: str, color: bool, indent: str = "", width: int = WIDTH) -> str:
    """A snippet as lines of at most `width` columns, broken between words; matches in
    bold on a terminal, plain text in a pipe (no `**`, which collides with markdown)."""
    import textwrap

    from recall.search.results import HL_END, HL_START
    from recall.textutil import printable

    words = " ".join(printable(snippet, keep=HL_START + HL_END).split())
    lines = textwrap.wrap(
        words,
        width=width,
        initial_indent=indent,
        subsequent_indent=indent,
        break_long_words=False,
        break_on_hyphens=False,
    )  # the two markers are one column each: a line may come up one or two short
    start, end = (BOLD, RESET) if color else ("", "")
    return "\n".join(line.replace(HL_START, start).replace(HL_END, end) for line in lines)


def printed_ids(results: list[Any]) -> dict[str, str]:
    """How text output names each result's session: the shortest prefix `recall show`
    resolves to it alone (at least 8 characters), for this computer's sessions; a peer's
    keep their whole id (`recall show --computer NAME ID`)."""
    from recall.config import computer_name
    from recall.errors import RecallError
    from recall.store import open_reader
    from recall.store.queries import unique_prefix

    here = computer_name()
    ids = {r.session_id: r.session_id for r in results}
    local = {r.session_id for r in results if r.computer == here}
    if not local:
        return ids
    try:
        with open_reader() as store:
            ids.update({sid: unique_prefix(store.conn, sid) for sid in local})
    except (RecallError, OSError):  # no index here: whole ids are always accepted
        pass
    return ids


def reference(session_id: str, index: int | None = None) -> str:
    """A printed session reference, `0c117353` or `0c117353#11` (opening at message 11):
    one shell word that `recall show` takes as it is."""
    return session_id if index is None else f"{session_id}#{index}"


def next_steps(results: list[Any], ids: dict[str, str]) -> str | None:
    """The line after a result list that says how to open or resume what was found
    (the first session result as the example), or None when no result is a session."""
    from recall.agent_cli import RESUME
    from recall.config import computer_name

    first = next((r for r in results if r.source == "session"), None)
    if first is None:
        return None
    ref = ids.get(first.session_id, first.session_id)
    if first.computer != computer_name():  # a peer's, or the team's (docs/team.md)
        return f"open: recall show {ref} --computer {first.computer}"
    resume = f" · resume: recall resume {ref}" if first.agent in RESUME else ""
    return f"open: recall show {ref}{resume}"


def unindexed_note(errors: list[Any], computers: list[str] | None) -> str:
    """Why a search over nothing indexed found nothing, pointing the right way: a peer
    that did not answer (its error printed above) is not this computer's empty index."""
    from recall.config import computer_name

    if not errors:
        return "nothing is indexed yet: run `recall sync`"
    here = not computers or bool({"local", "all", computer_name()} & set(computers))
    if here:
        return "nothing is indexed on this computer yet (`recall sync`); the others did not answer"
    return (
        "no computer asked answered (see above); to search this computer's own index, "
        "leave out --computer or add `local`"
    )


def wrap(text: str, indent: str = "", width: int = WIDTH) -> str:
    """`text` broken between words into lines of at most `width` columns, terminal
    escapes and control characters dropped."""
    import textwrap

    from recall.textutil import printable

    return (
        "\n".join(
            textwrap.wrap(
                printable(text),
                width=width,
                initial_indent=indent,
                subsequent_indent=indent,
                break_long_words=False,
                break_on_hyphens=False,
            )
        )
        or indent.rstrip()
    )


def show_progress(label: str, done: int, total: int, megabytes: bool = False) -> None:
    """Rewrite one stderr line: `label done/total`, or `label 1.2/3.4 MB` for a download
    (whose total is 0 when the server did not say); a newline once it is complete."""
    if megabytes:
        of = f"/{total / 1e6:.1f}" if total else ""
        sys.stderr.write(f"\r{label} {done / 1e6:.1f}{of} MB")
        finished = bool(total) and done >= total
    else:
        sys.stderr.write(f"\r{label} {done}/{total}")
        finished = done >= total
    if finished:
        sys.stderr.write("\n")
    sys.stderr.flush()


def progress(label: str) -> Callable[[int, int], None]:
    """A progress callback that rewrites one stderr line: `label done/total`."""
    return lambda done, total: show_progress(label, done, total)


def to_json(obj: Any) -> str:
    """Compact JSON text of `obj` (records become objects), non-ASCII kept as is."""
    from recall.record import to_builtins

    return json.dumps(to_builtins(obj), ensure_ascii=False, separators=(",", ":"), allow_nan=False)


def print_json(obj: Any) -> None:
    sys.stdout.write(to_json(obj) + "\n")


def day(iso: str | None) -> str:
    return iso[:16].replace("T", " ") if iso else "—"
