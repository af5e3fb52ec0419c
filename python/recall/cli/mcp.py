"""`recall mcp`: serve the agent's own tools over stdio (the Model Context Protocol).

Agents start it themselves from their MCP registration (`recall setup`
writes it); a person runs it only to try it. Nothing but protocol goes to
stdout; problems go to stderr.
"""

from __future__ import annotations

import argparse
import contextlib
import sys
from typing import Any


def add_parser(subs: Any) -> None:
    p = subs.add_parser(
        "mcp",
        help="serve search_history and show_session to an agent (MCP over stdio)",
        description="An MCP server over stdio: newline-delimited JSON-RPC on stdin/stdout. "
        "Agents start it from their configuration; `recall setup` registers it.",
    )
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from recall.mcp.server import serve

    sys.stderr.write("recall mcp: serving on stdio\n")
    with contextlib.suppress(BrokenPipeError, KeyboardInterrupt):
        serve(sys.stdin.buffer, sys.stdout.buffer)
    return 0
