"""Every surface's semantic and hybrid searches go through this computer's warm daemon when
one runs (the CLI, the MCP tools), and in-process when not; `recall status` says which."""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from daemons import env_for, ingest_lines, recall, start

RECORDS = [
    {"session": f"s{i}", "role": "user", "text": t}
    for i, t in enumerate(["the retry budget for kafka", "a recipe for bread", "pandas dataframes"])
]
ASKED = "kafka budget, or a library for data analysis"
ROUTE = "GET /api/mirrors/search 200"


def _mcp(env: dict[str, str], calls: list[tuple[str, dict[str, Any]]]) -> list[Any]:
    """Each call's JSON answer from `recall mcp`, driven by the official SDK client."""
    pytest.importorskip("mcp", reason="the MCP SDK comes with recall's dev extra")
    import anyio
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    async def go() -> list[Any]:
        params = StdioServerParameters(
            command=sys.executable, args=["-m", "recall", "mcp"], env=env
        )
        async with (
            stdio_client(params) as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            return [await session.call_tool(name, args) for name, args in calls]

    results = anyio.run(go)
    for r in results:
        assert not r.is_error, r.content[0].text
    return [json.loads(r.content[0].text) for r in results]


def _status(env: dict[str, str]) -> dict[str, Any]:
    done = recall(env, "status", "--json")
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)["daemon"]  # type: ignore[no-any-return]


@pytest.mark.needs_model
def test_mcp_hybrid_goes_through_the_warm_daemon_and_status_says_so(tmp_path: Path) -> None:
    user, home = tmp_path / "u", tmp_path / "h"
    user.mkdir()
    home.mkdir()
    env = env_for(home, "box", user, embedding="local")
    env["PYTHONPATH"] = os.environ.get("PYTHONPATH", "")
    ingest_lines(env, tmp_path / "x.jsonl", RECORDS)
    assert recall(env, "embed", "--quiet").returncode == 0
    ask = [
        ("search_history", {"query": ASKED, "mode": "hybrid", "limit": 2}),
        ("search_history", {"query": ASKED, "mode": "semantic", "scope": "sessions"}),
        ("search_history", {"query": ASKED, "mode": "keyword"}),
    ]
    cold = _mcp(env, ask)
    assert _status(env) == {"running": False, "answering": False}
    down = recall(env, "status").stdout
    assert "daemon: not running (semantic and hybrid searches load the model in-process)" in down
    d = start(home, "box", user, embedding="local")
    try:
        deadline = time.monotonic() + 60
        while not (now := _status(env)).get("model_loaded") and time.monotonic() < deadline:
            time.sleep(0.2)  # the daemon loads its model as it starts
        assert now["running"] and now["answering"] and now["model_loaded"], now
        assert now["url"] == f"http://127.0.0.1:{d.port}"
        up = recall(env, "status").stdout
        assert f"daemon: up at http://127.0.0.1:{d.port}, model warm;" in up
        before = d.log_text().count(ROUTE)
        warm = _mcp(env, ask)
        asked = d.log_text().count(ROUTE) - before
        off = _mcp({**env, "RECALL_NO_DAEMON": "1"}, ask[:1])
        assert (
            "not used (RECALL_NO_DAEMON is set)"
            in recall({**env, "RECALL_NO_DAEMON": "1"}, "status").stdout
        )
    finally:
        d.stop()
    assert asked == 2  # hybrid and semantic through the daemon; keyword needs no model
    assert warm == cold  # the same answers either way
    assert off[0] == cold[0] and d.log_text().count(ROUTE) == before + 2
    assert warm[0]["results"][0]["session_id"] == "s0"  # a real answer, not an empty one
    gone = _mcp(env, ask[:1])  # the daemon stopped: in-process again
    assert gone[0] == cold[0]


def test_status_says_when_a_daemon_is_named_but_not_ours(
    recall_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """serve.json naming a live process whose port a stranger holds: status says the
    daemon is not answering and searches run in-process; the stranger gets no token."""
    from clihelp import call
    from peerhelp import Peer, reply
    from recall.peers.auth import make_token

    token = make_token()[0].read_text().strip()
    stranger = Peer(reply(b'{"ok": true, "api": 1, "model_loaded": true}'))
    try:
        state = {"pid": os.getpid(), "host": "127.0.0.1", "port": stranger.port, "scheme": "http"}
        (recall_home / "serve.json").write_text(json.dumps(state))
        code, out, _ = call(capsys, "status", "--json")
        shown = json.loads(out)["daemon"]
        _, text, _ = call(capsys, "status")
    finally:
        stranger.close()
    assert code == 0 and shown["running"] and not shown["answering"]
    assert "model_loaded" not in shown
    assert f"daemon: at http://127.0.0.1:{stranger.port} but not answering" in text
    assert "searches run in-process" in text
    assert token.encode() not in b"".join(stranger.heads)
