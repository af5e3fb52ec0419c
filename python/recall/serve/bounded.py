"""What one connection may cost: bytes of request head, seconds to send it, a slot,
and how long it may hold the daemon up when it is told to stop.

The standard library's handler reads the request through a buffered file
with one socket timeout per `recv`, so a client sending a byte a second
never times out, and it accepts 100 header lines of 64 KiB each. This
reader gives the whole head one deadline and one byte budget instead.
Its `server_close` waits for every request thread without bound, so a
client reading a large answer slowly kept a stopping daemon alive: the
requests in flight are tracked here and cut off after a grace period.
"""

from __future__ import annotations

import contextlib
import socket
import threading
import time

HEAD_BYTES = 16 * 1024
"""Request line plus headers."""
RESPONSE_TIMEOUT = 30.0
"""Seconds a client may take to read a response before the connection is dropped."""


class HeadTooLarge(Exception):
    """The request line and headers exceeded HEAD_BYTES."""


class HeadReader:
    """A minimal file over a socket for `BaseHTTPRequestHandler`: `readline`, `read`, `close`,
    all bound by one deadline, and by a byte budget (no route reads a body)."""

    def __init__(self, sock: socket.socket, deadline: float, budget: int = HEAD_BYTES) -> None:
        self.sock = sock
        self.deadline = deadline
        self.budget = budget
        self.buffer = b""
        self.eof = False

    def _fill(self) -> None:
        left = self.deadline - time.monotonic()
        if left <= 0:
            raise TimeoutError("request not received in time")
        self.sock.settimeout(left)
        data = self.sock.recv(4096)
        if not data:
            self.eof = True
        self.buffer += data

    def readline(self, limit: int = -1) -> bytes:
        cap = self.budget + 1 if limit < 0 else min(limit, self.budget + 1)
        while b"\n" not in self.buffer and len(self.buffer) < cap and not self.eof:
            self._fill()
        end = self.buffer.find(b"\n") + 1 or len(self.buffer)
        end = min(end, cap)
        line, self.buffer = self.buffer[:end], self.buffer[end:]
        self.budget -= len(line)
        if self.budget < 0:
            raise HeadTooLarge
        return line

    def read(self, n: int = -1) -> bytes:
        if n < 0:
            raise ValueError("unbounded read")
        while len(self.buffer) < n and not self.eof:
            self._fill()
        out, self.buffer = self.buffer[:n], self.buffer[n:]
        return out

    def close(self) -> None:
        self.buffer = b""


class InFlight:
    """The connections being served, by the thread serving each."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.active: dict[threading.Thread, socket.socket] = {}

    def add(self, sock: socket.socket) -> None:
        with self.lock:
            self.active[threading.current_thread()] = sock

    def remove(self) -> None:
        with self.lock:
            self.active.pop(threading.current_thread(), None)

    def drain(self, grace: float, join_s: float = 5.0) -> int:
        """Wait up to `grace` seconds for every request to finish, then shut the sockets of
        the rest (a blocked send or read fails at once) and wait up to `join_s` for their
        threads; returns how many were cut off."""
        deadline = time.monotonic() + grace
        while time.monotonic() < deadline:
            with self.lock:
                if not self.active:
                    return 0
            time.sleep(0.05)
        with self.lock:
            left = list(self.active.items())
        for _, sock in left:
            with contextlib.suppress(OSError):  # the plain socket's: SSL's would send first
                socket.socket.shutdown(sock, socket.SHUT_RDWR)
        until = time.monotonic() + join_s
        for thread, _ in left:
            thread.join(max(0.0, until - time.monotonic()))
        return len(left)
