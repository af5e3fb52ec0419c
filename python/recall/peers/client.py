"""Asking one daemon: a GET with the token, one deadline, the API version checked.

`http.client` rather than `urllib`: no proxy variables, no redirects, one
connection per request, and a body read that is capped. Whatever a peer
sends is untrusted: its text is cleaned before it reaches a message
(`peer_text`), its JSON before it reaches a record (`parse_json`).
"""

from __future__ import annotations

import contextlib
import hmac
import http.client
import json
import math
import socket
import ssl
import threading
from collections.abc import Iterator
from typing import Any
from urllib.parse import quote, urlencode, urlsplit

from recall.errors import RecallError
from recall.peers.protocol import API_HEADER, API_VERSION, HEALTH
from recall.textutil import printable, scrub, shorten

MAX_JSON = 32 * 1024 * 1024
MAX_DEPTH = 64
"""Nesting a peer's answer may have: recall's own answers need 4."""


class PeerError(RecallError):
    """One peer could not answer; the message is the one line shown for it."""


def url_problem(url: str) -> str | None:
    """Why `url` cannot be a peer's base URL, or None: http(s), a host, a port in range,
    no credentials, query, fragment, whitespace, control characters or quotes."""
    if any(c.isspace() or ord(c) < 32 or ord(c) == 127 or c in "\"'<>`" for c in url):
        return "it holds whitespace, a control character or a quote"
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError as exc:
        return str(exc)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return "it is not an http:// or https:// URL with a host"
    if port == 0:
        return "port 0 cannot be reached"
    if "@" in parts.netloc:
        return "credentials go in --token-file, never the URL"
    if parts.query or parts.fragment or url.endswith(("?", "#")):
        return "a peer's base URL takes no query string or fragment"
    return None


class _Watchdog:
    """A deadline for one connection: when it passes, the socket is shut down, so a read
    blocked on a peer that drips a byte at a time returns at once (a socket timeout is per
    `recv` and never fires while bytes keep coming)."""

    def __init__(self, conn: http.client.HTTPConnection) -> None:
        self.conn = conn
        self.sock: socket.socket | None = None
        """Kept once connected: `http.client` lets go of it when the response takes over."""
        self.fired = False
        self.timer: threading.Timer | None = None

    def arm(self, seconds: float) -> None:
        self.cancel()
        self.timer = threading.Timer(seconds, self._fire)
        self.timer.daemon = True
        self.timer.start()

    def _fire(self) -> None:
        self.fired = True
        sock = self.sock or self.conn.sock
        if sock is not None:
            with contextlib.suppress(
                OSError
            ):  # the plain socket's shutdown: an SSL one would try to talk first
                socket.socket.shutdown(sock, socket.SHUT_RDWR)

    def cancel(self) -> None:
        if self.timer is not None:
            self.timer.cancel()
            self.timer = None


class Reply:
    """A 200 response still to be read, its connection, and the deadline it is read under."""

    def __init__(self, response: http.client.HTTPResponse, watchdog: _Watchdog) -> None:
        self.response = response
        self.watchdog = watchdog

    def close(self) -> None:
        self.watchdog.cancel()
        self.response.close()
        self.watchdog.conn.close()


class Target:
    """Where a daemon is and how to prove who we are to it.

    Every call has one deadline (`timeout`) for the whole answer; a transcript, which
    may be large, gets `timeout` for its head and again for each 64 KiB after.
    With `prove`, the token is sent only once the listener has shown it holds the token
    too (`auth.proof` over a fresh challenge and the port dialled): a stranger that took
    a dead daemon's port gets nothing."""

    def __init__(
        self,
        url: str,
        token: str | None,
        timeout: float,
        ca_file: str | None = None,
        check_hostname: bool = True,
        prove: bool = False,
    ) -> None:
        problem = url_problem(url)
        if problem is not None:
            raise PeerError(f"{url!r} cannot be a peer's URL: {problem}")
        parts = urlsplit(url)
        self.url = url
        self.https = parts.scheme == "https"
        self.host = parts.hostname or ""  # url_problem checked there is one
        self.port = parts.port or (443 if self.https else 80)
        self.prefix = parts.path.rstrip("/")
        self.token = token
        self.timeout = timeout
        self.ca_file = ca_file
        self.check_hostname = check_hostname
        self.prove = prove and token is not None
        self.proven = False

    def _connection(self, timeout: float) -> http.client.HTTPConnection:
        if not self.https:
            return http.client.HTTPConnection(self.host, self.port, timeout=timeout)
        ctx = ssl.create_default_context(cafile=self.ca_file)
        ctx.check_hostname = self.check_hostname  # off only with a pinned certificate
        return http.client.HTTPSConnection(self.host, self.port, timeout=timeout, context=ctx)

    def request(
        self,
        path: str,
        params: list[tuple[str, str]] | None = None,
        extra: dict[str, str] | None = None,
        send_token: bool = True,
    ) -> Reply:
        """GET `path`; the reply once its status is 200, else PeerError with why."""
        if send_token and self.prove and not self.proven:
            self._check_proof()
        target = self.prefix + path + ("?" + urlencode(params) if params else "")
        conn = self._connection(self.timeout)
        watchdog = _Watchdog(conn)
        headers = {API_HEADER: str(API_VERSION), "Accept": "application/json", **(extra or {})}
        if self.token and send_token:
            headers["Authorization"] = f"Bearer {self.token}"
        watchdog.arm(self.timeout)
        try:
            conn.request("GET", target, headers=headers)
            watchdog.sock = conn.sock
            if watchdog.fired:  # it fired while connecting, before there was a socket
                raise TimeoutError
            response = conn.getresponse()
        except (OSError, http.client.HTTPException) as exc:
            watchdog.cancel()
            conn.close()
            raise self._failure(exc, watchdog.fired) from None
        reply = Reply(response, watchdog)
        try:
            if watchdog.fired:  # the head was cut off at the deadline: what came is partial
                raise TimeoutError
            self._check_answer(response)
        except (OSError, http.client.HTTPException) as exc:
            reply.close()
            raise self._failure(exc, watchdog.fired) from None
        except PeerError:
            reply.close()
            raise
        return reply

    def _failure(self, exc: BaseException, late: bool) -> PeerError:
        if late or isinstance(exc, TimeoutError):
            return PeerError(f"no answer within {self.timeout:g}s")
        if isinstance(exc, ssl.SSLError):
            return PeerError(f"TLS failed: {exc.reason or exc}")
        if isinstance(exc, OSError):
            return PeerError(f"unreachable ({exc.strerror or exc})")
        return PeerError(f"not an HTTP answer ({type(exc).__name__})")

    def _check_answer(self, response: http.client.HTTPResponse) -> None:
        spoken = response.getheader(API_HEADER)
        if spoken is None:
            raise PeerError(f"not a recall daemon (HTTP {response.status}, no {API_HEADER} header)")
        if spoken.strip() != str(API_VERSION):
            raise PeerError(
                f"speaks API {peer_text(spoken.strip(), 8)}, this recall speaks {API_VERSION}:"
                " upgrade one"
            )
        if response.status != 200:
            raise PeerError(f"HTTP {response.status}: {_error_text(response)}")

    def _check_proof(self) -> None:
        """PeerError unless the listener answers a fresh challenge with `auth.proof`."""
        from recall.peers.auth import CHALLENGE_HEADER, PROOF_HEADER, new_challenge, proof

        assert self.token is not None
        nonce = new_challenge()
        refused = PeerError("the listener did not prove it is this computer's daemon")
        try:  # whatever it answered, it is not our daemon's answer: no other error is shown
            reply = self.request(HEALTH, extra={CHALLENGE_HEADER: nonce}, send_token=False)
        except PeerError:
            raise refused from None
        try:
            shown = reply.response.getheader(PROOF_HEADER) or ""
        finally:
            reply.close()
        if not hmac.compare_digest(shown.strip(), proof(self.token, nonce, self.port)):
            raise refused
        self.proven = True

    def get_json(self, path: str, params: list[tuple[str, str]] | None = None) -> Any:
        """The answer to GET `path` as JSON, whole within the deadline, with no lone
        surrogate and no nesting past MAX_DEPTH; PeerError otherwise."""
        reply = self.request(path, params)
        try:
            body = reply.response.read(MAX_JSON + 1)
        except (OSError, http.client.HTTPException):
            late = reply.watchdog.fired
            raise PeerError(
                f"no answer within {self.timeout:g}s" if late else "the answer was cut off"
            ) from None
        finally:
            reply.close()
        if reply.watchdog.fired:  # shut down mid-read: what came is only part of it
            raise PeerError(f"no answer within {self.timeout:g}s")
        if reply.response.length:  # fewer bytes than Content-Length: http.client says nothing
            raise PeerError("the answer was cut off")
        if len(body) > MAX_JSON:
            raise PeerError("the answer is too large")
        return parse_json(body)

    def stream(self, path: str) -> Iterator[bytes]:
        """A transcript's bytes: the head within the deadline, then each 64 KiB within it."""
        reply = self.request(path)
        try:
            while True:
                reply.watchdog.arm(self.timeout)
                chunk = reply.response.read(1 << 16)
                if reply.watchdog.fired:
                    raise PeerError(f"the transfer stalled: under 64 KiB in {self.timeout:g}s")
                if not chunk:
                    if reply.response.length:  # fewer bytes than Content-Length
                        raise PeerError("the transfer was cut off")
                    return
                yield chunk
        except (OSError, http.client.HTTPException):
            if reply.watchdog.fired:
                raise PeerError(
                    f"the transfer stalled: under 64 KiB in {self.timeout:g}s"
                ) from None
            raise PeerError("the transfer was cut off") from None
        finally:
            reply.close()


def parse_json(body: bytes) -> Any:
    """A peer's JSON answer, its strings' lone surrogates replaced (no print or core call
    can take one) and its depth checked; PeerError when it is not such JSON, or holds a
    number that is not finite (which `--json` could not print)."""
    try:
        data = json.loads(body, parse_constant=_no_constant, parse_float=_finite)
    except RecursionError:
        raise PeerError("the answer is nested too deeply") from None
    except ValueError:
        raise PeerError("the answer is not JSON") from None
    return _cleaned(data, 0)


def _no_constant(name: str) -> float:
    raise ValueError(f"{name} is not JSON")  # NaN, Infinity: no JSON recall writes holds them


def _finite(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):  # 1e999
        raise ValueError("a number out of range")
    return value


def _cleaned(value: Any, depth: int) -> Any:
    if isinstance(value, str):
        return scrub(value)
    if depth >= MAX_DEPTH and isinstance(value, dict | list):
        raise PeerError("the answer is nested too deeply")
    if isinstance(value, dict):
        return {scrub(k): _cleaned(v, depth + 1) for k, v in value.items()}
    if isinstance(value, list):
        return [_cleaned(v, depth + 1) for v in value]
    return value


def peer_text(text: str, limit: int = 300) -> str:
    """Text a peer sent, fit for one line of a message: no escape sequence, control or
    bidi character (`textutil.printable`), whitespace collapsed, at most `limit` long."""
    return shorten(printable(scrub(text)), limit)


def mirror_path(session: str, transcript: bool = False) -> str:
    from recall.peers.protocol import MIRRORS

    return MIRRORS + quote(session, safe="") + ("/transcript" if transcript else "")


def _error_text(response: http.client.HTTPResponse) -> str:
    """The `error` of a refusal, as one clean line (the peer wrote it)."""
    try:
        data = parse_json(response.read(64 * 1024))
        why = data.get("error", "error") if isinstance(data, dict) else "error"
        return peer_text(str(why))
    except (PeerError, OSError, http.client.HTTPException):
        return peer_text(response.reason or "error")
