"""The daemon's own trust: its token goes only to a listener that proves it is the daemon
(a stranger may hold a dead daemon's port), and SIGTERM stops it however slowly a
client reads (docs/serve.md, "The security model")."""

from __future__ import annotations

import json
import os
import socket
import threading
import time
from pathlib import Path

import pytest

from peerhelp import Answer, Peer, reply

# --- item 3: the token goes only to our daemon ------------------------------------------------


def _stranger() -> Answer:
    """Anything on the port, answering like a recall daemon would, token or not."""
    health = b'{"ok": true, "api": 1, "version": "0", "computer": "testbox", "sessions": 1}'
    search = b'{"query": "q", "found": 0, "results": [], "errors": []}'

    def answer(head: bytes, conn: socket.socket, stop: threading.Event) -> None:
        body = health if b" /api/health" in head else search
        conn.sendall(b"HTTP/1.0 200 OK\r\nRecall-API: 1\r\n\r\n" + body)

    return answer


def test_a_stranger_on_a_stale_daemon_port_never_gets_the_token(
    recall_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from recall.peers.auth import make_token
    from recall.peers.warm import ask_daemon, local_daemon
    from recall.search.request import SearchRequest

    monkeypatch.setenv("RECALL_EMBEDDING", "local")  # a search that may use the daemon
    token = make_token()[0].read_text().strip()
    stranger = Peer(_stranger())
    try:
        state = {"pid": os.getpid(), "host": "127.0.0.1", "port": stranger.port, "scheme": "http"}
        (recall_home / "serve.json").write_text(json.dumps(state))
        assert local_daemon() is not None  # serve.json looks alive: its pid runs
        assert ask_daemon(SearchRequest(text="anything", mode="hybrid")) is None  # in-process
        assert ask_daemon(SearchRequest(text="anything", mode="semantic")) is None
    finally:
        stranger.close()
    assert stranger.heads, "the stranger was asked nothing: the test proves nothing"
    sent = b"".join(stranger.heads)
    assert token.encode() not in sent and b"Authorization" not in sent
    # one that refuses everything with 400 cannot make the search a usage error either
    refuser = Peer(reply(b'{"error": "you typed it wrong"}', status="400 Bad Request"))
    try:
        state["port"] = refuser.port
        (recall_home / "serve.json").write_text(json.dumps(state))
        assert ask_daemon(SearchRequest(text="anything", mode="hybrid")) is None
    finally:
        refuser.close()
    assert refuser.heads and token.encode() not in b"".join(refuser.heads)


def test_the_daemon_is_dialled_where_it_bound_and_proves_itself(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from daemons import serve_one
    from recall.config import forget_loaded
    from recall.peers.protocol import HEALTH
    from recall.peers.warm import local_daemon

    d = serve_one(
        tmp_path,
        "box",
        [{"session": "s1", "role": "user", "text": "hi"}],
        '[serve]\nhost = "127.0.0.2"\n',
    )
    try:
        monkeypatch.setenv("RECALL_HOME", str(d.home))
        forget_loaded()
        daemon = local_daemon()
        assert daemon is not None and daemon.host == "127.0.0.2"
        assert daemon.get_json(HEALTH)["sessions"] == 1  # proved, then given the token
        assert daemon.proven
    finally:
        assert d.stop() == 0


# --- item 16: SIGTERM ends the daemon, however slowly a client reads -------------------------


def test_sigterm_stops_the_daemon_while_a_client_reads_slowly(tmp_path: Path) -> None:
    from daemons import serve_one

    big = [
        {"session": "big", "role": "user", "text": f"part {i} " + "w" * 2_000_000} for i in range(4)
    ]
    d = serve_one(tmp_path, "box", big, "[serve]\nrequest_timeout = 2\n")
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sock.settimeout(10)
    sock.connect(("127.0.0.1", d.port))
    got = 0
    try:
        sock.sendall(
            f"GET /api/mirrors/big HTTP/1.0\r\nHost: localhost\r\nAuthorization: Bearer {d.token}\r\n\r\n".encode()
        )
        got += len(sock.recv(4096))
        d.proc.terminate()
        stopped_at = time.monotonic()
        ends = stopped_at + 20  # reading 20 KiB/s keeps the daemon's every send under its timeout
        while d.proc.poll() is None and time.monotonic() < ends:
            chunk = sock.recv(1024)
            if not chunk:
                break
            got += len(chunk)
            time.sleep(0.05)
        code = d.proc.wait(30)
        took = time.monotonic() - stopped_at
    finally:
        sock.close()
    assert code == 0 and took < 10, (code, took)
    assert got < 8_000_000  # it was cut off, not sent whole
    assert not (d.home / "serve.json").exists()
    assert "1 request(s) still in flight after 2s: cut off" in d.log_text()
