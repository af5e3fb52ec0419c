"""`recall serve` put together: check the settings, bind, start the worker, serve, stop cleanly.

Refuses to listen beyond loopback without a token. On SIGTERM or SIGINT it
stops accepting, gives requests in flight `request_timeout` seconds to finish
and then cuts them off (a client reading a large answer slowly cannot keep
it alive), asks the worker to stop at its next commit, removes its state file
and exits 0.
"""

from __future__ import annotations

import ipaddress
import json
import os
import signal
import socket
import ssl
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from recall import config
from recall.errors import ConfigError, UsageError
from recall.peers.protocol import API_VERSION, running_daemon, state_path
from recall.serve.routes import index_detail
from recall.serve.server import Server, Settings, log_line
from recall.serve.worker import Worker


def is_loopback(host: str) -> bool:
    """Whether every address `host` resolves to is a loopback address."""
    try:
        infos = socket.getaddrinfo(host, None, type=socket.SOCK_STREAM)
    except socket.gaierror as exc:
        raise UsageError(f"cannot bind to {host!r}: {exc.strerror}") from None
    return all(ipaddress.ip_address(str(i[4][0]).split("%")[0]).is_loopback for i in infos)


def tls_context(cfg: config.ServeConfig) -> ssl.SSLContext | None:
    if not cfg.tls_cert and not cfg.tls_key:
        return None
    if not (cfg.tls_cert and cfg.tls_key):
        raise ConfigError("[serve] needs both tls_cert and tls_key, or neither")
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.minimum_version = ssl.TLSVersion.TLSv1_2
    try:
        ctx.load_cert_chain(os.path.expanduser(cfg.tls_cert), os.path.expanduser(cfg.tls_key))
    except (OSError, ssl.SSLError) as exc:
        raise ConfigError(f"cannot load the TLS certificate or key: {exc}") from None
    return ctx


def answer_names(host: str, cfg: config.ServeConfig, computer: str) -> set[str]:
    """The DNS names a request's Host may carry: loopback's, this computer's, the configured."""
    names = {"localhost", host, computer, socket.gethostname(), *cfg.names}
    names |= {n.split(".")[0] for n in list(names)}
    return {n.lower().rstrip(".") for n in names if n}


def token_watch(initial: str) -> Callable[[], str]:
    """The configured token hash, re-read when config.toml changes (one stat a request),
    so `recall serve --new-token` revokes the old token on a running daemon at once."""
    path = config.config_path()
    lock = threading.Lock()
    seen: list[Any] = [_stamp(path), initial]

    def current() -> str:
        stamp = _stamp(path)
        with lock:
            if stamp != seen[0]:
                seen[0] = stamp
                config.forget_loaded()
                try:
                    fresh = config.load_config().serve.token_sha256
                except ConfigError as exc:  # a half-edited file: keep the token we had
                    log_line(f"config not re-read, the token stays: {exc}")
                    fresh = None
                if fresh:
                    seen[1] = fresh
            return str(seen[1])

    return current


def token_holder(current: Callable[[], str]) -> Callable[[], str | None]:
    """The token in serve.token while its hash is the configured one (re-read when the file
    or the hash changes), else None: what lets the daemon answer a client's challenge."""
    from recall.peers.auth import digest, read_token, token_path

    path = token_path()
    lock = threading.Lock()
    seen: list[Any] = [object(), None, None]  # the file's stamp, the hash, the token

    def own() -> str | None:
        want = current()
        stamp = _stamp(path)
        with lock:
            if [stamp, want] != seen[:2]:
                try:
                    token: str | None = read_token(path)
                except ConfigError:
                    token = None
                if token is not None and digest(token.encode("ascii")) != want:
                    token = None
                seen[:] = [stamp, want, token]
            return seen[2]  # type: ignore[no-any-return]

    return own


def _stamp(path: Path) -> tuple[int, int, int] | None:
    try:
        st = path.stat()
    except OSError:
        return None
    return (st.st_mtime_ns, st.st_size, st.st_ino)


def _write_state(server: Server, tls: bool) -> Path:
    path = state_path()
    host, port = server.server_address[:2]
    state = {
        "pid": os.getpid(),
        "host": host,
        "port": port,
        "scheme": "https" if tls else "http",
        "api": API_VERSION,
        "started": time.time(),
    }
    tmp = path.with_name(f".{path.name}.{os.getpid()}")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        json.dump(state, fh)
    os.replace(tmp, path)
    return path


def _refuse_second() -> None:
    """One daemon per index: a live one named in serve.json is a usage error."""
    state = running_daemon()
    if state is not None and state.pid != os.getpid():
        raise UsageError(f"a daemon already serves this index (pid {state.pid}, port {state.port})")


def _remove_state(path: Path) -> None:
    try:
        if json.loads(path.read_text(encoding="utf-8")).get("pid") == os.getpid():
            path.unlink()
    except (OSError, ValueError):
        pass


def serve(host: str, port: int, announce: Callable[[str], None], worker: bool = True) -> int:
    cfg = config.load_config().serve
    if not cfg.token_sha256:  # every route but health needs one (cli/serve.py makes it)
        raise UsageError("no token yet: run `recall serve --new-token` first")
    if not 1 <= cfg.max_connections <= 1024 or not 0 < cfg.request_timeout <= 300:
        raise ConfigError("[serve] max_connections must be 1–1024, request_timeout 0–300 s")
    _refuse_second()
    computer = config.computer_name()
    tls = tls_context(cfg)
    jobs = Worker(computer, cfg.sync_minutes * 60, log_line)

    def detail() -> dict[str, Any]:
        from recall.semantic import provider

        return {**index_detail(), "worker": dict(jobs.state), "model_loaded": provider.query_loaded}

    settings = Settings(
        host=host,
        port=port,
        token_sha256=cfg.token_sha256,
        names=answer_names(host, cfg, computer),
        computer=computer,
        max_connections=cfg.max_connections,
        request_timeout=cfg.request_timeout,
        tls=tls,
        detail=detail,
        current_token=(current := token_watch(cfg.token_sha256)),
        own_token=token_holder(current),
    )
    try:
        server = Server(settings)
    except OSError as exc:
        raise UsageError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None
    state = _write_state(server, tls is not None)
    stop = threading.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: stop.set())
    loop = threading.Thread(target=server.serve_forever, args=(0.2,), name="recall-accept")
    loop.start()
    bound = server.server_address
    scheme = "https" if tls else "http"
    announce(
        f"recall serve: {computer} listening on {scheme}://{_hostport(bound)} (API {API_VERSION})"
    )
    if worker:
        jobs.start()
    threading.Thread(target=_warm, name="recall-warm", daemon=True).start()
    try:
        while not stop.wait(0.5):
            pass
    finally:
        log_line("stopping: finishing requests in flight")
        server.shutdown()
        loop.join()
        server.server_close()  # no new connections
        cut = server.drain(cfg.request_timeout)
        if cut:
            log_line(f"{cut} request(s) still in flight after {cfg.request_timeout:g}s: cut off")
        if not jobs.stop():
            log_line("worker did not stop in time; its open transaction rolls back")
        _remove_state(state)
        log_line("stopped")
    return 0


def _warm() -> None:
    """Load the search model now (docs/serve.md): the CLI, the MCP tools and context send
    their semantic and hybrid searches here to skip that load, so the first should too."""
    from recall.semantic.provider import warm_up

    try:
        why = warm_up()
    except Exception as exc:  # a warm-up that fails leaves searches to load it themselves
        why = f"{type(exc).__name__}: {exc}"
    if why:
        log_line(f"search model not loaded ahead: {why}")


def _hostport(address: Any) -> str:
    host, port = address[:2]
    return f"[{host}]:{port}" if ":" in str(host) else f"{host}:{port}"
