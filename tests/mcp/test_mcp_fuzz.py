"""Issue 21 item 9: no input ends `recall mcp`, and every request gets exactly one
well-formed response.

A lone surrogate (`\\ud800`) anywhere used to end the server (status 2) when its
reply echoed it, deep nesting was a RecursionError traceback, and a few argument
values were -32603 internal errors instead of tool errors a model can act on. The
battery here is generated (seeded, bounded): valid requests with one or more
values replaced by hostile ones, and lines cut, corrupted or nested deep.
"""

from __future__ import annotations

import io
import json
import random
import subprocess
from pathlib import Path
from typing import Any

import pytest

from mcphelp import SERVER

ERROR_CODES = {-32700, -32600, -32601, -32602}
"""-32603 (internal error) is a bug: no input may cause it."""
TOOLS = {
    "search_history": {"query": "kafka retry", "scope": "all", "date_from": "2026-01-01",
                       "date_to": "2026-12-31", "max_results": 5, "agent": "claude",
                       "project": "/work/payments"},
    "show_session": {"session": "pay-1", "start": 0, "agent": "claude"},
    "remember": {"text": "the ledger migration runs nightly", "category": "fact",
                 "importance": 6, "project": "/work/ledger"},
    "search_memories": {"query": "ledger", "category": "fact", "limit": 3},
}  # fmt: skip
SURROGATES = ["\ud800", "a\udfffb", "\udc00\ud800", "x" * 10 + "\udbff"]
HOSTILE: list[Any] = [
    *SURROGATES,
    "",
    " ",
    "\x00",
    "\u202e\u2066evil",
    "x" * 100_000,
    "%_\\" * 20_000,
    "9999-12-31",
    "0001-01-01",
    "0000-00-00",
    "2026-02-30",
    "-5",
    "1e999",
    10**30,
    -(10**30),
    -1,
    0,
    1.5,
    1e308,
    float("nan"),
    float("inf"),
    True,
    None,
    [],
    {},
    ["\ud800"],
    {"\ud800": "\ud800"},
]


def _nested(depth: int, leaf: Any = 1) -> Any:
    for _ in range(depth):
        leaf = {"a": [leaf]}
    return leaf


def _request(rng: random.Random, ident: int) -> dict[str, Any]:
    kind = rng.choice(["initialize", "ping", "tools/list", "call", "call", "call", "call"])
    if kind != "call":
        params: dict[str, Any] = {"protocolVersion": "2025-06-18"} if kind == "initialize" else {}
        return {"jsonrpc": "2.0", "id": ident, "method": kind, "params": params}
    name = rng.choice(sorted(TOOLS))
    args = dict(TOOLS[name])
    if rng.random() < 0.5:
        args = {k: v for k, v in args.items() if rng.random() < 0.7}
    params = {"name": name, "arguments": args}
    return {"jsonrpc": "2.0", "id": ident, "method": "tools/call", "params": params}


def _hostile(rng: random.Random) -> Any:
    roll = rng.random()
    if roll < 0.05:
        return _nested(rng.choice([20, 100, 400]))
    return rng.choice(HOSTILE)


def _mutate(rng: random.Random, msg: dict[str, Any]) -> dict[str, Any]:
    for _ in range(rng.choice([1, 1, 2, 3])):
        where = rng.random()
        params = msg.get("params")
        args = params.get("arguments") if isinstance(params, dict) else None
        if isinstance(args, dict) and args and where < 0.55:
            args[rng.choice([*args, "extra"])] = _hostile(rng)
        elif where < 0.65:
            msg["method"] = rng.choice([*SURROGATES, "tools/\ud800", 7, None, "x" * 5000, "a\nb"])
        elif where < 0.75:
            msg["id"] = rng.choice([*SURROGATES, "\ud800" * 100, 10**40, -7, 0, "", "1"])
        elif where < 0.85 and isinstance(msg.get("params"), dict):
            msg["params"]["name"] = rng.choice([*SURROGATES, "remember\ud800", "", 3])
        elif where < 0.92:
            msg["params"] = _hostile(rng)
        else:
            msg.pop(rng.choice(["id", "method", "params", "jsonrpc"]), None)
    return msg


def battery(n: int = 300, seed: int = 21) -> list[bytes]:
    """`n` lines: each a request (mostly mutated), sometimes cut, corrupted or nested."""
    rng = random.Random(seed)
    lines = []
    for ident in range(n):
        msg = _request(rng, ident)
        if rng.random() < 0.8:
            msg = _mutate(rng, msg)
        raw = json.dumps(msg).encode()  # NaN and Infinity go out as such: not JSON
        roll = rng.random()
        if roll < 0.05:
            raw = raw[: rng.randrange(1, len(raw))]
        elif roll < 0.08:
            at = rng.randrange(len(raw))
            raw = raw[:at] + rng.choice([b"\xff", b"\xc3", b"\x00", b"\\ud800"]) + raw[at:]
        elif roll < 0.11:
            depth = rng.choice([1_000, 100_000])
            raw = b"[" * depth + raw + b"]" * depth
        elif roll < 0.14:
            raw = b"[" + raw + b"," + raw + b"]"
        lines.append(raw + b"\n")
    return lines


def _check_reply(line: bytes, reply_line: bytes) -> list[dict[str, Any]]:
    """One output line: strict JSON in UTF-8, one JSON-RPC 2.0 response or a batch of them."""
    text = reply_line.decode("utf-8")  # well-formed UTF-8 (raises otherwise)

    def no_constant(name: str) -> Any:
        raise AssertionError(f"{name} in a reply to {line[:200]!r}")

    doc = json.loads(text, parse_constant=no_constant)
    replies = doc if isinstance(doc, list) else [doc]
    assert replies, f"an empty batch reply to {line[:200]!r}"
    for r in replies:
        assert r["jsonrpc"] == "2.0" and "id" in r
        assert ("result" in r) != ("error" in r), r
        if "error" in r:
            err = r["error"]
            assert err["code"] in ERROR_CODES, f"{err} for {line[:300]!r}"
            assert isinstance(err["message"], str) and err["message"]
            assert "\n" not in err["message"] and "Traceback" not in err["message"]
    return replies


def _refuse(name: str) -> Any:
    raise ValueError(name)


def _expectation(line: bytes) -> tuple[bool, Any]:
    """(a reply is owed, the id it must carry) for a single (non-batch) line."""
    try:
        msg = json.loads(line, parse_constant=_refuse)
    except (ValueError, RecursionError):
        return True, None  # not JSON (NaN is not JSON either): a parse error, id null
    if not isinstance(msg, dict):
        return not isinstance(msg, list), None
    ident = msg.get("id")
    valid_id = isinstance(ident, (str, int)) and not isinstance(ident, bool)
    if msg.get("jsonrpc") != "2.0":
        return True, ident if valid_id else None  # invalid request, its id when it has one
    if "id" not in msg:
        return False, None  # a notification (or a stray response)
    return True, ident if valid_id else None


def test_every_line_of_the_battery_gets_its_one_reply_in_process(indexed: Path) -> None:
    from recall.mcp import server

    tool_results = 0
    for line in battery():
        out = io.BytesIO()
        server.serve(io.BytesIO(line), out)  # returns: no input ends the server
        written = out.getvalue().splitlines()
        assert len(written) <= 1, f"{len(written)} replies to {line[:200]!r}"
        owed, ident = _expectation(line)
        if line.startswith(b"[") and written:
            _check_reply(line, written[0])
            continue
        if not owed:
            continue
        assert len(written) == 1, f"no reply to {line[:200]!r}"
        (reply,) = _check_reply(line, written[0])
        assert reply["id"] == ident, f"{reply} for {line[:200]!r}"
        if ident is None:
            continue
        msg = json.loads(line, parse_constant=_refuse)
        params = msg.get("params")
        if (
            msg.get("method") == "tools/call"
            and isinstance(params, dict)
            and params.get("name") in TOOLS
            and isinstance(params.get("arguments", {}), (dict, type(None)))
            and "error" not in reply
        ):
            tool_results += 1
            content = reply["result"]["content"][0]["text"]
            assert isinstance(content, str) and content
    assert tool_results > 50  # the battery reached the tools, not only the parser


def test_the_server_process_survives_the_whole_battery(indexed: Path) -> None:
    """One process reads the whole battery and answers it as line-by-line serving does."""
    from recall.mcp import server

    lines = battery()
    expected = []
    for line in lines:
        out = io.BytesIO()
        server.serve(io.BytesIO(line), out)
        expected += [_ids(reply) for reply in out.getvalue().splitlines()]
    done = subprocess.run(
        SERVER,
        input=b"".join(lines) + b'{"jsonrpc":"2.0","id":"last","method":"ping"}\n',
        capture_output=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert b"Traceback" not in done.stderr
    replies = done.stdout.splitlines()
    assert json.loads(replies[-1]) == {"jsonrpc": "2.0", "id": "last", "result": {}}
    assert [_ids(reply) for reply in replies[:-1]] == expected


def _ids(reply_line: bytes) -> list[Any]:
    doc = json.loads(reply_line)
    return [r["id"] for r in doc] if isinstance(doc, list) else [doc["id"]]


@pytest.mark.parametrize(
    "line",
    [
        b'{"jsonrpc":"2.0","id":1,"method":"\\ud800"}',
        b'{"jsonrpc":"2.0","id":"\\ud800","method":"ping"}',
        b'{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"\\ud800"}}',
        b'{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"search_history",'
        b'"arguments":{"query":"kafka","scope":"\\ud800"}}}',
        b'{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"search_history",'
        b'"arguments":{"query":"kafka","date_from":"\\ud800"}}}',
        b'{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"remember",'
        b'"arguments":{"text":"a fact","category":"\\ud800"}}}',
        b"[" * 100_000 + b"]" * 100_000,
        b'{"a":' * 100_000 + b"1" + b"}" * 100_000,
        b'{"jsonrpc":"2.0","id":6,"method":"ping","params":' + b"[" * 900 + b"]" * 900 + b"}",
        b'{"jsonrpc":"2.0","id":7,"method":"ping","params":{"x":NaN}}',
    ],
)
def test_the_reported_lines_get_an_answer_and_the_server_goes_on(line: bytes) -> None:
    from recall.mcp import server

    out = io.BytesIO()
    ping = b'{"jsonrpc":"2.0","id":"next","method":"ping"}\n'
    server.serve(io.BytesIO(line + b"\n" + ping), out)
    first, second = out.getvalue().splitlines()
    reply = _check_reply(line, first)[0]
    owed, ident = _expectation(line)
    assert owed and reply["id"] == ident
    assert json.loads(second) == {"jsonrpc": "2.0", "id": "next", "result": {}}


TOOL_ERRORS = [
    ("search_history", {"query": "kafka", "date_to": "9999-12-31"}, None),  # the last day
    ("search_history", {"query": "kafka", "project": "\ud800"}, None),
    ("search_history", {"query": "kafka", "project": "x" * 100_000}, "project"),
    ("show_session", {"session": "\ud800"}, "session"),
    ("show_session", {"session": "%" * 9_000}, "session"),
    ("show_session", {"session": "x" * 100_000}, "session"),
    ("show_session", {"session": "pay-1", "agent": "\ud800"}, "session"),
    ("search_history", {"query": "kafka", "scope": "\ud800"}, "scope"),
    ("search_memories", {"query": "ledger", "category": "\ud800"}, "category"),
]


@pytest.mark.parametrize(("tool", "args", "word"), TOOL_ERRORS)
def test_bad_argument_values_are_tool_errors_not_internal_errors(
    indexed: Path, tool: str, args: dict[str, Any], word: str | None
) -> None:
    from recall.mcp import server

    session = server.Session()
    call = {"name": tool, "arguments": args}
    reply = session.handle({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": call})
    assert isinstance(reply, dict) and "error" not in reply, reply
    result = reply["result"]
    if word is None:  # a value that can simply match nothing
        assert result["isError"] is False
        return
    assert result["isError"] is True
    message = result["content"][0]["text"]
    assert word in message.lower() and len(message) <= 500
    server._dumps(reply).encode("utf-8")  # what the server writes is UTF-8
