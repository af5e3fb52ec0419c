"""`recall serve`: this computer's peer endpoint and background worker (docs/serve.md)."""

from __future__ import annotations

import argparse
import sys
from typing import Any


def add_parser(subs: Any) -> None:
    p = subs.add_parser("serve", help="run the daemon: peer API, index worker, warm model")
    p.add_argument("--host", metavar="H", help="address to listen on (default 127.0.0.1)")
    p.add_argument("--port", type=int, metavar="P", help="port (default 8765; 0 picks a free one)")
    p.add_argument(
        "--new-token",
        action="store_true",
        help="make a new token (its file is 0600, only its hash goes in config), then exit",
    )
    p.add_argument("--no-worker", action="store_true", help="serve only; no sync or embedding")
    p.set_defaults(run=run)


def _new_token() -> str:
    from recall import config
    from recall.peers.auth import make_token
    from recall.peers.configfile import write_managed
    from recall.record import replace

    config.forget_loaded()  # rewrite what the file holds now
    cfg = config.load_config()
    path, digest = make_token()
    written = write_managed(replace(cfg.serve, token_sha256=digest), cfg.peers)
    return f"recall: token written to {path} (mode 0600); its SHA-256 is in {written}"


def run(args: argparse.Namespace) -> int:
    from recall import config
    from recall.errors import UsageError
    from recall.serve.daemon import is_loopback, serve

    if args.new_token:
        print(_new_token())
        return 0
    cfg = config.load_config().serve
    host = args.host or cfg.host
    port = cfg.port if args.port is None else args.port
    if not 0 <= port <= 65535:
        raise UsageError("--port must be between 0 and 65535")
    if not cfg.token_sha256:
        if not is_loopback(host):
            raise UsageError(
                f"refusing to listen on {host} beyond loopback without a token: "
                "run `recall serve --new-token`, give the token file to your peers, "
                "then start again"
            )
        sys.stderr.write(_new_token() + "\n")

    def announce(line: str) -> None:
        sys.stderr.write(line + "\n")
        sys.stderr.flush()

    return serve(host, port, announce, worker=not args.no_worker)
