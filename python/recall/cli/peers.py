"""`recall peers add|list|remove|test`: the other computers `--computer` can ask."""

from __future__ import annotations

import argparse
import sys
from typing import Any


def add_parser(subs: Any) -> None:
    p = subs.add_parser(
        "peers", help="other computers' daemons to search (add, list, remove, test)"
    )
    acts = p.add_subparsers(dest="action", metavar="ACTION", required=True)
    a = acts.add_parser("add", help="name a peer: recall peers add desk http://127.0.0.1:9001")
    a.add_argument("name", help="what --computer will take (letters, digits, - _ .)")
    a.add_argument("url", help="the peer daemon's base URL, http:// or https://")
    a.add_argument("--token-file", metavar="F", help="a file holding the peer's token")
    a.add_argument("--timeout", type=float, default=5.0, metavar="S", help="seconds (default 5)")
    a.add_argument(
        "--ca-file", metavar="F", help="certificate to trust for a self-signed https peer"
    )
    acts.add_parser("list", help="the peers in config").add_argument("--json", action="store_true")
    r = acts.add_parser("remove", help="forget a peer")
    r.add_argument("name")
    t = acts.add_parser("test", help="reachable, authenticated, version, sessions, latency")
    t.add_argument("names", nargs="*", metavar="NAME", help="default: every peer")
    t.add_argument("--json", action="store_true")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from recall.config import PeerConfig, forget_loaded
    from recall.errors import UsageError
    from recall.peers import registry

    forget_loaded()  # add and remove rewrite what the file holds now
    if args.action == "add":
        if not 0 < args.timeout <= 600:
            raise UsageError("--timeout must be between 0 and 600 seconds")
        if args.token_file:
            from pathlib import Path

            from recall.peers.auth import read_token

            read_token(args.token_file)  # refuse a file that holds no token now, not at search time
            args.token_file = str(Path(args.token_file).expanduser().resolve())
        peer = PeerConfig(args.name, args.url, args.token_file, args.timeout, args.ca_file)
        where = registry.add(peer)
        print(f"added peer {args.name} ({args.url}) to {where}; try: recall peers test {args.name}")
        return 0
    if args.action == "remove":
        print(f"removed peer {args.name} from {registry.remove(args.name)}")
        return 0
    if args.action == "list":
        return _list(registry.peers(), args.json)
    return _test(args.names, args.json)


def _list(peers: list[Any], as_json: bool) -> int:
    from recall.cli.render import print_json
    from recall.textutil import printable

    if as_json:
        print_json(peers)
        return 0
    if not peers:
        print("no peers yet: recall peers add NAME URL --token-file F")
        return 0
    for p in peers:
        token = f"token from {p.token_file}" if p.token_file else "no token"
        print(printable(f"{p.name:<16} {p.url}  ({token}, timeout {p.timeout:g}s)"))
    return 0


def _test(names: list[str], as_json: bool) -> int:
    from recall.cli.render import print_json
    from recall.peers.probe import probe
    from recall.peers.registry import find, peers
    from recall.textutil import printable

    chosen = [find(n) for n in names] if names else peers()
    if not chosen:
        print("no peers yet: recall peers add NAME URL --token-file F")
        return 0
    reports = [probe(p) for p in chosen]
    if as_json:
        print_json(reports)
    for r in reports if not as_json else []:
        if r.error:
            sys.stdout.write(printable(f"{r.name:<16} FAIL  {r.error}") + "\n")
        else:
            sys.stdout.write(
                printable(
                    f"{r.name:<16} ok    {r.computer}, recall {r.version} (API {r.api}), "
                    f"{r.sessions} sessions, {r.latency_ms:.0f} ms"
                )
                + "\n"
            )
    return 1 if any(r.error for r in reports) else 0
