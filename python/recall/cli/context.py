"""`recall context`: the block a session-start or prompt-submit hook injects.

It runs before the agent may answer, so it has a deadline, prints nothing
when anything goes wrong (or when there is nothing to say), and always exits
0. `recall.cli.main` serves it without argparse, like the ingest hook.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import argparse

    from recall.context.gather import Facts

DEFAULT_BUDGET = {"session-start": 1500, "prompt-submit": 800}
"""Tokens, when --budget is not given: a prompt's context is paid on every turn."""
DEADLINE_S = {"session-start": 1.0, "prompt-submit": 0.5}
"""Seconds of work (after start-up) before the hook gives up and prints nothing: a prompt
waits on it every turn, a session start once."""
RECENT, MATCHES = 8, 5
PROMPT_CHARS = 2000
"""Only the prompt's start is searched for: a pasted log must not slow the hook."""


def add_parser(subs: Any) -> None:
    from recall.context.shape import EVENTS, FORMATS

    p = subs.add_parser(
        "context",
        help="print what an agent should know at session start or prompt submit (a hook)",
        description="Reads the agent's hook payload on stdin (cwd, prompt) and prints the head "
        "of MEMORY.md and the most relevant past sessions, in the agent's hook format. "
        "Prints nothing and exits 0 on any problem.",
    )
    p.add_argument("--event", choices=EVENTS, required=True)
    p.add_argument("--format", choices=FORMATS, default="text", help="the agent's hook shape")
    p.add_argument("--budget", type=int, default=None, metavar="TOKENS", help="at most this many")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    return run_context(args.event, args.format, args.budget)


def fast_args(argv: list[str]) -> tuple[str, str, int | None] | None:
    """(event, format, budget) when `argv` is a well-formed `context` command, else None
    (argparse then reports the problem)."""
    from recall.context.shape import EVENTS, FORMATS

    if not argv or argv[0] != "context":
        return None
    opts: dict[str, str] = {}
    rest = argv[1:]
    while rest:
        name, eq, value = rest[0].partition("=")
        if not eq:
            if len(rest) < 2:
                return None
            value, rest = rest[1], rest[2:]
        else:
            rest = rest[1:]
        if name not in ("--event", "--format", "--budget") or name in opts:
            return None
        opts[name] = value
    event, fmt = opts.get("--event"), opts.get("--format", "text")
    budget = opts.get("--budget")
    if event not in EVENTS or fmt not in FORMATS:
        return None
    if budget is not None and not budget.isdigit():
        return None
    return event, fmt, int(budget) if budget is not None else None


def run_context(event: str, fmt: str, budget: int | None, deadline: float | None = None) -> int:
    """Print the context (or nothing) within `deadline` seconds; always 0."""
    import threading

    deadline = DEADLINE_S[event] if deadline is None else deadline
    done: list[str] = []

    def work() -> None:
        try:
            done.append(_context(event, fmt, budget or DEFAULT_BUDGET[event], deadline))
        except Exception as exc:
            from recall.log import log

            log(f"context --event {event}: {type(exc).__name__}: {exc}")

    worker = threading.Thread(target=work, daemon=True)
    worker.start()
    worker.join(deadline)
    if worker.is_alive() or not done or not done[0]:
        return 0  # the agent goes on without context rather than wait
    try:
        sys.stdout.write(done[0] + "\n")
        sys.stdout.flush()
    except (OSError, ValueError):
        pass
    return 0


def _payload(deadline: float) -> dict[str, Any]:
    from recall.hooks import MAX_PAYLOAD, read_payload, read_stdin

    if sys.stdin is None or sys.stdin.isatty():
        return {}
    raw = read_stdin(MAX_PAYLOAD + 1, deadline)
    return read_payload(raw) if raw.strip() else {}


def _context(event: str, fmt: str, budget: int, deadline: float) -> str:
    import os

    from recall.config import data_dir, db_path
    from recall.context.gather import Facts, memory_head, redacted
    from recall.context.shape import output

    payload = _payload(deadline)
    cwd = payload.get("cwd")
    if not isinstance(cwd, str) or not cwd.strip():
        cwd = os.environ.get("CLAUDE_PROJECT_DIR") or os.environ.get("GEMINI_PROJECT_DIR")
        cwd = cwd or os.getcwd()
    facts = Facts()
    try:
        if db_path().exists():  # a hook never creates the index
            facts = _excerpts(event, payload, cwd)
    except Exception as exc:  # MEMORY.md is still worth sending
        from recall.log import log

        log(f"context --event {event}: no excerpts: {type(exc).__name__}: {exc}")
    if event == "session-start" or facts.excerpts:  # a prompt with nothing to add: silence
        facts.memory = memory_head(data_dir() / "MEMORY.md")
    return output(redacted(facts), fmt, event, budget)


def _excerpts(event: str, payload: dict[str, Any], cwd: str) -> Facts:
    from recall.context.gather import Facts, matching, recent_here

    if event == "session-start":
        return recent_here(cwd, RECENT)
    prompt = payload.get("prompt")
    if not isinstance(prompt, str) or not prompt.strip():
        return Facts()
    session = payload.get("session_id")
    return matching(prompt[:PROMPT_CHARS], MATCHES, session if isinstance(session, str) else None)
