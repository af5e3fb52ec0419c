"""A local search answered by this computer's running daemon, whose model is already loaded.

Loading the embedding model costs a fresh process about half a second; the
daemon paid it once (hybrid search through it: 4.6x faster at p50,
bench/serve_bench.py). `ask_daemon` returns None (search in-process) when no
daemon runs, when it does not answer, or when the search is keyword-only:
that needs no model and takes 2–3 ms in-process at p50, while merely
importing `http.client` (which imports `ssl`) costs a process 25 ms or more.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from recall import config
from recall.errors import ConfigError, NotFoundError, UsageError
from recall.peers.protocol import SEARCH, running_daemon, search_params

if TYPE_CHECKING:
    from recall.peers.client import Target
    from recall.search.modes import Outcome
    from recall.search.request import SearchRequest

TIMEOUT = 60.0


def local_daemon() -> Target | None:
    """This computer's running daemon, from its state file, if it is alive and we hold its
    token. It is dialled where it bound, and it gets the token only once it has proved it
    holds the token too (`Target(prove=True)`, peers/auth.py): serve.json may be stale and
    its port taken by another program."""
    state = running_daemon()
    if state is None or (state.scheme == "https" and not cert_file()):
        return None
    from recall.peers.auth import read_token, token_path
    from recall.peers.client import Target  # http.client and ssl: only with a daemon to ask

    try:
        token = read_token(token_path())
    except ConfigError:
        return None
    url = f"{state.scheme}://{dial_host(state.host)}:{state.port}"
    if state.scheme == "https":  # trust exactly our own certificate, whatever names it carries
        return Target(url, token, TIMEOUT, cert_file(), check_hostname=False, prove=True)
    return Target(url, token, TIMEOUT, prove=True)


def dial_host(bound: str) -> str:
    """Where to reach a daemon bound to `bound`: that address (bracketed if IPv6), or
    loopback when it bound every address."""
    if bound in ("0.0.0.0", ""):
        return "127.0.0.1"
    if ":" in bound:
        return "[::1]" if bound == "::" else f"[{bound}]"
    return bound


def cert_file() -> str | None:
    cert = config.load_config().serve.tls_cert
    return os.path.expanduser(cert) if cert else None


def ask_daemon(request: SearchRequest) -> tuple[Outcome, bool] | None:
    """The daemon's answer to a local search, or None to search in-process."""
    if not config.use_daemon() or request.mode == "keyword":
        return None
    if config.embedding_provider() == "none":
        return None
    daemon = local_daemon()
    if daemon is None:
        return None
    from recall.peers.client import PeerError
    from recall.peers.wire import outcome_of

    try:
        data = daemon.get_json(SEARCH, [*search_params(request), ("marks", "1")])
        return outcome_of(data)
    except PeerError as exc:
        text = str(exc)
        if text.startswith("HTTP 400: "):  # the same usage error in-process would give
            raise UsageError(text.removeprefix("HTTP 400: ")) from None
        if text.startswith("HTTP 404: "):
            raise NotFoundError(text.removeprefix("HTTP 404: ")) from None
        return None


def search_here(request: SearchRequest) -> tuple[Outcome, bool]:
    """This computer's answer to `request`: from its warm daemon when one runs and the
    search needs the model, else in-process. What the CLI, the MCP tools and anything
    else searching this computer call, so each gets the daemon's loaded model."""
    from recall.search.engine import search

    return ask_daemon(request) or search(request)


def daemon_status() -> dict[str, object]:
    """Whether searches here go through a daemon (`recall status`): `running` (serve.json
    names a live process), `answering` (it proved it holds our token and answered its
    health check), `model_loaded` (its embedding model is warm), and where it is."""
    state = running_daemon()
    out: dict[str, object] = {"running": state is not None, "answering": False}
    if state is None:
        return out
    out["url"] = f"{state.scheme}://{dial_host(state.host)}:{state.port}"
    out["used"] = config.use_daemon()
    daemon = local_daemon()
    if daemon is None:
        return out
    from recall.peers.client import PeerError
    from recall.peers.protocol import HEALTH

    try:
        health = daemon.get_json(HEALTH, [])
    except PeerError as exc:
        out["error"] = str(exc)
        return out
    out["answering"] = True
    out["model_loaded"] = bool(health.get("model_loaded"))
    return out
