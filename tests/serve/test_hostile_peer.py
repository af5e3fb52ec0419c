"""Peers that lie: tiny servers on 127.0.0.1 that drip, nest, send lone surrogates and
terminal escapes, or hold a dead daemon's port. Whatever they do, a command ends within
its deadline with one clean line, other computers' results still print, and the token
stays with its owner (docs/serve.md, "The security model")."""

from __future__ import annotations

import json
import os
import socket
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from clihelp import call, run

LIFETIME_S = 25.0
"""No hostile peer lives longer: a test that would hang on old code ends by itself."""
BAD = "\x1b]52;c;cHduZWQ=\x07\x1b]0;title\x07\x1b[2J\x9b2J\u202egnp.exe\u2066x\u2069"

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


@pytest.fixture
def peers(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> Iterator[Callable[[str, Answer], Peer]]:
    made: list[Peer] = []
    token = tmp_path / "peer.token"
    token.write_text("peer-token-abc\n")

    def add(name: str, answer: Answer) -> Peer:
        peer = Peer(answer)
        made.append(peer)
        added = call_quiet("peers", "add", name, peer.url, "--token-file", str(token))
        assert added == 0
        # a short timeout: each command below must end well within LIFETIME_S
        config = Path(os.environ["RECALL_HOME"]) / "config.toml"
        config.write_text(config.read_text().replace("timeout = 5.0", "timeout = 1.0"))
        capsys.readouterr()
        return peer

    yield add
    for peer in made:
        peer.close()


def call_quiet(*argv: str) -> int:
    from recall.cli import main
    from recall.config import forget_loaded

    forget_loaded()
    return main(list(argv))


def _timed(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str, float]:
    from recall.config import forget_loaded

    forget_loaded()
    started = time.monotonic()
    code, out, err = call(capsys, *argv)
    return code, out, err, time.monotonic() - started


def _clean(text: str) -> None:
    assert "Traceback" not in text
    assert not any(c in text for c in "\x1b\x07\x9b\x9d\x9c\u202e\u2066\u2069"), repr(text)


def _one_clean_line(err: str) -> None:
    _clean(err)
    assert len(err.strip().splitlines()) == 1, err


# --- item 10: a whole-request deadline -----------------------------------------------------


def test_a_dripping_peer_cannot_hang_show_raw_json_or_peers_test(
    peers: Callable[[str, Answer], Peer], capsys: pytest.CaptureFixture[str]
) -> None:
    head = b"HTTP/1.0 200 OK\r\nRecall-API: 1\r\nContent-Type: application/json\r\n"
    peers("slowhead", drip(b"", head + b"X-Pad: " + b"a" * 4096))
    peers("slowbody", drip(head + b"\r\n", b'{"session_id": "s1", "padding": "' + b"a" * 4096))
    for name in ("slowhead", "slowbody"):
        for argv in (
            ("show", "s1", "--computer", name),
            ("show", "s1", "--json", "--computer", name),
            ("show", "s1", "--raw", "--computer", name),
            ("peers", "test", name),
        ):
            code, out, err, took = _timed(capsys, *argv)
            assert took < 4.0, (argv, took)
            assert code == 1, (argv, code, out, err)
            text = err if argv[0] == "show" else out
            assert "no answer within 1s" in text or "stalled" in text, (argv, text)
            if argv[0] == "show":
                _one_clean_line(err)


def test_an_answer_shorter_than_its_content_length_is_cut_off(
    peers: Callable[[str, Answer], Peer], capsys: pytest.CaptureFixture[str]
) -> None:
    head = b"HTTP/1.0 200 OK\r\nRecall-API: 1\r\nContent-Length: 5000\r\n\r\n"
    peers("short", lambda h, conn, stop: conn.sendall(head + b'{"session_id": "s1"}\n'))
    for argv in (
        ("show", "s1", "--raw", "--computer", "short"),
        ("show", "s1", "--computer", "short"),
    ):
        code, _out, err, _ = _timed(capsys, *argv)
        assert code == 1 and "cut off" in err, (argv, err)


# --- item 11: a peer's text is filtered ------------------------------------------------------


def test_a_peers_error_text_and_api_header_reach_no_terminal_raw(
    peers: Callable[[str, Answer], Peer], capsys: pytest.CaptureFixture[str]
) -> None:
    error = json.dumps({"error": f"boom {BAD}\nsecond line", "status": 500}).encode()
    peers("loud", reply(error, status=f"500 Oops{BAD[:9]}"))
    peers("header", reply(b"{}", api=BAD))
    peers("reason", reply(b"not json", status="404 Gone\x1b]0;t\x07"))
    for name in ("loud", "header", "reason"):
        for argv in (
            ("show", "s1", "--computer", name),
            ("show", "s1", "--raw", "--computer", name),
        ):
            code, _out, err, _ = _timed(capsys, *argv)
            assert code == 1, (argv, err)
            _one_clean_line(err)
        code, out, err, _ = _timed(capsys, "search", "anything", "--computer", name)
        assert f"recall: {name}: " in err
        _clean(err)
        code, out, _err, _ = _timed(capsys, "peers", "test", name)
        assert code == 1 and "FAIL" in out
        _clean(out)
    code, _out, err, _ = _timed(capsys, "show", "s1", "--computer", "loud")
    assert "HTTP 500: boom" in err and "gnp.exe" in err and "second line" in err


# --- item 12: deep nesting is a clean error ------------------------------------------------------


@pytest.mark.parametrize("depth", [60, 500, 100_000])
def test_deeply_nested_json_from_a_peer_is_one_error_line(
    depth: int, peers: Callable[[str, Answer], Peer], capsys: pytest.CaptureFixture[str]
) -> None:
    nested = b'{"session_id": "s1", "messages": ' + b"[" * depth + b"]" * depth + b"}"
    peers("deep", reply(nested))
    refusal = b'{"error": ' + b"[" * depth + b"]" * depth + b"}"
    peers("deeperr", reply(refusal, status="404 Not Found"))
    for argv in (
        ("show", "s1", "--computer", "deep"),
        ("show", "s1", "--json", "--computer", "deep"),
        ("show", "s1", "--raw", "--computer", "deeperr"),
        ("show", "s1", "--computer", "deeperr"),
    ):
        code, out, err, _ = _timed(capsys, *argv)
        assert code == 1 and out == "", (argv, code, out[:200])
        _one_clean_line(err)
    health = b'{"ok": true, "api": 1, "computer": ' + b"[" * depth + b"]" * depth + b"}"
    peers("deephealth", reply(health))
    code, out, _err, _ = _timed(capsys, "peers", "test", "deephealth")
    assert code == 1 and "FAIL" in out and "Traceback" not in out
    code, out, _err, _ = _timed(capsys, "peers", "test", "deephealth", "--json")
    assert code == 1 and json.loads(out)[0]["error"]


def test_peers_test_takes_only_a_health_answer_of_the_right_shape(
    peers: Callable[[str, Answer], Peer], capsys: pytest.CaptureFixture[str]
) -> None:
    odd = {"ok": True, "api": 1, "version": "1", "computer": {"nested": [1]}, "sessions": 1}
    peers("odd", reply(json.dumps(odd).encode()))
    long = {"ok": True, "api": 1, "version": "9" * 100_000, "computer": "far", "sessions": 2}
    peers("long", reply(json.dumps(long).encode()))
    code, out, _err, _ = _timed(capsys, "peers", "test", "odd", "long")
    lines = out.splitlines()
    assert code == 1 and "FAIL  the answer does not fit" in lines[0], out
    assert lines[1].startswith("long") and " ok " in lines[1] and len(lines[1]) < 200, lines[1]


# --- item 13: one bad peer is one entry in errors ---------------------------------------------


def _local_index(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src = tmp_path / "local.jsonl"
    row = {"session": "here-1", "role": "user", "text": "the zebrafish pipeline works here"}
    src.write_text(json.dumps(row) + "\n")
    assert call(capsys, "ingest", "--format", "jsonl", str(src))[0] == 0


def test_a_peers_lone_surrogate_or_bad_answer_never_ends_the_search(
    tmp_path: Path, peers: Callable[[str, Answer], Peer], capsys: pytest.CaptureFixture[str]
) -> None:
    _local_index(tmp_path, capsys)
    result = {
        "session_id": "far-1\ud800",
        "agent": "claude",
        "project": "/p\udfff",
        "computer": "x",
        "title": "zebrafish \ud83d half an emoji",
        "date": "2026-01-01T00:00:00+00:00",
        "score": 1.0,
        "snippet": "\ud800 zebrafish \udc00",
        "source": "session",
    }
    # JSON escapes each lone surrogate as \\udXXX, as a JavaScript writer would
    body = json.dumps({"query": "zebrafish", "found": 1, "errors": [], "results": [result]})
    peers("halfemoji", reply(body.encode()))
    peers("wrongshape", reply(b'{"results": [{"session_id": 5, "score": "high"}]}'))
    peers("notalist", reply(b'{"results": {"a": 1}}'))
    peers("deep", reply(b'{"results": ' + b"[" * 50_000 + b"]" * 50_000 + b"}"))
    nan = json.dumps({**json.loads(body), "results": [{**result, "score": float("nan")}]})
    peers("nan", reply(nan.encode()))  # json.loads takes NaN; --json output cannot
    huge = json.dumps({**json.loads(body), "results": [{**result, "score": 1.0}]})
    peers("huge", reply(huge.replace('"score": 1.0', '"score": 1e999').encode()))
    names = ["halfemoji", "wrongshape", "notalist", "deep", "nan", "huge", "local"]
    done = run("search", "zebrafish", "--computer", *names, "--json")
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert {r["computer"] for r in data["results"]} == {"testbox", "halfemoji"}, (data, done.stderr)
    far = next(r for r in data["results"] if r["computer"] == "halfemoji")
    assert far["title"] == "zebrafish \ufffd half an emoji" and "\ufffd zebrafish" in far["snippet"]
    errors = sorted(e["computer"] for e in data["errors"])
    assert errors == ["deep", "huge", "nan", "notalist", "wrongshape"]
    assert b"Traceback" not in done.stderr and len(done.stderr.splitlines()) == 5
    text = run("search", "zebrafish", "--computer", *names)
    assert text.returncode == 0, text.stderr
    assert b"here-1"[:6] in text.stdout or b"zebrafish" in text.stdout
    assert text.stdout.decode("utf-8").count("zebrafish") >= 2  # both results printed


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
    from recall.peers.protocol import SearchRequest
    from recall.peers.warm import ask_daemon, local_daemon

    monkeypatch.setenv("RECALL_EMBEDDING", "local")  # a search that may use the daemon
    token = make_token()[0].read_text().strip()
    stranger = Peer(_stranger())
    try:
        state = {"pid": os.getpid(), "host": "127.0.0.1", "port": stranger.port, "scheme": "http"}
        (recall_home / "serve.json").write_text(json.dumps(state))
        assert local_daemon() is not None  # serve.json looks alive: its pid runs
        assert ask_daemon(SearchRequest(q="anything", mode="hybrid")) is None  # in-process
        assert ask_daemon(SearchRequest(q="anything", mode="semantic")) is None
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
        assert ask_daemon(SearchRequest(q="anything", mode="hybrid")) is None
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


def test_a_peers_memories_files_and_unknown_sources_print_or_are_one_error(
    tmp_path: Path, peers: Callable[[str, Answer], Peer], capsys: pytest.CaptureFixture[str]
) -> None:
    _local_index(tmp_path, capsys)
    base = {"agent": "recall", "project": None, "computer": "x", "title": "MEMORY.md"}
    base |= {"date": "2026-01-01T00:00:00+00:00", "score": 1.0, "snippet": "zebrafish notes"}
    memory = {**base, "session_id": "m1", "source": "memory", "memory_id": "7"}
    memory |= {"category": "fact", "importance": 8}
    file = {**base, "session_id": "f1", "source": "file", "path": "/far/MEMORY.md"}
    answer = {"query": "zebrafish", "found": 2, "errors": [], "results": [memory, file]}
    peers("mem", reply(json.dumps(answer).encode()))
    odd = {**answer, "results": [{**base, "session_id": "o1", "source": "telepathy"}]}
    peers("odd", reply(json.dumps(odd).encode()))
    code, out, err = call(capsys, "search", "zebrafish", "--computer", "mem", "odd", "local")
    assert code == 0, err
    assert "memory 7 [fact, importance 8]" in out and "[/far/MEMORY.md]" in out
    assert "here-1"[:6] in out or out.count("zebrafish") >= 3
    assert err.strip().splitlines() == [
        "recall: odd: the answer does not fit: unknown source 'telepathy'"
    ]
