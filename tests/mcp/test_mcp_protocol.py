"""`recall mcp` on the wire: raw JSON-RPC lines in, one reply per request out, and the
server keeps serving after every kind of bad line."""

from __future__ import annotations

import io
import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from mcphelp import SERVER

INIT = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2024-11-05",
        "capabilities": {},
        "clientInfo": {"name": "raw", "version": "0"},
    },
}


def _exchange(lines: list[bytes]) -> tuple[list[Any], bytes]:
    done = subprocess.run(
        SERVER, input=b"".join(lines), capture_output=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr
    return [json.loads(x) for x in done.stdout.splitlines()], done.stderr


def _line(obj: Any) -> bytes:
    return json.dumps(obj).encode() + b"\n"


def test_malformed_lines_get_errors_and_the_server_keeps_serving(indexed: Path) -> None:
    replies, stderr = _exchange(
        [
            _line(INIT),
            _line({"jsonrpc": "2.0", "method": "notifications/initialized"}),
            b"{not json\n",
            b"\xff\xfe\n",
            b"\n",
            _line([1, 2]),
            _line({"jsonrpc": "1.0", "id": 2, "method": "ping"}),
            _line({"jsonrpc": "2.0", "id": 3, "method": "no/such"}),
            _line({"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": []}),
            _line({"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": {"name": "rm"}}),
            _line({"jsonrpc": "2.0", "id": {"x": 1}, "method": "ping"}),
            _line({"jsonrpc": "2.0", "method": "no/such/notification"}),
            _line({"jsonrpc": "2.0", "id": 99, "result": {}}),  # a stray response: ignored
            _line(
                [
                    {"jsonrpc": "2.0", "id": 6, "method": "ping"},
                    {"jsonrpc": "2.0", "method": "notifications/cancelled"},
                ]
            ),
            _line(
                {
                    "jsonrpc": "2.0",
                    "id": 7,
                    "method": "tools/call",
                    "params": {"name": "search_history", "arguments": {"query": "kafka"}},
                }
            ),
        ]
    )
    assert replies[0]["result"]["protocolVersion"] == "2024-11-05"  # the client's, when we speak it
    flat = [r for x in replies[1:-2] for r in (x if isinstance(x, list) else [x])]
    errors = [(r.get("id"), r["error"]["code"]) for r in flat]
    assert errors == [
        (None, -32700),  # not JSON
        (None, -32700),  # not UTF-8
        (None, -32600),  # a batch of non-objects: one error each, in one reply
        (None, -32600),
        (2, -32600),  # not JSON-RPC 2.0
        (3, -32601),  # unknown method
        (4, -32602),  # params not an object
        (5, -32602),  # unknown tool
        (None, -32600),  # an id that is an object
    ]
    assert replies[-2] == [{"jsonrpc": "2.0", "id": 6, "result": {}}]  # notifications: no reply
    found = json.loads(replies[-1]["result"]["content"][0]["text"])
    assert [r["session_id"] for r in found["results"]] == ["pay-1"]
    assert "structuredContent" not in replies[-1]["result"]  # not in 2024-11-05
    assert b"serving on stdio" in stderr


def test_an_unknown_version_gets_our_newest(indexed: Path) -> None:
    init = {**INIT, "params": {**INIT["params"], "protocolVersion": "1999-01-01"}}
    replies, _ = _exchange([_line(init)])
    assert replies[0]["result"]["protocolVersion"] == "2025-11-25"


def test_an_overlong_line_is_refused_and_skipped(monkeypatch: pytest.MonkeyPatch) -> None:
    from recall.mcp import server

    monkeypatch.setattr(server, "MAX_LINE", 64)
    out = io.BytesIO()
    server.serve(
        io.BytesIO(
            b'{"x": "' + b"a" * 500 + b'"}\n' + _line({"jsonrpc": "2.0", "id": 1, "method": "ping"})
        ),
        out,
    )
    replies = [json.loads(x) for x in out.getvalue().splitlines()]
    assert (
        replies[0]["error"]["code"] == -32700 and "longer than 64" in replies[0]["error"]["message"]
    )
    assert replies[1] == {"jsonrpc": "2.0", "id": 1, "result": {}}


def test_a_tool_provider_plugs_in_and_its_errors_are_tool_errors(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """How tools join: a provider lists them only while they can work."""
    from recall.mcp import server, tools

    available: list[bool] = [False]

    def note(args: dict[str, Any]) -> dict[str, Any]:
        if not str(args.get("content", "")).strip():
            raise tools.ToolError("Parameter 'content' is required and cannot be empty")
        return {"saved": args["content"]}

    def note_tools() -> list[tools.Tool]:
        schema = {"type": "object", "properties": {"content": {"type": "string"}}}
        return [tools.Tool("note", "Save a note.", schema, note)] if available[0] else []

    monkeypatch.setattr(tools, "PROVIDERS", [*tools.PROVIDERS])
    tools.provide(note_tools)
    session = server.Session()

    def names() -> list[str]:
        reply = session.handle({"jsonrpc": "2.0", "id": 1, "method": "tools/list"})
        assert isinstance(reply, dict)
        return [t["name"] for t in reply["result"]["tools"]]

    built_in = ["search_history", "show_session", "remember", "search_memories"]
    assert names() == built_in
    available[0] = True
    assert names() == [*built_in, "note"]
    call = {
        "jsonrpc": "2.0",
        "id": 2,
        "method": "tools/call",
        "params": {"name": "note", "arguments": {"content": " "}},
    }
    reply = session.handle(call)
    assert isinstance(reply, dict)
    assert reply["result"]["isError"] is True
    assert (
        reply["result"]["content"][0]["text"]
        == "Parameter 'content' is required and cannot be empty"
    )
    bad = session.handle({"jsonrpc": "2.0", "id": True, "method": "ping"})
    assert isinstance(bad, dict) and bad["error"]["code"] == -32600


def test_a_null_id_is_an_invalid_request_and_nothing_runs(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from recall.mcp import server

    ran: list[str] = []
    monkeypatch.setattr(server, "call_tool", lambda name, args: ran.append(name) or {})
    session = server.Session()
    call = {"name": "remember", "arguments": {"text": "x"}}
    for message in (
        {"jsonrpc": "2.0", "id": None, "method": "tools/call", "params": call},
        {"jsonrpc": "2.0", "id": None, "method": "ping"},
    ):
        reply = session.handle(message)
        assert isinstance(reply, dict) and reply["id"] is None
        assert reply["error"]["code"] == -32600
    assert ran == []
    ok = session.handle({"jsonrpc": "2.0", "id": 0, "method": "tools/call", "params": call})
    assert isinstance(ok, dict) and ok["id"] == 0 and ran == ["remember"]
