"""The synthetic corpus's transcripts in each agent's real layout: Claude Code, Codex, Gemini.

Split from corpus.py, which picks an agent per session and calls its writer here.
"""

from __future__ import annotations

import hashlib
import json
import os
import random
from datetime import datetime
from pathlib import Path
from typing import Any

from corpus_text import (
    MODELS_CLAUDE,
    MODELS_CODEX,
    MODELS_GEMINI,
    TOOLS_CLAUDE,
    VERSIONS_CLAUDE,
    Clock,
    Project,
    Topic,
    Vocab,
    Writer,
    _vocab,
    b64ish,
    dumps,
    iso,
    new_uuid,
    reminder,
)


class ClaudeSession:
    """Writes one Claude Code session, a line per content block."""

    def __init__(
        self,
        rng: random.Random,
        writer: Writer,
        session_id: str,
        cwd: str,
        branch: str,
        version: str,
        model: str,
        clock: Clock,
        parent: str | None = None,
    ) -> None:
        self.rng, self.w = rng, writer
        self.sid, self.cwd, self.branch, self.version, self.model = (
            session_id,
            cwd,
            branch,
            version,
            model,
        )
        self.clock = clock
        self.parent = parent
        self.lines: list[dict[str, Any]] = []

    def _base(self, kind: str) -> dict[str, Any]:
        uid = new_uuid(self.rng)
        obj = {
            "parentUuid": self.parent,
            "isSidechain": False,
            "userType": "external",
            "cwd": self.cwd,
            "sessionId": self.sid,
            "version": self.version,
            "gitBranch": self.branch,
            "type": kind,
        }
        self.parent = uid
        obj["uuid"] = uid
        obj["timestamp"] = iso(self.clock.tick())
        return obj

    def user(self, content: Any, **extra: Any) -> dict[str, Any]:
        obj = self._base("user")
        obj["message"] = {"role": "user", "content": content}
        obj.update(extra)
        self.lines.append(obj)
        return obj

    def assistant(self, block: dict[str, Any], msg_id: str, req: str, stop: str | None) -> None:
        obj = self._base("assistant")
        obj["message"] = {
            "id": msg_id,
            "type": "message",
            "role": "assistant",
            "model": self.model,
            "content": [block],
            "stop_reason": stop,
            "stop_sequence": None,
            "usage": {
                "input_tokens": self.rng.randint(3, 12),
                "cache_creation_input_tokens": self.rng.randint(0, 4000),
                "cache_read_input_tokens": self.rng.randint(10000, 90000),
                "output_tokens": self.rng.randint(20, 900),
                "service_tier": "standard",
            },
        }
        obj["requestId"] = "req_" + b64ish(self.rng, 24)
        self.lines.append(obj)

    def _tool(self, name: str) -> tuple[dict[str, Any], str]:
        rng, w = self.rng, self.w
        path = f"{self.cwd}/{rng.choice(w.topic.paths)}"
        if name == "Bash":
            cmd = rng.choice(
                (
                    f"pytest -x tests/ {w.topic.flag}",
                    f"git diff HEAD~{rng.randint(1, 5)} -- {rng.choice(w.topic.paths)}",
                    f"rg -n '{rng.choice(w.topic.funcs)}' src/",
                    "make lint && make test",
                    f"kubectl logs deploy/{w.topic.project.name} --since=1h | tail -200",
                )
            )
            return {"command": cmd, "description": w.sentence(3, 7)}, "stdout"
        if name in ("Read", "Write"):
            return {"file_path": path}, "file"
        if name == "Edit":
            return {
                "file_path": path,
                "old_string": w.sentence(4, 10),
                "new_string": w.sentence(4, 12),
            }, "edit"
        if name == "TodoWrite":
            todos = [
                {"content": w.sentence(3, 8), "status": "pending", "activeForm": w.sentence(3, 6)}
                for _ in range(rng.randint(2, 5))
            ]
            return {"todos": todos}, "todos"
        return {"pattern": rng.choice(w.topic.funcs), "path": self.cwd}, "grep"

    def turn(self, prompt: str | None = None) -> None:
        """One user prompt and the assistant's work on it (tools, thinking, answer)."""
        rng, w = self.rng, self.w
        self.clock.think()
        text = prompt if prompt is not None else w.prompt()
        if rng.random() < 0.15:
            text = f"{text}\n\n{reminder(rng, w)}"
        content: Any = text if rng.random() < 0.5 else [{"type": "text", "text": text}]
        self.user(content)
        msg_id = "msg_" + b64ish(rng, 24)
        req = "req_" + b64ish(rng, 24)
        if rng.random() < 0.5:
            block = {"type": "thinking", "thinking": w.thinking(), "signature": b64ish(rng, 400)}
            self.assistant(block, msg_id, req, None)
        calls = rng.choices((0, 1, 2, 3, 4), (40, 30, 17, 9, 4))[0]
        for _ in range(calls):
            if rng.random() < 0.4:
                self.assistant({"type": "text", "text": w.short()}, msg_id, req, None)
            name = rng.choice(TOOLS_CLAUDE)
            tool_id = "toolu_" + b64ish(rng, 24)
            args, shape = self._tool(name)
            block = {"type": "tool_use", "id": tool_id, "name": name, "input": args}
            self.assistant(block, msg_id, req, "tool_use")
            out = w.vocab.tool_pool.output(rng)
            if rng.random() < 0.05:
                out += "\n\n" + reminder(rng, w)
            result: Any
            if shape == "stdout":
                result = {"stdout": out, "stderr": "", "interrupted": False, "isImage": False}
            elif shape == "file":
                result = {
                    "type": "text",
                    "file": {
                        "filePath": args["file_path"],
                        "content": out,
                        "numLines": out.count("\n") + 1,
                    },
                }
            elif shape == "todos":
                result = {"oldTodos": [], "newTodos": args["todos"]}
                out = "Todos have been modified successfully."
            else:
                result = {"filenames": [], "durationMs": rng.randint(2, 90), "content": out}
            is_error = rng.random() < 0.04
            block = {"tool_use_id": tool_id, "type": "tool_result", "content": out}
            if is_error:
                block["is_error"] = True
            self.user([block], toolUseResult=result)
            msg_id = "msg_" + b64ish(rng, 24)
            req = "req_" + b64ish(rng, 24)
        self.assistant({"type": "text", "text": w.answer()}, msg_id, req, "end_turn")
        if rng.random() < 0.3:
            obj = self._base("system")
            obj.update(subtype="turn_duration", durationMs=rng.randint(2000, 200000), isMeta=False)
            self.lines.append(obj)


def claude_slug(cwd: str) -> str:
    return "".join(c if c.isalnum() else "-" for c in cwd)


def write_claude(
    root: Path, rng: random.Random, w: Writer, turns: int, start: datetime
) -> tuple[Path, int]:
    project = w.topic.project
    sid = new_uuid(rng)
    version = rng.choice(VERSIONS_CLAUDE)
    clock = Clock(start, rng)
    s = ClaudeSession(
        rng,
        w,
        sid,
        project.cwd,
        rng.choice(project.branches),
        version,
        rng.choice(MODELS_CLAUDE),
        clock,
    )
    head: list[dict[str, Any]] = []
    if version.startswith(("1.", "2.0")) and rng.random() < 0.6:
        head.append({"type": "summary", "summary": w.sentence(4, 9), "leafUuid": new_uuid(rng)})
    if rng.random() < 0.2:  # a slash command, then its expansion as an isMeta line
        s.user("<command-message>init is analyzing your codebase…</command-message>\n"
               "<command-name>/init</command-name>")  # fmt: skip
        s.user([{"type": "text", "text": w.paragraph(6)}], isMeta=True)
    for n in range(turns):
        s.turn()
        if n == 0 and rng.random() < 0.5:
            s.lines.append(
                {
                    "type": "file-history-snapshot",
                    "messageId": new_uuid(rng),
                    "snapshot": {"messageId": new_uuid(rng), "trackedFileBackups": {}},
                    "isSnapshotUpdate": False,
                }
            )
    if version.startswith("2.1"):
        s.lines.append({"type": "ai-title", "sessionId": sid, "aiTitle": w.sentence(3, 8)})
    path = root / ".claude" / "projects" / claude_slug(project.cwd) / f"{sid}.jsonl"
    return path, _write(path, head + s.lines, clock.now)


def append_claude_turn(path: Path, seed: int, marker: str) -> int:
    """Grow a Claude session by one user+assistant turn, as Claude Code would; bytes added.

    The new lines continue the file's last line (same session, cwd, branch,
    parentUuid chain, later timestamps). `marker` is put in the user's prompt
    so a caller can check the turn reached the index.
    """
    with open(path, "rb") as fh:
        fh.seek(max(0, path.stat().st_size - 256 * 1024))
        tail = fh.read().splitlines()
    last = None
    for raw in reversed(tail):
        try:
            obj = json.loads(raw)
        except ValueError:
            continue
        if obj.get("type") in ("user", "assistant", "system") and obj.get("uuid"):
            last = obj
            break
    if last is None:
        raise ValueError(f"{path}: no Claude turn to continue")
    rng = random.Random(f"append:{seed}:{marker}")
    vocab = _vocab(seed)
    project = Project(0, rng)
    project.cwd = last["cwd"]
    w = Writer(rng, vocab, Topic(rng, vocab, project))
    stamp = datetime.fromisoformat(last["timestamp"].replace("Z", "+00:00"))
    s = ClaudeSession(
        rng,
        w,
        last["sessionId"],
        last["cwd"],
        last.get("gitBranch", ""),
        last.get("version", "2.1.14"),
        MODELS_CLAUDE[0],
        Clock(stamp, rng),
        parent=last["uuid"],
    )
    s.turn(prompt=f"{w.prompt()} ({marker})")
    data = "".join(dumps(line) + "\n" for line in s.lines).encode()
    with open(path, "ab") as fh:
        fh.write(data)
    return len(data)


# --- Codex CLI ---------------------------------------------------------------------------


def _codex_line(t: datetime, kind: str, payload: dict[str, Any]) -> dict[str, Any]:
    return {"timestamp": iso(t), "type": kind, "payload": payload}


def write_codex(
    root: Path, rng: random.Random, w: Writer, turns: int, start: datetime
) -> tuple[Path, int]:
    project = w.topic.project
    sid = new_uuid(rng)
    clock = Clock(start, rng)
    model = rng.choice(MODELS_CODEX)
    lines: list[dict[str, Any]] = []
    t = clock.now
    lines.append(
        _codex_line(
            t,
            "session_meta",
            {
                "id": sid,
                "timestamp": iso(t),
                "cwd": project.cwd,
                "originator": "codex_cli_rs",
                "cli_version": rng.choice(("0.46.0", "0.58.0", "0.63.0")),
                "source": "cli",
                "model_provider": "openai",
                "base_instructions": {"text": _codex_instructions(w.vocab)},
                "git": {
                    "commit_hash": b64ish(rng, 40).lower(),
                    "branch": rng.choice(project.branches),
                    "repository_url": f"git@github.com:acme/{project.name}.git",
                },
            },
        )
    )

    def message(role: str, kind: str, text: str) -> None:
        lines.append(
            _codex_line(
                clock.tick(0.01, 0.2),
                "response_item",
                {"type": "message", "role": role, "content": [{"type": kind, "text": text}]},
            )
        )

    message("developer", "input_text", "<permissions instructions>\n" + w.paragraph(8))
    message(
        "user",
        "input_text",
        f"# AGENTS.md instructions for {project.cwd}\n\n<INSTRUCTIONS>\n"
        + w.paragraph(10)
        + "\n</INSTRUCTIONS>",
    )
    message(
        "user",
        "input_text",
        f"<environment_context>\n  <cwd>{project.cwd}</cwd>\n  <approval_policy>on-request"
        "</approval_policy>\n  <sandbox_mode>workspace-write</sandbox_mode>\n  <network_access>"
        "restricted</network_access>\n  <shell>zsh</shell>\n</environment_context>",
    )
    for _ in range(turns):
        turn_id = new_uuid(rng)
        clock.think()
        lines.append(
            _codex_line(
                clock.tick(),
                "turn_context",
                {
                    "turn_id": turn_id,
                    "cwd": project.cwd,
                    "approval_policy": "on-request",
                    "sandbox_policy": {
                        "type": "workspace-write",
                        "writable_roots": [project.cwd],
                        "network_access": False,
                        "exclude_tmpdir_env_var": False,
                        "exclude_slash_tmp": False,
                    },
                    "model": model,
                    "effort": rng.choice(("low", "medium", "high")),
                    "summary": "auto",
                },
            )
        )
        lines.append(_codex_line(clock.now, "event_msg", {"type": "task_started"}))
        prompt = w.prompt()
        message("user", "input_text", prompt)
        lines.append(
            _codex_line(
                clock.now,
                "event_msg",
                {"type": "user_message", "message": prompt, "images": [], "local_images": []},
            )
        )
        calls = rng.choices((0, 1, 2, 3, 4), (40, 30, 17, 9, 4))[0]
        for step in range(calls + 1):
            summary = w.short()
            if step and rng.random() < 0.5:
                summary = ""
            lines.append(
                _codex_line(
                    clock.tick(),
                    "response_item",
                    {
                        "type": "reasoning",
                        "summary": [{"type": "summary_text", "text": summary}] if summary else [],
                        "content": None,
                        "encrypted_content": b64ish(rng, rng.randint(300, 1500)),
                    },
                )
            )
            if summary:
                reasoning = {"type": "agent_reasoning", "text": summary}
                lines.append(_codex_line(clock.now, "event_msg", reasoning))
            if calls == 0:
                break
            calls -= 1
            call_id = "call_" + b64ish(rng, 24)
            cmd = rng.choice(
                (
                    ["bash", "-lc", f"rg -n {rng.choice(w.topic.funcs)} ."],
                    ["bash", "-lc", f"sed -n '1,200p' {rng.choice(w.topic.paths)}"],
                    ["bash", "-lc", f"pytest -q {w.topic.flag}"],
                    ["bash", "-lc", "git status --short && git diff"],
                )
            )
            lines.append(
                _codex_line(
                    clock.tick(),
                    "response_item",
                    {
                        "type": "function_call",
                        "name": "shell",
                        "arguments": dumps({"command": cmd, "workdir": project.cwd}),
                        "call_id": call_id,
                    },
                )
            )
            out = w.vocab.tool_pool.output(rng)
            lines.append(
                _codex_line(
                    clock.tick(),
                    "response_item",
                    {
                        "type": "function_call_output",
                        "call_id": call_id,
                        "output": dumps(
                            {
                                "output": out,
                                "metadata": {
                                    "exit_code": 0,
                                    "duration_seconds": round(rng.random(), 1),
                                },
                            }
                        ),
                    },
                )
            )
            lines.append(
                _codex_line(
                    clock.now,
                    "event_msg",
                    {
                        "type": "token_count",
                        "info": {
                            "total_token_usage": {
                                "input_tokens": rng.randint(10000, 200000),
                                "cached_input_tokens": rng.randint(0, 150000),
                                "output_tokens": rng.randint(100, 9000),
                                "reasoning_output_tokens": rng.randint(0, 5000),
                                "total_tokens": rng.randint(10000, 200000),
                            },
                            "model_context_window": 272000,
                        },
                        "rate_limits": {
                            "primary": {"used_percent": rng.randint(0, 100), "window_minutes": 300}
                        },
                    },
                )
            )
        answer = w.answer()
        message("assistant", "output_text", answer)
        lines.append(
            _codex_line(clock.now, "event_msg", {"type": "agent_message", "message": answer})
        )
        lines.append(
            _codex_line(
                clock.now,
                "event_msg",
                {"type": "task_complete", "turn_id": turn_id, "last_agent_message": answer},
            )
        )
    local = start.strftime("%Y-%m-%dT%H-%M-%S")
    day = root / ".codex" / "sessions" / start.strftime("%Y/%m/%d")
    path = day / f"rollout-{local}-{sid}.jsonl"
    return path, _write(path, lines, clock.now)


_INSTRUCTIONS: dict[int, str] = {}


def _codex_instructions(vocab: Vocab) -> str:
    """Codex's base instructions: the same long text at the top of every rollout."""
    key = id(vocab)
    if key not in _INSTRUCTIONS:
        rng = random.Random(99)
        project = Project(0, rng)
        w = Writer(rng, vocab, Topic(rng, vocab, project))
        _INSTRUCTIONS[key] = "You are Codex, a coding agent.\n\n" + "\n\n".join(
            f"## {w.sentence(2, 4)}\n{w.paragraph(4)}" for _ in range(12)
        )
    return _INSTRUCTIONS[key]


# --- Gemini CLI ----------------------------------------------------------------------------


def gemini_folder(root: Path, project: Project, rng: random.Random) -> Path:
    tmp = root / ".gemini" / "tmp"
    if rng.random() < 0.3:  # legacy: sha256 of the project root, no marker
        return tmp / hashlib.sha256(project.cwd.encode()).hexdigest()
    folder = tmp / project.name
    marker = folder / ".project_root"
    if not marker.exists():
        folder.mkdir(parents=True, exist_ok=True)
        marker.write_text(project.cwd)
    return folder


def write_gemini(
    root: Path, rng: random.Random, w: Writer, turns: int, start: datetime
) -> tuple[Path, int]:
    project = w.topic.project
    sid = new_uuid(rng)
    clock = Clock(start, rng)
    model = rng.choice(MODELS_GEMINI)
    lines: list[dict[str, Any]] = [
        {
            "sessionId": sid,
            "projectHash": hashlib.sha256(project.cwd.encode()).hexdigest(),
            "startTime": iso(start),
            "lastUpdated": iso(start),
            "kind": "main",
            "directories": [project.cwd],
        }
    ]
    for _ in range(turns):
        clock.think()
        prompt = w.prompt()
        lines.append(
            {
                "id": new_uuid(rng),
                "timestamp": iso(clock.tick()),
                "type": "user",
                "content": [{"text": prompt}],
            }
        )
        lines.append({"$set": {"lastUpdated": iso(clock.now)}})
        calls = []
        for _ in range(rng.choices((0, 1, 2, 3), (35, 35, 20, 10))[0]):
            out = w.vocab.tool_pool.output(rng)
            name = rng.choice(("run_shell_command", "read_file", "search_file_content"))
            call_id = f"{name}-{rng.getrandbits(40)}"
            calls.append(
                {
                    "id": call_id,
                    "name": name,
                    "args": {"command": f"rg {rng.choice(w.topic.funcs)}", "dir_path": "."},
                    "result": [
                        {
                            "functionResponse": {
                                "id": call_id,
                                "name": name,
                                "response": {"output": out},
                            }
                        }
                    ],
                    "status": "success",
                    "timestamp": iso(clock.tick()),
                    "displayName": "Shell" if name == "run_shell_command" else "ReadFile",
                    "description": w.sentence(3, 7),
                    "resultDisplay": out,
                    "renderOutputAsMarkdown": False,
                }
            )
        msg_id = new_uuid(rng)
        thoughts = [
            {
                "subject": w.sentence(2, 5),
                "description": w.paragraph(1),
                "timestamp": iso(clock.now),
            }
            for _ in range(rng.randint(0, 3))
        ]
        record: dict[str, Any] = {
            "id": msg_id,
            "timestamp": iso(clock.tick()),
            "type": "gemini",
            "content": w.answer(),
            "thoughts": thoughts,
            "tokens": {"input": rng.randint(8000, 90000), "output": 0, "total": 0},
            "model": model,
        }
        if calls:
            record["toolCalls"] = calls
        partial = dict(record, content="", toolCalls=[])
        lines.append(partial)  # written as the turn starts, re-appended when it completes
        record["tokens"] = dict(record["tokens"], output=rng.randint(50, 2000))
        lines.append(record)
        lines.append({"$set": {"lastUpdated": iso(clock.now)}})
    if rng.random() < 0.5:
        lines.append({"$set": {"summary": w.sentence(3, 8)}})
    folder = gemini_folder(root, project, rng)
    name = f"session-{start.strftime('%Y-%m-%dT%H-%M')}-{sid[:8]}.jsonl"
    path = folder / "chats" / name
    return path, _write(path, lines, clock.now)


# --- driver ---------------------------------------------------------------------------------


def _write(path: Path, lines: list[dict[str, Any]], end: datetime) -> int:
    path.parent.mkdir(parents=True, exist_ok=True)
    data = "".join(dumps(line) + "\n" for line in lines).encode()
    path.write_bytes(data)
    stamp = end.timestamp()
    os.utime(path, (stamp, stamp))
    return len(data)


WRITERS = {"claude": write_claude, "codex": write_codex, "gemini": write_gemini}
