"""Asking one daemon: a GET with the token, a timeout, the API version checked.

`http.client` rather than `urllib`: no proxy variables, no redirects, one
connection per request, and a body read that is capped.
"""

from __future__ import annotations

import http.client
import json
import ssl
import time
from collections.abc import Iterator
from typing import Any
from urllib.parse import quote, urlencode, urlsplit

from recall.errors import RecallError
from recall.peers.protocol import API_HEADER, API_VERSION

MAX_JSON = 32 * 1024 * 1024


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


class Target:
    """Where a daemon is and how to prove who we are to it."""

    def __init__(
        self,
        url: str,
        token: str | None,
        timeout: float,
        ca_file: str | None = None,
        check_hostname: bool = True,
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

    def _connection(self, timeout: float) -> http.client.HTTPConnection:
        if not self.https:
            return http.client.HTTPConnection(self.host, self.port, timeout=timeout)
        ctx = ssl.create_default_context(cafile=self.ca_file)
        ctx.check_hostname = self.check_hostname  # off only with a pinned certificate
        return http.client.HTTPSConnection(self.host, self.port, timeout=timeout, context=ctx)

    def request(
        self, path: str, params: list[tuple[str, str]] | None = None, timeout: float | None = None
    ) -> http.client.HTTPResponse:
        """GET `path`; the response once its status is 200, else PeerError with why."""
        target = self.prefix + path + ("?" + urlencode(params) if params else "")
        conn = self._connection(timeout or self.timeout)
        headers = {API_HEADER: str(API_VERSION), "Accept": "application/json"}
        if self.token:
            headers["Authorization"] = f"Bearer {self.token}"
        try:
            conn.request("GET", target, headers=headers)
            response = conn.getresponse()
        except TimeoutError:
            conn.close()
            raise PeerError(f"no answer within {timeout or self.timeout:g}s") from None
        except ssl.SSLError as exc:
            conn.close()
            raise PeerError(f"TLS failed: {exc.reason or exc}") from None
        except OSError as exc:
            conn.close()
            raise PeerError(f"unreachable ({exc.strerror or exc})") from None
        except http.client.HTTPException as exc:
            conn.close()
            raise PeerError(f"not an HTTP answer ({type(exc).__name__})") from None
        spoken = response.getheader(API_HEADER)
        if spoken is None:
            conn.close()
            raise PeerError(f"not a recall daemon (HTTP {response.status}, no {API_HEADER} header)")
        if spoken.strip() != str(API_VERSION):
            conn.close()
            raise PeerError(
                f"speaks API {spoken.strip()[:8]}, this recall speaks {API_VERSION}: upgrade one"
            )
        if response.status != 200:
            why = _error_text(response)
            conn.close()
            raise PeerError(f"HTTP {response.status}: {why}")
        return response

    def get_json(self, path: str, params: list[tuple[str, str]] | None = None) -> Any:
        response = self.request(path, params)
        try:
            body = response.read(MAX_JSON + 1)
        except (OSError, http.client.HTTPException):
            raise PeerError("the answer was cut off") from None
        finally:
            response.close()
        if len(body) > MAX_JSON:
            raise PeerError("the answer is too large")
        try:
            return json.loads(body)
        except ValueError:
            raise PeerError("the answer is not JSON") from None

    def stream(self, path: str) -> Iterator[bytes]:
        response = self.request(path)
        try:
            while chunk := response.read(1 << 16):
                yield chunk
        except (OSError, http.client.HTTPException):
            raise PeerError("the transfer was cut off") from None
        finally:
            response.close()


def mirror_path(session: str, transcript: bool = False) -> str:
    from recall.peers.protocol import MIRRORS

    return MIRRORS + quote(session, safe="") + ("/transcript" if transcript else "")


def _error_text(response: http.client.HTTPResponse) -> str:
    try:
        data = json.loads(response.read(64 * 1024))
        return str(data.get("error", "error"))[:300]
    except (ValueError, OSError, AttributeError, http.client.HTTPException):
        return response.reason or "error"


def timed(call: Any) -> tuple[Any, float]:
    started = time.perf_counter()
    return call(), time.perf_counter() - started
