"""Hostile peers for tests: tiny HTTP servers on 127.0.0.1 that answer whatever a test
wants (drip, nest, lie), each bounded in time so a test that would hang ends by itself."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Callable

LIFETIME_S = 25.0
"""No hostile peer lives longer: a test that would hang on old code ends by itself."""

Answer = Callable[[bytes, socket.socket, threading.Event], None]


class Peer:
    """A server on 127.0.0.1 answering every request with `answer`; it records each
    request head it received."""

    def __init__(self, answer: Answer) -> None:
        self.answer = answer
        self.heads: list[bytes] = []
        self.stop = threading.Event()
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.sock.settimeout(0.1)
        self.port = int(self.sock.getsockname()[1])
        self.url = f"http://127.0.0.1:{self.port}"
        self.thread = threading.Thread(target=self._loop, daemon=True)
        self.thread.start()

    def _loop(self) -> None:
        ends = time.monotonic() + LIFETIME_S
        while not self.stop.is_set() and time.monotonic() < ends:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                continue
            threading.Thread(target=self._one, args=(conn,), daemon=True).start()
        self.stop.set()
        self.sock.close()

    def _one(self, conn: socket.socket) -> None:
        conn.settimeout(5)
        head = b""
        try:
            while b"\r\n\r\n" not in head and len(head) < 65536:
                chunk = conn.recv(4096)
                if not chunk:
                    break
                head += chunk
            self.heads.append(head)
            self.answer(head, conn, self.stop)
        except OSError:
            pass
        finally:
            conn.close()

    def close(self) -> None:
        self.stop.set()
        self.thread.join(5)


def reply(body: bytes, status: str = "200 OK", api: str = "1") -> Answer:
    def answer(head: bytes, conn: socket.socket, stop: threading.Event) -> None:
        conn.sendall(
            f"HTTP/1.0 {status}\r\nRecall-API: {api}\r\n".encode()
            + b"Content-Type: application/json\r\n\r\n"
            + body
        )

    return answer


def drip(before: bytes, rest: bytes) -> Answer:
    """`before` at once, then `rest` a byte every 50 ms, over and over, until stopped."""

    def answer(head: bytes, conn: socket.socket, stop: threading.Event) -> None:
        conn.sendall(before)
        while not stop.is_set():
            for byte in rest:
                if stop.wait(0.05):
                    return
                conn.sendall(bytes([byte]))

    return answer
