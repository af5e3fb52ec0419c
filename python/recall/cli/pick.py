"""`recall pick`: find a session by looking: search as you type, a preview, then show or
resume it (also `recall search -i`).

The full-terminal part needs prompt_toolkit, an optional extra (`pip install
'recall-sessions[pick]'`), so the plain CLI stays dependency-light; without it
`pick` says so in one line. The screen is `cli/pick_ui.py`.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from recall.errors import ConfigError, UsageError


def add_parser(subs: Any) -> None:
    p = subs.add_parser(
        "pick", help="search as you type, preview, Enter to show or resume (full terminal)"
    )
    p.add_argument("query", nargs="*", help="words to start with (default: the latest sessions)")
    p.add_argument(
        "--agent",
        action="append",
        default=[],
        metavar="A",
        help="only sessions of this agent (repeatable)",
    )
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    return pick(" ".join(args.query), args.agent)


def pick(query: str, agents: list[str]) -> int:
    """Open the picker on `query`; then print the chosen session (from its matched
    message) or resume it in its agent. 0 when nothing was chosen too."""
    try:
        import prompt_toolkit  # noqa: F401  (only whether it is there)
    except ImportError:
        raise ConfigError(
            "`recall pick` needs prompt_toolkit: pipx install 'recall-sessions[pick]' "
            "(or pip install prompt_toolkit); `recall search` needs nothing more"
        ) from None
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        raise UsageError("`recall pick` needs a terminal; in a pipe use `recall search`")
    from recall.cli import pick_ui
    from recall.search.engine import known_agents
    from recall.store import open_reader

    with open_reader() as store:
        agents = known_agents(store.conn, agents)
    chosen = pick_ui.run(pick_ui.Picker(query, agents))
    if chosen is None:
        return 0
    action, row = chosen
    from recall.store.queries import resolve_session

    with open_reader() as store:
        rowid = resolve_session(store.conn, row.session_id, row.agent)
    if action == "resume":
        from recall.cli.resume import resume

        return resume(rowid)
    from recall.cli.show import show_rowid

    return show_rowid(rowid, row.message_index)
