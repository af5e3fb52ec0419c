"""`recall team init|status|push`: this computer and the team's index on Postgres (docs/team.md)."""

from __future__ import annotations

import argparse
import sys
from typing import Any


def add_parser(subs: Any) -> None:
    p = subs.add_parser("team", help="the team's index on Postgres: init, status, push")
    acts = p.add_subparsers(dest="action", metavar="ACTION", required=True)
    i = acts.add_parser("init", help="create or migrate the team's schema (as its owner)")
    i.add_argument("--model", metavar="ID", help="the model of the team's vectors (default: ours)")
    i.add_argument(
        "--dims", type=int, metavar="N", help="its dimension (default: from its manifest)"
    )
    s = acts.add_parser("status", help="the server, who you are there, what it holds")
    s.add_argument("--json", action="store_true")
    u = acts.add_parser("push", help="send this computer's allowed sessions now")
    u.add_argument("--json", action="store_true")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from recall.cli.render import print_json
    from recall.team import jobs
    from recall.team.connect import settings

    if args.action == "init":
        done, plan = jobs.init(args.model, args.dims)
        what = f"applied {', '.join(done)}" if done else "already up to date"
        print(f"team index: schema {what}; vectors of {plan.model} ({plan.dims} dimensions)")
        if done:
            print(
                "next: one login role per person, e.g.\n"
                "  CREATE ROLE alice LOGIN PASSWORD '…' IN ROLE recall_member;"
            )
        return 0
    if args.action == "status":
        st = jobs.status()
        if args.json:
            print_json(st)
            return 0
        if not st.migrations:
            print(
                f"team index: PostgreSQL {st.server}, as {st.person}: no schema yet "
                "(`recall team init`)"
            )
            return 1
        print(
            f"team index: PostgreSQL {st.server}, as {st.person}{', TLS' if st.tls else ', no TLS'}"
        )
        print(f"  schema: {st.migrations[-1]}; vectors of {st.model} ({st.dims} dimensions)")
        print(
            f"  readable: {st.sessions} sessions of {st.people} people, {st.messages} "
            f"messages, {st.chunks} vectors"
        )
        print(f"  from this computer: {st.mine} sessions; last push {st.last_push or 'never'}")
        return 0
    report = jobs.push()
    if args.json:
        print_json(report)
        return 0
    sent = (
        f"sent {report.sessions} sessions ({report.messages} messages, {report.chunks} vectors)"
        if report.sessions
        else "nothing to send"
    )
    print(
        f"team index: {sent}; {report.deleted} deleted, {report.unchanged} unchanged "
        f"(as {report.person} from {report.computer})"
    )
    if report.model is None and report.sessions:
        sys.stderr.write("recall: text only: no embedding model here, so no vectors were sent\n")
    if not settings().projects:  # nothing was sent because nothing may be, not for want of news
        sys.stderr.write(
            "recall: [team] projects is empty: no session on this computer may leave\n"
        )
    return 0
