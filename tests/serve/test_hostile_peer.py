"""Peers that lie: tiny servers on 127.0.0.1 (`peerhelp`) that drip, nest, send lone
surrogates, NaN and terminal escapes. Whatever they do, a command ends within its
deadline with one clean line, and other computers' results still print (docs/serve.md,
"What a peer can do to the asking computer")."""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from clihelp import call, run
from peerhelp import Answer, Peer, drip, reply

BAD = "\x1b]52;c;cHduZWQ=\x07\x1b]0;title\x07\x1b[2J\x9b2J\u202egnp.exe\u2066x\u2069"


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


@pytest.mark.core_free
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


@pytest.mark.core_free
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


@pytest.mark.core_free
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
@pytest.mark.core_free
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


@pytest.mark.core_free
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


def test_a_peer_refusing_the_token_is_not_an_empty_index(
    tmp_path: Path, peers: Callable[[str, Answer], Peer], capsys: pytest.CaptureFixture[str]
) -> None:
    _local_index(tmp_path, capsys)
    refusal = b'{"error": "the token is not this daemon\'s"}'
    peers("desk", reply(refusal, "401 Unauthorized"))
    code, out, err, _ = _timed(capsys, "search", "zebrafish", "--computer", "desk")
    assert code == 1 and "No results" in out
    assert "nothing is indexed yet" not in err and "recall sync" not in err
    lines = err.strip().splitlines()
    assert lines[0].startswith("recall: desk: ") and len(lines) == 2
    assert "leave out --computer or add `local`" in lines[1]
    code, out, err, _ = _timed(capsys, "search", "zebrafish", "--computer", "desk", "local")
    assert code == 0 and "zebrafish" in out and "nothing is indexed" not in err
