"""The MCP protocol over stdio: one JSON-RPC 2.0 message per line, nothing else on stdout.

A small server of our own rather than the official SDK, which would bring
pydantic, starlette, uvicorn and httpx into every install. It answers
`initialize` (choosing the client's protocol version when we speak it, else
our newest), `ping`, `tools/list` and `tools/call`; ignores notifications and
responses; and answers a malformed line with a JSON-RPC error and reads on.

No input ends it (docs/reliability.md): lone surrogates in what it is sent are
replaced (the id is echoed exactly, escaped), nesting is bounded, NaN is not
JSON, and a reply that cannot be encoded becomes an error reply.
"""

from __future__ import annotations

import json
import sys
from typing import IO, Any

from recall import __version__
from recall.mcp.history import history_tools
from recall.mcp.memory_tools import memory_tools
from recall.mcp.tools import ToolError, call_tool, list_tools, provide
from recall.textutil import scrub

provide(history_tools)
provide(memory_tools)

VERSIONS = ("2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05")
"""Protocol versions we speak, newest first."""
STRUCTURED_SINCE = "2025-06-18"
"""The first version whose tool results carry `structuredContent`."""
MAX_LINE = 4 * 1024 * 1024
"""A request is a few hundred bytes; a longer line is refused, not parsed."""
MAX_TOOL_ERROR = 500
"""Characters of a tool error's text: it may quote a 10,000-character argument back."""
MAX_DEPTH = 64
"""A request nests three or four levels; a deeper message is refused before any tool sees
it (Python's own parser gives up, with a RecursionError, near 1000)."""

PARSE_ERROR, INVALID_REQUEST, METHOD_NOT_FOUND, INVALID_PARAMS, INTERNAL_ERROR = (
    -32700,
    -32600,
    -32601,
    -32602,
    -32603,
)

INSTRUCTIONS = (
    "recall indexes this user's past Claude Code, Codex and Gemini CLI conversations. "
    "Use search_history when the user refers to earlier work, decisions or discussions "
    "('what did we decide about…', 'the bug we fixed last week'), then show_session to "
    "read the conversation around a result. Use remember to keep a fact the user will "
    "want known next time, and search_memories to look such facts up."
)


class Session:
    """One client connection: the negotiated version decides the result shape."""

    def __init__(self) -> None:
        self.version = VERSIONS[0]

    def handle(self, message: Any) -> dict[str, Any] | list[dict[str, Any]] | None:
        """The reply to one decoded message (a batch gets a list), or None for none."""
        try:
            clean = _clean(message, MAX_DEPTH)
        except _TooDeep:
            too_deep = f"nested deeper than {MAX_DEPTH} levels"
            return _error(_id_of(message), INVALID_REQUEST, too_deep)
        if isinstance(clean, list):
            if not clean:
                return _error(None, INVALID_REQUEST, "empty batch")
            pairs = zip(clean, message, strict=True)
            replies = [r for m, raw in pairs if (r := self._one(_with_id(m, raw))) is not None]
            return replies or None
        return self._one(_with_id(clean, message))

    def _one(self, message: Any) -> dict[str, Any] | None:
        if not isinstance(message, dict) or message.get("jsonrpc") != "2.0":
            return _error(_id_of(message), INVALID_REQUEST, "not a JSON-RPC 2.0 message")
        method = message.get("method")
        if method is None and ("result" in message or "error" in message):
            return None  # a response to a request we never send
        has_id = "id" in message
        ident = message.get("id")
        if has_id and (isinstance(ident, bool) or not isinstance(ident, (str, int))):
            return _error(None, INVALID_REQUEST, "id must be a string or a number, not null")
        if not isinstance(method, str):
            return _error(ident, INVALID_REQUEST, "method must be a string") if has_id else None
        params = message.get("params", {})
        if params is None:
            params = {}
        if not isinstance(params, dict):
            return _error(ident, INVALID_PARAMS, "params must be an object") if has_id else None
        if not has_id:
            return None  # notifications (initialized, cancelled, …) get no reply
        try:
            return {"jsonrpc": "2.0", "id": ident, "result": self._dispatch(method, params)}
        except _RpcError as exc:
            return _error(ident, exc.code, exc.message)
        except Exception as exc:  # a bug in a tool must not end the session
            sys.stderr.write(f"recall mcp: {method} failed: {type(exc).__name__}: {exc}\n")
            return _error(ident, INTERNAL_ERROR, f"{type(exc).__name__}: {exc}")

    def _dispatch(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        if method == "initialize":
            asked = params.get("protocolVersion")
            self.version = asked if asked in VERSIONS else VERSIONS[0]
            return {
                "protocolVersion": self.version,
                "capabilities": {"tools": {"listChanged": False}},
                "serverInfo": {"name": "recall", "title": "recall", "version": __version__},
                "instructions": INSTRUCTIONS,
            }
        if method == "ping":
            return {}
        if method == "tools/list":
            return {"tools": [t.describe() for t in list_tools()]}
        if method == "tools/call":
            name = params.get("name")
            args = params.get("arguments") or {}
            if not isinstance(name, str):
                raise _RpcError(INVALID_PARAMS, "tools/call needs a tool name")
            if not isinstance(args, dict):
                raise _RpcError(INVALID_PARAMS, "arguments must be an object")
            return self._call(name, args)
        raise _RpcError(METHOD_NOT_FOUND, f"method not found: {_shown(method)}")

    def _call(self, name: str, args: dict[str, Any]) -> dict[str, Any]:
        try:
            found = call_tool(name, args)
        except KeyError:
            raise _RpcError(INVALID_PARAMS, f"Unknown tool: {_shown(name)}") from None
        except ToolError as exc:  # cut: it may quote an argument the model sent
            text = _shown(str(exc), MAX_TOOL_ERROR)
            return {"content": [{"type": "text", "text": text}], "isError": True}
        result: dict[str, Any] = {
            "content": [{"type": "text", "text": _dumps(found)}],
            "isError": False,
        }
        if self.version >= STRUCTURED_SINCE:
            result["structuredContent"] = found
        return result


class _RpcError(Exception):
    def __init__(self, code: int, message: str) -> None:
        super().__init__(message)
        self.code, self.message = code, message


class _TooDeep(Exception):
    pass


def _clean(value: Any, room: int) -> Any:
    """`value` with every string and key scrubbed of lone surrogates (which neither UTF-8,
    SQLite nor the Rust core can take); _TooDeep past `room` levels of nesting."""
    if isinstance(value, str):
        return scrub(value)
    if isinstance(value, (dict, list)):
        if room <= 0:
            raise _TooDeep
        if isinstance(value, list):
            return [_clean(v, room - 1) for v in value]
        return {scrub(k): _clean(v, room - 1) for k, v in value.items()}
    return value


def _with_id(clean: Any, raw: Any) -> Any:
    """The cleaned message with its id as sent: a reply must carry the exact id."""
    if isinstance(clean, dict) and isinstance(raw, dict) and "id" in raw:
        clean["id"] = raw["id"]
    return clean


def _shown(text: str, limit: int = 200) -> str:
    """`text` (which may quote what the client sent) on one line, at most `limit` long."""
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def _id_of(message: Any) -> str | int | None:
    ident = message.get("id") if isinstance(message, dict) else None
    return ident if isinstance(ident, (str, int)) and not isinstance(ident, bool) else None


def _error(ident: str | int | None, code: int, message: str) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": ident, "error": {"code": code, "message": message}}


def _dumps(obj: Any, ascii_only: bool = False) -> str:
    """Compact JSON on one line (json escapes every newline inside strings)."""
    return json.dumps(obj, ensure_ascii=ascii_only, separators=(",", ":"), allow_nan=False)


def _encode(reply: Any) -> bytes:
    """One reply as one line of UTF-8 JSON, whatever it holds. An id sent with a lone
    surrogate is echoed escaped (`\\ud800`, so the line is ASCII and the client gets its
    id back); a reply JSON cannot carry (NaN) becomes an error reply with its id."""
    try:
        try:
            return _dumps(reply).encode("utf-8") + b"\n"
        except UnicodeEncodeError:
            return _dumps(reply, ascii_only=True).encode("ascii") + b"\n"
    except (ValueError, TypeError, RecursionError) as exc:
        ident = _id_of(reply)
        sys.stderr.write(f"recall mcp: reply not encodable: {type(exc).__name__}: {exc}\n")
        failed = _error(ident, INTERNAL_ERROR, f"reply not encodable: {type(exc).__name__}")
        return _dumps(failed, ascii_only=True).encode("ascii") + b"\n"


def _not_json(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def serve(stdin: IO[bytes], stdout: IO[bytes]) -> None:
    """Answer messages from `stdin` until it closes. Everything but protocol goes to
    stderr: `sys.stdout` is pointed there while serving, so no stray print corrupts
    the stream."""
    session = Session()
    real_stdout, sys.stdout = sys.stdout, sys.stderr
    try:
        while True:
            line = stdin.readline(MAX_LINE + 1)
            if not line:
                return
            if len(line) > MAX_LINE and not line.endswith(b"\n"):
                while (rest := stdin.readline(1 << 20)) and not rest.endswith(b"\n"):
                    pass
                reply: Any = _error(None, PARSE_ERROR, f"message longer than {MAX_LINE} bytes")
            elif not line.strip():
                continue
            else:
                reply = _reply(session, line)
            if reply is not None:
                stdout.write(_encode(reply))
                stdout.flush()
    finally:
        sys.stdout = real_stdout


def _reply(session: Session, line: bytes) -> Any:
    """The reply to one line; never raises (a bug is an internal error, and logged)."""
    try:
        message = json.loads(line, parse_constant=_not_json)
    except ValueError as exc:  # also bad UTF-8, NaN, an int of 5000 digits
        return _error(None, PARSE_ERROR, f"not JSON: {_shown(str(exc))}")
    except RecursionError:
        return _error(None, PARSE_ERROR, f"not JSON: nested deeper than {MAX_DEPTH} levels")
    try:
        return session.handle(message)
    except Exception as exc:
        sys.stderr.write(f"recall mcp: {type(exc).__name__}: {exc}\n")
        return _error(_id_of(message), INTERNAL_ERROR, f"{type(exc).__name__}")
