"""Fuzz targets: each takes raw bytes and raises only on a real bug.

Both drivers in `run.py` call these: atheris (coverage-guided) where it is
installed, a seeded mutation loop elsewhere. Properties checked:

- `rank`: the Rust core and the twin give the same words, the same BM25 bits
  and the same dedup decisions; scores are finite and >= 0; kept indices
  ascend from 0.
- `reminders`: both cores strip `<system-reminder>` spans identically.
- `adapters`: no agent adapter raises on any bytes (docs/mirror.md: never on bad
  content); consumed offsets stay inside the input; resuming from the
  returned offset and state does not raise either; roles are user/assistant.
- `query`: whatever is typed (quotes, FTS5 operators, lone surrogates from
  a non-UTF-8 argv), `recall.search.search` over a small store answers: no
  FTS5 error, at most `limit` distinct sessions, JSON that can be written;
  the parser keeps at most `MAX_TERMS` terms.
- `mcp`: any bytes on `recall mcp`'s stdin (over a small index): the server
  never raises, writes at most one line per line read, and each is strict
  JSON in UTF-8, a JSON-RPC 2.0 response with exactly one of result and
  error, never -32603 (docs/reliability.md, "The MCP server").
"""

from __future__ import annotations

import atexit
import contextlib
import io
import json
import os
import shutil
import sqlite3
import tempfile
from collections.abc import Callable
from pathlib import Path

from recall import _accel, _core  # type: ignore[attr-defined,unused-ignore]
from recall.agents import ADAPTERS, IMPORT
from recall.cli.render import to_json
from recall.ingest import store_part
from recall.privacy.redaction import current
from recall.search.keyword import search
from recall.search.query import MAX_TERMS, parse
from recall.search.results import Filters
from recall.store.migrations import migrate
from recall.types import ASSISTANT, USER

TWIN = _accel.twin()


def text_of(data: bytes) -> str:
    """Any str, lone surrogates included: the first byte picks how the rest decodes."""
    if not data:
        return ""
    if data[0] & 1:
        rest = data[1:]
        return rest[: len(rest) // 2 * 2].decode("utf-16-le", "surrogatepass")
    return data[1:].decode("utf-8", "surrogateescape")


def rank(data: bytes) -> None:
    head, text = data[:3].ljust(3, b"\0"), text_of(data[3:])
    query, *docs = text.split("\x1e")
    k1, b, t = head[0] % 41 / 10, head[1] % 11 / 10, head[2] % 11 / 10
    for s in (query, *docs):
        assert _core.tokenize(s) == TWIN.tokenize(s), s
    rust = _core.bm25_scores(query, docs, k1, b)
    assert [x.hex() for x in rust] == [x.hex() for x in TWIN.bm25_scores(query, docs, k1, b)]
    assert all(0.0 <= x < float("inf") for x in rust)
    kept = _core.dedup(docs, t)
    assert kept == TWIN.dedup(docs, t)
    assert kept == sorted(set(kept)) and (kept[:1] == [0] if docs else kept == [])


def reminders(data: bytes) -> None:
    text = text_of(data)
    assert _core.strip_reminders(text) == TWIN.strip_reminders(text)


_PATHS = {
    "claude": [Path("/fuzz/.claude/projects/-srv-app/0a1b2c3d-4e5f-4061-8071-2a3b4c5d6e7f.jsonl")],
    "codex": [Path("/fuzz/.codex/sessions/2026/03/05/rollout-2026-03-05T14-10-00-0199d3m0.jsonl")],
    "gemini": [
        Path("/fuzz/.gemini/tmp/abc/chats/session-2026-03-09T11-00-3f2ad3m0.json"),
        Path("/fuzz/.gemini/tmp/abc/chats/session-2026-03-09T11-00-3f2ad3m0.jsonl"),
    ],
    "cursor": [
        Path("/fuzz/.cursor/projects/srv-app/agent-transcripts/c1/c1.jsonl"),
        Path("/fuzz/.cursor/projects/srv-app/agent-transcripts/c1.txt"),
    ],
    "cline": [
        Path("/fuzz/globalStorage/saoudrizwan.claude-dev/tasks/1767000000000/ui_messages.json"),
        Path("/fuzz/.cline/data/sessions/s1/s1.messages.json"),
    ],
    "roo": [Path("/fuzz/globalStorage/rooveterinaryinc.roo-cline/tasks/t1/ui_messages.json")],
    "copilot": [Path("/fuzz/.copilot/session-state/5b0c7c2e-1f7a-4d7e/events.jsonl")],
    "pi": [Path("/fuzz/.pi/agent/sessions/--srv-app--/2026-03-05T14-10-00-000Z_0199d3m0.jsonl")],
    "openclaw": [Path("/fuzz/.openclaw/agents/main/sessions/0199d3m0.jsonl")],
    "qwen": [Path("/fuzz/.qwen/projects/-srv-app/chats/0199d3m0.jsonl")],
    "antigravity": [
        Path("/fuzz/.gemini/antigravity-cli/brain/b7e2/.system_generated/logs/transcript.jsonl")
    ],
    "aider": [Path("/fuzz/srv/app/.aider.chat.history.md")],
}


def adapters(data: bytes) -> None:
    cut = len(data) // 2  # the file as a first read saw it; then it grew to all of `data`
    for adapter in (*ADAPTERS.values(), IMPORT):
        for path in _PATHS.get(adapter.name, [Path("/fuzz/import.jsonl")]):
            parsed = adapter.parse(path, data, 0, {})
            assert 0 <= parsed.offset <= len(data), (adapter.name, parsed.offset)
            for part in parsed.parts:
                assert all(m.role in (USER, ASSISTANT) for m in part.messages)
            if adapter.incremental:
                first = adapter.parse(path, data[:cut], 0, {})
                rest = adapter.parse(path, data[first.offset :], first.offset, first.state)
                assert 0 <= rest.offset <= len(data) - first.offset


_SESSIONS = [
    ("s1", "Fix PAY-1234 with --no-verify in src/main.rs; retry backoff is 30s."),
    ("s2", "Fix PAY-1234 with --no-verify in src/main.rs; retry backoff is 30s!"),
    ("s3", "日本語のテキストを検索できますか。Kafka か NATS か。"),
    ("s4", 'We decided: NATS JetStream for the queue, "quoted" (parens) AND NEAR stars*'),
]


def _store() -> sqlite3.Connection:
    db = sqlite3.connect(":memory:", isolation_level=None)
    migrate(db)
    lines = [json.dumps({"session": sid, "role": "user", "text": text}) for sid, text in _SESSIONS]
    parsed = IMPORT.parse(Path("/fuzz/import.jsonl"), "\n".join(lines).encode() + b"\n", 0, {})
    for part in parsed.parts:
        store_part(db, part, "fuzzbox", None, current())
    return db


_db = _store()


def query(data: bytes) -> None:
    typed = text_of(data)
    assert len(parse(typed).terms) <= MAX_TERMS
    limit = 1 + (data[0] % 5 if data else 0)
    out = search(_db, parse(typed), Filters(), limit)
    assert out.found == len(out.results) <= limit
    assert len({r.session_id for r in out.results}) == out.found
    to_json(out).encode("utf-8")  # the --json output can always be written


_MCP_HOME: list[str] = []


def _mcp_home() -> None:
    """A data folder of its own with the sample sessions indexed, made on first use."""
    if _MCP_HOME:
        return
    base = Path(tempfile.gettempdir())
    for old in base.glob("recall-fuzz-mcp-*"):  # libFuzzer's exit skips clean-up: next run's
        pid = old.name.rsplit("-", 1)[-1]
        if pid.isdigit() and not _alive(int(pid)):
            shutil.rmtree(old, ignore_errors=True)
    home = str(base / f"recall-fuzz-mcp-{os.getpid()}")
    os.makedirs(home)
    atexit.register(shutil.rmtree, home, True)
    os.environ.update(RECALL_HOME=home, RECALL_COMPUTER="fuzzbox")
    lines = [
        json.dumps({"session": sid, "role": "user", "text": text, "project": "/srv/app"})
        for sid, text in _SESSIONS
    ]
    Path(home, "import.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    from recall.cli import main

    with contextlib.redirect_stdout(io.StringIO()):
        assert main(["ingest", "--format", "jsonl", str(Path(home, "import.jsonl"))]) == 0
    _MCP_HOME.append(home)


def _alive(pid: int) -> bool:
    """Whether process `pid` still runs (signal 0 checks without sending anything)."""
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError):
        return True
    return True


def _not_json(name: str) -> None:
    raise AssertionError(f"{name} in a reply")


def mcp(data: bytes) -> None:
    from recall.mcp.server import serve

    _mcp_home()
    out = io.BytesIO()
    serve(io.BytesIO(data), out)
    replies = out.getvalue().splitlines()
    assert len(replies) <= data.count(b"\n") + 1, (len(replies), data[:200])
    for line in replies:
        doc = json.loads(line.decode("utf-8"), parse_constant=_not_json)
        for reply in doc if isinstance(doc, list) else [doc]:
            assert reply["jsonrpc"] == "2.0" and "id" in reply, reply
            assert ("result" in reply) != ("error" in reply), reply
            assert "error" not in reply or reply["error"]["code"] != -32603, reply


TARGETS: dict[str, Callable[[bytes], None]] = {
    "rank": rank,
    "reminders": reminders,
    "adapters": adapters,
    "query": query,
    "mcp": mcp,
}
