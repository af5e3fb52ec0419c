"""The HTTP machinery: stdlib `ThreadingHTTPServer`, bounded, checked before any route runs.

Order of checks on a request: the head within its deadline and byte budget
(`bounded`), GET or HEAD only, a Host this daemon answers to (DNS
rebinding), no browser (`Origin`, `Sec-Fetch-*`), the API version, no body,
a well-formed query string with no token in it, then the token (every route
but health). Only then does a route run. Logs name the route template and
the status, never a header, a query string or a path as sent.
"""

from __future__ import annotations

import io
import ipaddress
import json
import re
import socket
import socketserver
import ssl
import sys
import threading
import time
from collections.abc import Callable, Iterator
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

from recall.errors import ConfigError, NotFoundError, RecallError, StoreError, UsageError
from recall.peers.auth import CHALLENGE_HEADER, PROOF_HEADER, check_bearer, proof, valid_challenge
from recall.peers.protocol import API_HEADER, API_VERSION, HEALTH, MIRRORS, SEARCH, TOKEN_PARAMS
from recall.record import Record
from recall.serve import routes
from recall.serve.bounded import RESPONSE_TIMEOUT, HeadReader, HeadTooLarge, InFlight

BROWSER_HEADERS = ("Origin", "Sec-Fetch-Site", "Sec-Fetch-Mode")
_BAD_ESCAPE = re.compile(r"%(?![0-9A-Fa-f]{2})")


class Settings(Record):
    host: str
    port: int
    token_sha256: str
    names: set[str]
    """Host names answered to (lower case); any IP literal is answered too."""
    computer: str
    max_connections: int = 32
    request_timeout: float = 10.0
    tls: ssl.SSLContext | None = None
    detail: Callable[[], dict[str, Any]] | None = None
    """What an authenticated health check adds (the index, the worker)."""
    current_token: Callable[[], str] | None = None
    """The token hash now (`serve --new-token` rewrites config under a running daemon)."""
    own_token: Callable[[], str | None] | None = None
    """The token itself, when the daemon can read it: what answers a client's challenge."""


def log_line(text: str) -> None:
    stamp = time.strftime("%Y-%m-%dT%H:%M:%S")
    try:
        sys.stderr.write(f"{stamp} recall serve: {text}\n")
        sys.stderr.flush()
    except (OSError, ValueError):
        pass


def host_allowed(header: str | None, names: set[str]) -> bool:
    """Whether a Host header names this daemon: an IP literal, or one of `names` (any port)."""
    if not header:
        return False
    host = header.strip().lower()
    if host.startswith("["):
        host = host[1 : host.find("]")] if "]" in host else ""
    elif host.count(":") == 1:
        host, _, port = host.partition(":")
        if not port.isdigit():
            return False
    host = host.rstrip(".")
    try:
        ipaddress.ip_address(host)
        return True
    except ValueError:
        return host in names


class _Writer(io.BufferedIOBase):
    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock

    def writable(self) -> bool:
        return True

    def write(self, data: Any) -> int:
        self.sock.sendall(data)
        return len(data)


class Handler(BaseHTTPRequestHandler):
    server: Server
    protocol_version = "HTTP/1.0"  # one request per connection: nothing idles between requests
    server_version = "recall"
    sys_version = ""

    def setup(self) -> None:
        self.connection = self.request
        self.request_version, self.command, self.requestline = "HTTP/1.0", "", ""
        self.close_connection = True
        self.route = "-"
        settings = self.server.settings
        self.deadline = time.monotonic() + settings.request_timeout
        self.alive = True
        self.wfile = _Writer(self.connection)
        self.rfile = HeadReader(self.connection, self.deadline)  # type: ignore[assignment]
        if isinstance(self.connection, ssl.SSLSocket):  # here, not in accept(): see bounded.py
            try:
                self.connection.settimeout(settings.request_timeout)
                self.connection.do_handshake()
            except (OSError, ValueError):  # stalled, refused or garbled: drop it
                self.alive = False

    def handle(self) -> None:
        if not self.alive:
            return
        try:
            self.raw_requestline = self.rfile.readline(65537)
            if not self.raw_requestline:
                return
            if not self.parse_request():
                return
            self.connection.settimeout(RESPONSE_TIMEOUT)
            if self.request_version == "HTTP/0.9":  # no headers: no Host, no token
                self.request_version = "HTTP/1.0"
                return self.send_error(400, "HTTP/0.9 is not served")
            self.respond()
        except HeadTooLarge:
            self.connection.settimeout(RESPONSE_TIMEOUT)
            self.send_error(431, "request head too large")
        except OSError:  # timed out, reset, or gone: nothing to answer
            pass

    def finish(self) -> None:
        pass

    # --- replies ---------------------------------------------------------------------

    def send_error(self, code: int, message: str | None = None, explain: str | None = None) -> None:
        """Every refusal, the stdlib's included, as JSON; the stdlib's 5xx for a client's
        garbage (505 for an HTTP/2 request line) is a client error: 400."""
        if code >= 500 and self.route == "-":
            code = 400
        extra = {"WWW-Authenticate": 'Bearer realm="recall"'} if code == 401 else {}
        if code == 405:
            extra["Allow"] = "GET, HEAD"
        self.reply(code, {"error": message or HTTPStatus(code).phrase, "status": code}, extra)

    def reply(self, code: int, data: Any, extra: dict[str, str] | None = None) -> None:
        body = json.dumps(data, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
        self.send(code, "application/json; charset=utf-8", iter([body.encode()]), extra)

    def send(
        self,
        code: int,
        kind: str,
        body: Iterator[bytes],
        extra: dict[str, str] | None = None,
    ) -> None:
        self.log_status(code)
        if self.request_version == "HTTP/0.9":  # a request line the stdlib could not parse
            self.request_version = "HTTP/1.0"  # still gets a status line and headers
        self.send_response_only(code)
        self.send_header("Server", "recall")
        self.send_header("Content-Type", kind)
        self.send_header(API_HEADER, str(API_VERSION))
        self.send_header("Cache-Control", "no-store")
        self.send_header("X-Content-Type-Options", "nosniff")
        self.send_header("Connection", "close")
        for name, value in (extra or {}).items():
            self.send_header(name, value)
        self.end_headers()
        if self.command == "HEAD":
            return
        pending: list[bytes] = []
        size = 0
        for chunk in body:  # a transcript comes a line at a time: send 64 KiB at a time
            pending.append(chunk)
            size += len(chunk)
            if size >= 1 << 16:
                self.wfile.write(b"".join(pending))
                pending, size = [], 0
        if pending:
            self.wfile.write(b"".join(pending))

    def log_status(self, code: int) -> None:
        method = self.command if self.command in ("GET", "HEAD", "POST", "PUT", "DELETE") else "-"
        log_line(f"{self.client_address[0]} {method} {self.route} {code}")

    def log_message(self, format: str, *args: Any) -> None:
        """Silenced: the stdlib's lines quote the request line, which may carry a token."""

    # --- checks, then the route ------------------------------------------------------------

    def respond(self) -> None:
        if self.command not in ("GET", "HEAD"):
            return self.send_error(405, "only GET and HEAD")
        settings = self.server.settings
        hosts = self.headers.get_all("Host") or []
        if len(hosts) > 1:
            return self.send_error(400, "more than one Host header")
        if not host_allowed(self.headers.get("Host"), settings.names):
            return self.send_error(421, "this daemon does not answer to that Host")
        if any(self.headers.get(h) is not None for h in BROWSER_HEADERS):
            return self.send_error(403, "browsers may not call recall's API")
        asked = self.headers.get(API_HEADER)
        if asked is not None and asked.strip() != str(API_VERSION):
            return self.send_error(400, f"this daemon speaks {API_HEADER} {API_VERSION}")
        if not self.drain_body():
            return
        if not self.path.startswith("/"):
            return self.send_error(400, "the request target must be a path")
        parts = urlsplit(self.path)
        if _BAD_ESCAPE.search(self.path):
            return self.send_error(400, "malformed percent-escape")
        try:
            params = parse_qs(
                parts.query,
                keep_blank_values=True,
                strict_parsing=bool(parts.query),
                max_num_fields=64,
                errors="strict",
            )
        except (ValueError, UnicodeDecodeError):
            return self.send_error(400, "malformed query string")
        if TOKEN_PARAMS & {k.lower() for k in params}:
            return self.send_error(400, "tokens go in the Authorization header, never the URL")
        expected = settings.current_token() if settings.current_token else settings.token_sha256
        authorized = check_bearer(self.headers.get("Authorization"), expected)
        if parts.path == HEALTH:
            self.route = HEALTH
            return self.run_route(
                lambda: routes.health(settings.computer, (authorized and settings.detail) or None),
                extra=self.proof(),
            )
        if not authorized:
            return self.send_error(401, "a valid `Authorization: Bearer <token>` is required")
        self.dispatch(parts.path, params)

    def proof(self) -> dict[str, str]:
        """The answer to a client's challenge (`auth.proof`), when one came and the daemon
        holds its token; none otherwise, and the client then keeps its token."""
        challenge = self.headers.get(CHALLENGE_HEADER)
        own = self.server.settings.own_token
        token = own() if own is not None and valid_challenge(challenge) else None
        if token is None or challenge is None:
            return {}
        return {PROOF_HEADER: proof(token, challenge, int(self.server.server_address[1]))}

    def drain_body(self) -> bool:
        """No route takes a body: one announced is refused at once, never waited for
        (a client sending `Expect: 100-continue` would otherwise wait out the deadline)."""
        if self.headers.get("Transfer-Encoding") is not None:
            self.send_error(400, "no request body is accepted")
            return False
        lengths = self.headers.get_all("Content-Length") or []
        if len(lengths) > 1:
            self.send_error(400, "more than one Content-Length header")
            return False
        if not lengths:
            return True
        if not lengths[0].strip().isdigit():
            self.send_error(400, "bad Content-Length")
            return False
        if int(lengths[0]) > 0:
            self.send_error(413, "no request body is accepted")
            return False
        return True

    def dispatch(self, path: str, params: dict[str, list[str]]) -> None:
        if path == SEARCH:
            self.route = SEARCH
            return self.run_route(lambda: routes.search(params))
        if not path.startswith(MIRRORS):
            return self.send_error(404, "no such route")
        segments = path[len(MIRRORS) :].split("/")
        try:
            ref = unquote(segments[0], errors="strict")
        except UnicodeDecodeError:
            return self.send_error(400, "bad session id: not UTF-8")
        if len(segments) == 1:
            self.route = MIRRORS + "{id}"
            return self.run_route(lambda: routes.mirror(ref, params))
        if len(segments) == 2 and segments[1] == "transcript":
            self.route = MIRRORS + "{id}/transcript"
            return self.run_route(lambda: routes.transcript(ref, params), raw=True)
        return self.send_error(404, "no such route")

    def run_route(
        self, answer: Callable[[], Any], raw: bool = False, extra: dict[str, str] | None = None
    ) -> None:
        try:
            data = answer()
        except UsageError as exc:
            return self.send_error(400, str(exc))
        except NotFoundError as exc:
            return self.send_error(404, str(exc))
        except (StoreError, ConfigError) as exc:
            return self.reply(503, {"error": str(exc), "status": 503})
        except RecallError as exc:
            return self.send_error(400, str(exc))
        except Exception as exc:  # a bug: one line in the log, no traceback to the client
            log_line(f"internal error on {self.route}: {type(exc).__name__}: {exc}")
            return self.reply(
                500, {"error": "internal error (see the daemon's log)", "status": 500}
            )
        if raw:
            self.send(200, "application/octet-stream", data, extra)
        else:
            self.reply(200, data, extra)


class Server(ThreadingHTTPServer):
    """One thread per connection, at most `max_connections` at once; TLS wrapped lazily.

    Request threads are tracked here, not by the stdlib (whose `server_close` would
    wait for each without bound): `drain` waits a grace period, then cuts off the rest."""

    daemon_threads = True
    block_on_close = False
    request_queue_size = 128

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.slots = threading.BoundedSemaphore(settings.max_connections)
        self.in_flight = InFlight()
        infos = socket.getaddrinfo(settings.host, settings.port, type=socket.SOCK_STREAM)
        self.address_family = infos[0][0]
        host, port = str(infos[0][4][0]), int(infos[0][4][1])
        super().__init__((host, port), Handler)

    def server_bind(self) -> None:  # the stdlib's looks up a FQDN, which can stall on DNS
        socketserver.TCPServer.server_bind(self)
        self.server_name, self.server_port = (
            str(self.server_address[0]),
            int(self.server_address[1]),
        )

    def get_request(self) -> tuple[Any, Any]:
        sock, addr = self.socket.accept()
        if self.settings.tls is not None:
            sock = self.settings.tls.wrap_socket(
                sock, server_side=True, do_handshake_on_connect=False
            )
        return sock, addr

    def process_request(self, request: Any, client_address: Any) -> None:
        if not self.slots.acquire(blocking=False):
            self.refuse(request)
            return
        try:
            super().process_request(request, client_address)
        except BaseException:
            self.slots.release()
            raise

    def process_request_thread(self, request: Any, client_address: Any) -> None:
        self.in_flight.add(request)
        try:
            super().process_request_thread(request, client_address)
        finally:
            self.in_flight.remove()
            self.slots.release()

    def drain(self, grace: float) -> int:
        """`bounded.InFlight.drain` over this server's requests: how many were cut off."""
        return self.in_flight.drain(grace)

    def refuse(self, request: socket.socket) -> None:
        """Too many connections: a plain client gets 429 at once, a TLS one a closed socket."""
        try:
            if not isinstance(request, ssl.SSLSocket):
                request.setblocking(False)
                request.send(
                    b"HTTP/1.0 429 Too Many Requests\r\nConnection: close\r\n"
                    b"Retry-After: 1\r\nContent-Length: 0\r\n\r\n"
                )
        except OSError:
            pass
        self.shutdown_request(request)

    def handle_error(self, request: Any, client_address: Any) -> None:
        exc = sys.exc_info()[1]
        log_line(f"connection error: {type(exc).__name__}: {exc}")
