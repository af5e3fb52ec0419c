"""Turning an agent's hook payload into the transcripts to ingest.

Claude Code, Codex hooks and Gemini CLI send JSON on stdin; Codex's legacy
`notify` program passes it as the last argument. Payloads are untrusted:
anything unexpected is reported as a `UsageError`, which the hook path logs
before exiting 0.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

from recall.agents import ADAPTERS, Adapter, adapter_for
from recall.errors import UsageError

MAX_PAYLOAD = 4 * 1024 * 1024
"""Hook payloads are a few hundred bytes; a larger one is refused, not read on."""
STDIN_WAIT_S = 2.0
"""How long a hook waits for its payload to finish arriving: an agent writes it at once,
so a stdin that stays open longer is not a payload, and the agent must not wait on it."""


def payload_from(args: list[str]) -> dict[str, Any]:
    """The hook's payload: a JSON argument (Codex `notify`) or standard input."""
    in_argv = next((a for a in reversed(args) if a.lstrip().startswith("{")), None)
    if in_argv is not None:
        return read_payload(in_argv)
    if sys.stdin is None or sys.stdin.isatty():
        return read_payload("")
    return read_payload(read_stdin(MAX_PAYLOAD + 1, STDIN_WAIT_S))


def read_stdin(limit: int, timeout: float) -> bytes:
    """At most `limit` bytes of standard input, up to its end, within `timeout` seconds.

    Reads the descriptor itself (never the buffered `sys.stdin`, whose lock a
    reader left blocked would hold at exit); raises UsageError at the deadline.
    """
    import threading

    fd = sys.stdin.fileno()
    chunks: list[bytes] = []
    done = threading.Event()

    def drain() -> None:  # a thread, since Windows cannot wait on a pipe with select
        size = 0
        try:
            while size < limit and (block := os.read(fd, min(1 << 16, limit - size))):
                chunks.append(block)
                size += len(block)
        except OSError:
            pass
        done.set()

    threading.Thread(target=drain, daemon=True).start()
    if not done.wait(timeout):
        raise UsageError(f"hook payload did not finish arriving within {timeout:g} s")
    return b"".join(chunks)


def read_payload(raw: str | bytes) -> dict[str, Any]:
    if len(raw) > MAX_PAYLOAD:
        raise UsageError(f"hook payload larger than {MAX_PAYLOAD} bytes")
    if isinstance(raw, bytes):
        raw = raw.decode("utf-8", errors="replace")
    if not raw.strip():
        raise UsageError("empty hook payload")
    try:
        payload = json.loads(raw)
    except ValueError as exc:
        raise UsageError(f"hook payload is not JSON: {exc}") from None
    if not isinstance(payload, dict):
        raise UsageError("hook payload is not a JSON object")
    return payload


def _guess_agent(payload: dict[str, Any], path: Path | None) -> str | None:
    if "thread-id" in payload or payload.get("type") == "agent-turn-complete":
        return "codex"
    adapter = adapter_for(path) if path is not None else None
    if adapter is not None:
        return adapter.name
    event = str(payload.get("hook_event_name", ""))
    if event in ("AfterAgent", "BeforeAgent"):
        return "gemini"
    return None


def _codex_rollout(thread_id: str) -> Path | None:
    """The newest rollout file of a Codex thread (notify payloads carry no path)."""
    if not thread_id or "/" in thread_id or "\\" in thread_id or ".." in thread_id:
        return None
    for root in ADAPTERS["codex"].default_roots():
        if not root.is_dir():
            continue
        for day in sorted(root.glob("*/*/*"), reverse=True):
            hits = sorted(day.glob(f"rollout-*{thread_id}.jsonl"))
            if hits:
                return hits[-1]
        hits = sorted(root.rglob(f"*{thread_id}.jsonl"))
        if hits:
            return hits[-1]
    return None


def transcripts_from_payload(
    payload: dict[str, Any], agent: str | None = None
) -> list[tuple[Adapter, Path]]:
    """The (adapter, transcript) pairs a hook payload points at."""
    paths: list[Path] = []
    for field in ("transcript_path", "agent_transcript_path"):
        value = payload.get(field)
        if isinstance(value, str) and value.strip():
            paths.append(Path(os.path.expanduser(value.strip())))
    if not paths:
        thread = payload.get("thread-id") or payload.get("session_id")
        rollout = _codex_rollout(thread) if isinstance(thread, str) else None
        if rollout is None:
            raise UsageError("hook payload names no transcript (no transcript_path)")
        paths.append(rollout)
        agent = agent or "codex"
    name = agent or _guess_agent(payload, paths[0])
    if name is None:
        raise UsageError(f"cannot tell which agent wrote {paths[0]}; pass --agent")
    if name not in ADAPTERS:
        raise UsageError(f"unknown agent {name!r}")
    return [(ADAPTERS[name], p) for p in paths]
