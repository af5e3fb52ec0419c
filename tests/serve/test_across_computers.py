"""Three real daemons on loopback, each with its own index: one ranking from every machine."""

from __future__ import annotations

import json
import socket
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from clihelp import call
from daemons import Daemon, env_for, get, recall, serve_one

QUERY = "auth refactor"


def _records(computer: str, n: int) -> list[dict[str, str]]:
    return [
        {
            "session": f"{computer}-s{i}",
            "role": "user",
            "text": f"the auth refactor on {computer}: step {i} moves token checks {'x' * i}",
            "timestamp": f"2026-03-0{i + 1}T10:00:00+00:00",
        }
        for i in range(n)
    ]


@pytest.fixture
def three(tmp_path: Path) -> Iterator[dict[str, Daemon]]:
    daemons = {}
    try:
        for name, n in (("laptop", 3), ("desk", 2), ("build", 2)):
            daemons[name] = serve_one(tmp_path, name, _records(name, n))
        yield daemons
    finally:
        for d in daemons.values():
            d.stop(wait_s=30)


def _add_peers(
    capsys: pytest.CaptureFixture[str], daemons: dict[str, Daemon], timeout: str = "5"
) -> None:
    for name, d in daemons.items():
        code, _out, err = call(
            capsys,
            "peers",
            "add",
            name,
            d.url,
            "--token-file",
            str(d.home / "serve.token"),
            "--timeout",
            timeout,
        )
        assert code == 0, err


def test_results_from_every_computer_tagged_and_merged_then_one_stops(
    three: dict[str, Daemon], capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    _add_peers(capsys, three)
    code, out, err = call(capsys, "search", QUERY, "--computer", "all", "--json")
    assert code == 0, err
    data = json.loads(out)
    assert data["errors"] == []
    by_computer = {r["computer"] for r in data["results"]}
    assert by_computer == {"laptop", "desk", "build"}
    assert data["found"] == len(data["results"]) == 7
    scores = [r["score"] for r in data["results"]]  # one ranking, by the merged score
    assert scores == sorted(scores, reverse=True)
    # the text form shows the computer on every result
    code, out, err = call(capsys, "search", QUERY, "--computer", "desk", "build")
    assert code == 0 and "desk" in out and "build" in out and "laptop" not in out

    assert three["desk"].stop() == 0  # SIGTERM: a clean exit
    assert not (three["desk"].home / "serve.json").exists()
    code, out, err = call(capsys, "search", QUERY, "--computer", "all", "--json")
    assert code == 0
    data = json.loads(out)
    assert [e["computer"] for e in data["errors"]] == ["desk"]
    assert "unreachable" in data["errors"][0]["error"]
    assert {r["computer"] for r in data["results"]} == {"laptop", "build"}
    assert err.count("\n") == 1 and err.startswith("recall: desk: ")


def test_a_peer_that_never_answers_costs_its_timeout(
    three: dict[str, Daemon], capsys: pytest.CaptureFixture[str]
) -> None:
    _add_peers(capsys, {"laptop": three["laptop"]})
    silent = socket.socket()
    silent.bind(("127.0.0.1", 0))
    silent.listen(8)  # connections complete in the backlog; nothing is ever read or sent
    try:
        port = silent.getsockname()[1]
        assert (
            call(capsys, "peers", "add", "mute", f"http://127.0.0.1:{port}", "--timeout", "1")[0]
            == 0
        )
        started = time.monotonic()
        code, out, _err = call(capsys, "search", QUERY, "--computer", "laptop", "mute", "--json")
        took = time.monotonic() - started
    finally:
        silent.close()
    assert code == 0
    data = json.loads(out)
    assert data["errors"] == [{"computer": "mute", "error": "no answer within 1s"}]
    assert {r["computer"] for r in data["results"]} == {"laptop"}
    assert took < 3.0, took


def test_the_daemon_answers_what_the_cli_answers(three: dict[str, Daemon], tmp_path: Path) -> None:
    d = three["laptop"]
    env = env_for(d.home, "laptop", tmp_path / "user", RECALL_NO_DAEMON="1")
    from recall.timeutil import parse_when

    cases = {
        (): "",
        ("--limit", "2"): "&limit=2",
        ("--messages",): "&messages=1",
        ("--scope", "sessions"): "&scope=sessions",
        ("--since", "2026-03-02"): f"&since={parse_when('2026-03-02')!r}",
    }
    for extra, params in cases.items():
        cli = recall(env, "search", QUERY, "--json", *extra)
        assert cli.returncode == 0, cli.stderr
        status, reply = get(d.port, f"/api/mirrors/search?q=auth+refactor{params}", d.token)
        assert status == 200
        served = json.loads(reply.split(b"\r\n\r\n", 1)[1])
        for extra_field in ("mode", "note", "indexed"):
            served.pop(extra_field)
        assert served == json.loads(cli.stdout)


def test_show_from_a_peer_equals_show_on_that_peer(
    three: dict[str, Daemon], capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    _add_peers(capsys, {"build": three["build"]})
    d = three["build"]
    env = env_for(d.home, "build", tmp_path / "user")
    for flags in ([], ["--json"], ["--raw"]):
        there = recall(env, "show", "build-s1", *flags)
        code, out, err = call(capsys, "show", "build-s1", "--computer", "build", *flags)
        assert code == 0, err
        assert out == there.stdout
    code, out, err = call(capsys, "show", "nosuch", "--computer", "build")
    assert code == 1 and err == "recall: build: no session matches 'nosuch'\n"
    code, out, err = call(capsys, "show", "build-s1", "--computer", "elsewhere")
    assert code == 2 and "no peer named 'elsewhere'" in err


@pytest.mark.core_free
def test_unknown_computer_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    code, _out, err = call(capsys, "search", QUERY, "--computer", "nowhere")
    assert code == 2 and "no peer named 'nowhere'" in err


def test_a_peer_sends_a_transcript_redacted_as_show_raw_prints_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    secret = "ghp_" + "Zq8Lw3Nv5Xr1Ty7Pb2Mc" + "4Hd6Jf9Gk0SaUe4R"
    user = tmp_path / "user"
    path = user / ".claude" / "projects" / "-work-app" / "c1.jsonl"
    path.parent.mkdir(parents=True)
    turns = [
        {
            "type": "user",
            "uuid": f"u{i}",
            "sessionId": "c1",
            "message": {"role": "user", "content": f"turn {i}: deploy with {secret} " + "x" * 300},
        }
        for i in range(400)  # ~150 KB: more than one 64 KiB piece on the wire
    ]
    path.write_text("".join(json.dumps(t) + "\n" for t in turns))
    d = serve_one(tmp_path, "far", [])
    try:
        env = env_for(d.home, "far", user)
        assert recall(env, "sync", "--quiet", "--no-embed").returncode == 0
        there = recall(env, "show", "c1", "--raw")
        _add_peers(capsys, {"far": d})
        code, out, err = call(capsys, "show", "c1", "--computer", "far", "--raw")
    finally:
        d.stop()
    assert code == 0, err
    assert out == there.stdout and secret not in out
    assert out.count("[REDACTED:github-token]") == 400
