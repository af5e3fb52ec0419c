"""`recall resume SESSION`: reopen a session in its own agent, in its project folder.

Going back into the session a search found is what people most want from a
session search. Each agent reopens a session by id from the folder it ran in
(the adapter's `resume` command: `claude --resume ID`, `codex resume ID`,
`copilot --resume ID`, `opencode --session ID`, …; docs/agents.md,
"Resuming"), so recall changes to that folder and replaces itself with the
agent; `--print` prints the command instead. An agent with no such command
(OpenClaw, Cline, …) is told apart from an imported session.
A sub-agent's session resumes its parent, the conversation the agent can reopen.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any

from recall.errors import NotFoundError, UsageError
from recall.record import Record


class Plan(Record):
    """What resuming a session runs: `argv` in `cwd` (None: the folder is not known)."""

    argv: list[str]
    cwd: str | None


def add_parser(subs: Any) -> None:
    p = subs.add_parser("resume", help="reopen a session in its own agent, in the folder it ran in")
    p.add_argument("session", help="a session id or a unique prefix of one, as search prints it")
    p.add_argument("--agent", metavar="A", help="the agent, when ids of two agents collide")
    p.add_argument(
        "--print",
        action="store_true",
        dest="print_only",
        help="print the command (cd FOLDER && AGENT …) instead of running it",
    )
    p.set_defaults(run=run)


def plan_for(session_id: str, agent: str, project: str | None, parent: str | None) -> Plan:
    """The agent's command that reopens `session_id` (its parent's, for a sub-agent)."""
    from recall.agents import ADAPTERS

    adapter = ADAPTERS.get(agent)
    if adapter is None:
        raise UsageError(
            f"session {session_id} was imported ({agent}): no agent can reopen it; "
            f"read it with `recall show {session_id}`"
        )
    if not adapter.resume:
        raise UsageError(
            f"{agent} has no command that reopens a session by id (docs/agents.md, "
            f'"Resuming"); read session {session_id} with `recall show {session_id}`'
        )
    target = parent or session_id.partition(":")[0]
    return Plan(argv=[*adapter.resume, target], cwd=project)


def command_line(plan: Plan) -> str:
    """The plan as one line a shell runs: `cd FOLDER && AGENT …`, quoted."""
    if os.name == "nt":
        import subprocess

        run = subprocess.list2cmdline(plan.argv)
        return f'cd /d "{plan.cwd}" && {run}' if plan.cwd else run
    import shlex

    run = shlex.join(plan.argv)
    return f"cd {shlex.quote(plan.cwd)} && {run}" if plan.cwd else run


def hint(session_ref: str, agent: str) -> str | None:
    """How `show` and `search` say to go back in (`recall resume REF`), or None for a
    session no agent can reopen (an import)."""
    from recall.agent_cli import RESUME

    return f"recall resume {session_ref}" if agent in RESUME else None


def run(args: argparse.Namespace) -> int:
    from recall.search.engine import known_agents
    from recall.store import open_reader
    from recall.store.queries import resolve_session, split_ref

    ref = split_ref(args.session)[0]  # `ID#N` as search prints it: the session
    with open_reader() as store:
        agent = known_agents(store.conn, [args.agent])[0] if args.agent else None
        rowid = resolve_session(store.conn, ref, agent)
    return resume(rowid, args.print_only)


def resume(rowid: int, print_only: bool = False) -> int:
    """Resume the session with this rowid (or print the command): `recall resume` and
    `recall pick`'s Ctrl-R."""
    from recall.config import computer_name
    from recall.store import open_reader
    from recall.store.queries import place

    with open_reader() as store:
        where = place(store.conn, rowid)
    plan = plan_for(where.session_id, where.agent, where.project, where.parent_session_id)
    if print_only:
        print(command_line(plan))
        return 0
    if where.computer != computer_name():
        raise NotFoundError(
            f"session {where.session_id} ran on {where.computer}: resume it there "
            f"({command_line(plan)})"
        )
    return launch(plan)


def launch(plan: Plan) -> int:
    """Run the plan: recall becomes the agent (exec), so the terminal is the agent's."""
    import shutil

    program = shutil.which(plan.argv[0])
    if program is None:
        raise NotFoundError(
            f"{plan.argv[0]} is not on PATH; install it, or run: {command_line(plan)}"
        )
    if plan.cwd is None:
        raise NotFoundError(
            f"the session's project folder is not recorded; run it from that folder: "
            f"{command_line(plan)}"
        )
    if not os.path.isdir(plan.cwd):
        raise NotFoundError(
            f"the project folder {plan.cwd} is gone; recreate it or run the command from "
            f"where the project is now: {shlex_join(plan.argv)}"
        )
    sys.stdout.flush()
    sys.stderr.flush()
    if os.name == "nt":  # no exec on Windows: wait for the agent and pass its status on
        import subprocess

        return subprocess.call([program, *plan.argv[1:]], cwd=plan.cwd)
    os.chdir(plan.cwd)
    os.execv(program, [plan.argv[0], *plan.argv[1:]])
    return 0  # not reached: exec replaced this process


def shlex_join(argv: list[str]) -> str:
    import shlex

    return shlex.join(argv)
