"""Deterministic synthetic corpus of agent transcripts, in the real on-disk layouts.

    python bench/corpus.py --sessions 1000 --out bench/data/1k
    python bench/corpus.py --sessions 10000 --out bench/data/10k

writes, under `--out` (which then stands in for a home directory):

- Claude Code (about half):  `.claude/projects/<slug>/<uuid>.jsonl`
  one JSONL line per content block; user/assistant lines carry uuid,
  parentUuid, sessionId, cwd, version, gitBranch, timestamp; thinking
  blocks; tool_use lines answered by tool_result lines that repeat the
  output in `toolUseResult` (as real files do); `<system-reminder>` spans;
  `summary` / `ai-title` lines, file-history snapshots, turn durations.
- Codex CLI (about 30%):  `.codex/sessions/YYYY/MM/DD/rollout-<ts>-<uuid>.jsonl`
  session_meta with the base instructions, the injected AGENTS.md and
  environment context, per turn a turn_context, response_item messages and
  their event_msg duplicates, reasoning with encrypted content,
  function_call / function_call_output, token counts.
- Gemini CLI (about 20%):  `.gemini/tmp/<project>/chats/session-<ts>-<id8>.jsonl`
  a metadata line, user / gemini records with toolCalls (results twice:
  the function response and its display), thoughts, tokens, the same
  message id re-appended when its tokens update, and `$set` patches;
  `.project_root` markers for the slug folders, legacy sha256 folders too.

Sessions run 5 to 80 turns. Prose is technical English drawn from a Zipf
distribution over a fixed vocabulary, salted with identifiers (PAY-1234,
file paths, flags, function names, error names) that a session keeps
returning to, so keyword search has realistic selectivity. Tool output is
most of the bytes, as in real transcripts; it is cut from a pool of
generated code, logs, diffs and listings.

Everything is seeded: the same `--seed` and `--sessions` give byte-identical
files whatever `--jobs` is. `manifest.json` at the root records the totals
and a few identifiers known to occur (the benchmark queries use them).
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import json
import os
import random
import sys
import time
import uuid
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

AGENT_WEIGHTS = (("claude", 0.5), ("codex", 0.3), ("gemini", 0.2))
MIN_TURNS, MAX_TURNS = 5, 80
EPOCH = datetime(2025, 6, 1, tzinfo=UTC)
SPAN_DAYS = 300

# --- vocabulary ---------------------------------------------------------------


def _words(*chunks: str) -> list[str]:
    return " ".join(chunks).split()


FUNCTION_WORDS = _words(
    "the the the the a a a to to to of of and and and in in is is it that that for "
    "we we this with on be not should can it's I you if then so but when from as "
    "at by or our an are was will would there which also just still now only into "
    "after before because instead than more less all each both every same other "
    "here what why how where does do did has have had been being my your their"
)

CONTENT_WORDS = _words(
    # infrastructure and reliability
    "retry backoff timeout queue worker cache invalidation eviction ttl latency "
    "throughput deadlock mutex lock race condition thread pool connection socket "
    "handshake certificate tls proxy gateway ingress egress load balancer replica "
    "failover leader election heartbeat probe readiness liveness rollout rollback "
    "canary deployment cluster node pod container image registry manifest helm chart "
    "terraform module state drift bucket volume snapshot backup restore restore "
    "migration schema index column constraint foreign key transaction isolation "
    "serializable vacuum autovacuum replication lag shard partition compaction "
    "checkpoint journal wal fsync durability consistency idempotent idempotency "
    "webhook callback endpoint handler middleware router request response payload "
    "header cookie session token refresh expiry oauth scope claim jwt signature "
    "secret rotation vault credential permission role policy audit log logging "
    "metrics tracing span histogram counter gauge alert dashboard slo error budget "
    "incident postmortem runbook pager oncall outage regression flaky test fixture "
    "mock stub assertion coverage benchmark profiler flamegraph allocation leak "
    "garbage collector heap stack frame panic exception traceback stacktrace "
    # code and tooling
    "function method class struct enum trait interface generic type annotation "
    "parser tokenizer serializer deserializer encoder decoder json yaml toml csv "
    "protobuf grpc graphql rest api client server sdk library dependency version "
    "upgrade downgrade pin lockfile build compile linker wheel package release tag "
    "branch commit merge rebase conflict cherry-pick bisect diff patch hunk review "
    "pull request ci pipeline job step cache artifact docker compose makefile script "
    "config environment variable flag option default override fallback feature "
    "toggle experiment rollout percentage cohort segment refactor rename extract "
    "inline helper utility wrapper adapter factory singleton registry plugin hook "
    "event listener subscriber publisher topic stream consumer producer offset "
    "batch chunk buffer pagination cursor limit sort filter query planner scan "
    "join aggregate window materialized view trigger procedure cron scheduler "
    "debounce throttle rate limiter quota burst bucket circuit breaker bulkhead "
    # product domains
    "invoice payment checkout ledger refund chargeback subscription plan tier "
    "billing proration currency rounding tax vat receipt customer account tenant "
    "organization workspace user profile avatar onboarding signup login logout "
    "password reset email notification template locale translation timezone "
    "calendar booking reservation inventory stock warehouse shipment order cart "
    "search ranking relevance embedding vector similarity recall precision "
    "dataset training evaluation model inference prompt completion latency "
    "report export import upload download attachment thumbnail preview render "
    "component state hook props layout stylesheet theme accessibility keyboard "
    "focus modal dropdown tooltip form validation error message banner toast "
    # verbs and adjectives
    "fix add remove update change move split merge handle parse validate check "
    "verify reproduce investigate debug trace measure benchmark optimize simplify "
    "document explain decide agree propose suggest prefer avoid keep drop skip "
    "retry batch cache stream lazy eager async sync blocking nonblocking concurrent "
    "stale fresh dirty clean broken working failing passing slow fast expensive "
    "cheap safe unsafe strict lenient nullable optional required deprecated legacy "
    "new old first last next previous current upstream downstream local remote "
    "staging production preview internal external public private shared global"
)

DOMAINS = {
    "payments": ("PAY", "BILL", "LEDG"),
    "auth": ("AUTH", "SEC", "IAM"),
    "infra": ("INFRA", "OPS", "SRE"),
    "search": ("SRCH", "RANK", "ML"),
    "web": ("WEB", "UI", "FE"),
    "data": ("DATA", "ETL", "BI"),
}
PROJECT_NAMES = {
    "payments": ("payments-api", "billing-service", "ledger", "checkout-web", "invoicing"),
    "auth": ("auth-gateway", "identity", "sso-bridge", "permissions"),
    "infra": ("platform-infra", "k8s-manifests", "terraform-live", "observability"),
    "search": ("search-api", "ranker", "embeddings", "catalog-indexer"),
    "web": ("dashboard", "marketing-site", "design-system", "mobile-app"),
    "data": ("warehouse", "etl-jobs", "analytics", "reporting"),
}
USERS = ("alex", "sam", "priya", "jordan", "mei", "dev")
DIRS = (
    "src",
    "lib",
    "app",
    "pkg",
    "internal",
    "services",
    "core",
    "api",
    "handlers",
    "models",
    "utils",
    "tests",
    "migrations",
    "config",
    "jobs",
    "components",
    "cmd",
)
EXTS = (".py", ".py", ".ts", ".tsx", ".go", ".rs", ".sql", ".yaml", ".md", ".json", ".toml")
FLAGS = (
    "--dry-run",
    "--max-retries",
    "--timeout",
    "--no-cache",
    "--verbose",
    "--force",
    "--parallel",
    "--batch-size",
    "--since",
    "--limit",
    "--strict",
    "--watch",
    "--profile",
    "--region",
    "--replicas",
    "--skip-migrations",
    "--fail-fast",
    "--log-level",
)
ERRORS = (
    "TimeoutError",
    "ConnectionResetError",
    "IntegrityError",
    "KeyError",
    "ValueError",
    "OperationalError",
    "DeadlockDetected",
    "ECONNREFUSED",
    "ENOENT",
    "OOMKilled",
    "CrashLoopBackOff",
    "NullPointerException",
    "SerializationFailure",
    "RateLimitExceeded",
    "401 Unauthorized",
    "503 Service Unavailable",
)
TOOLS_CLAUDE = ("Bash", "Read", "Edit", "Grep", "Glob", "Write", "TodoWrite")
MODELS_CLAUDE = ("claude-sonnet-4-20250514", "claude-opus-4-1-20250805", "claude-sonnet-4-5")
VERSIONS_CLAUDE = ("1.0.98", "1.0.108", "2.0.28", "2.0.64", "2.1.14", "2.1.30")
MODELS_CODEX = ("gpt-5-codex", "gpt-5.1-codex", "gpt-5.2")
MODELS_GEMINI = ("gemini-2.5-pro", "gemini-2.5-flash", "gemini-3-flash-preview")

QUESTIONS = (
    "what did we decide about",
    "why does",
    "can you check whether",
    "how should we handle",
    "is it safe to",
    "please look into",
    "let's figure out why",
    "could you refactor",
    "I think we need to",
    "remind me how",
)


def _zipf_cum(n: int, s: float = 1.07, q: float = 2.7) -> list[float]:
    """Cumulative Zipf–Mandelbrot weights for ranks 0..n-1."""
    acc, out = 0.0, []
    for rank in range(n):
        acc += 1.0 / (rank + q) ** s
        out.append(acc)
    return out


class Vocab:
    """Everything prose is made from; built from the seed alone, so every worker agrees."""

    def __init__(self, seed: int) -> None:
        rng = random.Random(seed)
        words = list(dict.fromkeys(CONTENT_WORDS))
        rng.shuffle(words)  # which words are common is part of the seed
        self.words = words
        self.cum = _zipf_cum(len(words))
        self.functions = FUNCTION_WORDS
        idents = []
        for _ in range(400):
            a, b = rng.sample(words, 2)
            idents.append(f"{a}_{b}".replace("-", "_"))
        self.idents = idents
        self.classes = ["".join(w.capitalize() for w in i.split("_")) for i in idents[:150]]
        self.tool_pool = ToolPool(rng, self)


# --- text generation ------------------------------------------------------------


class Topic:
    """What one session keeps talking about: its project, words, tickets, files."""

    def __init__(self, rng: random.Random, vocab: Vocab, project: Project) -> None:
        self.project = project
        self.words = rng.choices(vocab.words, cum_weights=vocab.cum, k=4) + rng.sample(
            vocab.words, 3
        )
        prefixes = DOMAINS[project.domain]
        self.tickets = [f"{rng.choice(prefixes)}-{rng.randint(100, 9999)}" for _ in range(2)]
        self.paths = [project.path_in(rng, vocab) for _ in range(4)]
        self.funcs = rng.sample(vocab.idents, 3)
        self.flag = rng.choice(FLAGS)
        self.error = rng.choice(ERRORS)


class Project:
    def __init__(self, index: int, rng: random.Random) -> None:
        self.domain = rng.choice(sorted(DOMAINS))
        base = rng.choice(PROJECT_NAMES[self.domain])
        self.name = base
        self.user = rng.choice(USERS)
        self.cwd = f"/home/{self.user}/src/{self.name}"
        self.branches = ["main", "develop"] + [
            f"{self.user}/{rng.choice(CONTENT_WORDS)}-{rng.randint(1, 999)}" for _ in range(4)
        ]

    def path_in(self, rng: random.Random, vocab: Vocab) -> str:
        parts = rng.sample(DIRS, rng.randint(1, 3))
        stem = rng.choice(vocab.idents)
        return "/".join([*parts, stem + rng.choice(EXTS)])


def make_projects(seed: int, count: int = 40) -> list[Project]:
    rng = random.Random(seed * 7 + 1)
    projects: list[Project] = []
    for i in range(count):
        p = Project(i, rng)
        taken = {q.name for q in projects}
        if p.name in taken:
            p.name = next(f"{p.name}-{n}" for n in range(2, 99) if f"{p.name}-{n}" not in taken)
            p.cwd = f"/home/{p.user}/src/{p.name}"
        projects.append(p)
    return projects


class Writer:
    """Sentences and paragraphs for one session, leaning on its topic."""

    def __init__(self, rng: random.Random, vocab: Vocab, topic: Topic) -> None:
        self.rng = rng
        self.vocab = vocab
        self.topic = topic

    def entity(self) -> str:
        rng, t, v = self.rng, self.topic, self.vocab
        r = rng.random()
        if r < 0.22:
            return rng.choice(t.tickets)
        if r < 0.45:
            return f"`{rng.choice(t.paths)}`"
        if r < 0.60:
            return f"`{rng.choice(t.funcs)}()`"
        if r < 0.70:
            return f"`{t.flag}`"
        if r < 0.78:
            return t.error
        if r < 0.88:
            return f"`{rng.choice(v.classes)}`"
        if r < 0.94:
            return f"{rng.randint(2, 900)}ms"
        return f"v{rng.randint(0, 4)}.{rng.randint(0, 30)}.{rng.randint(0, 9)}"

    def sentence(self, lo: int = 5, hi: int = 18) -> str:
        rng, v = self.rng, self.vocab
        n = rng.randint(lo, hi)
        content = rng.choices(v.words, cum_weights=v.cum, k=n)
        out: list[str] = []
        for i, word in enumerate(content):
            if rng.random() < 0.45:
                out.append(rng.choice(v.functions))
            r = rng.random()
            if r < 0.18:
                out.append(rng.choice(self.topic.words))
            elif r < 0.26:
                out.append(self.entity())
            else:
                out.append(word)
            if i and rng.random() < 0.05:
                out[-1] += ","
        text = " ".join(out)
        return text[0].upper() + text[1:] + rng.choice("....?")

    def paragraph(self, sentences: int) -> str:
        return " ".join(self.sentence() for _ in range(sentences))

    def prompt(self) -> str:
        rng = self.rng
        lead = rng.choice(QUESTIONS)
        body = self.sentence(4, 14)
        text = f"{lead} {body[0].lower()}{body[1:]}"
        if rng.random() < 0.5:
            text += " " + self.paragraph(rng.randint(1, 3))
        return text[0].upper() + text[1:]

    def answer(self) -> str:
        rng = self.rng
        parts = [self.paragraph(rng.randint(1, 3))]
        if rng.random() < 0.3:
            parts.append("\n".join(f"- {self.sentence(4, 10)}" for _ in range(rng.randint(2, 4))))
        if rng.random() < 0.2:
            parts.append(self.paragraph(rng.randint(1, 2)))
        return "\n\n".join(parts)

    def short(self) -> str:
        return self.sentence(5, 14)

    def thinking(self) -> str:
        return self.paragraph(self.rng.randint(1, 4))


# --- tool output ------------------------------------------------------------------


class ToolPool:
    """A fixed pool of tool outputs (code, test logs, grep hits, diffs, listings)."""

    SIZE = 240

    def __init__(self, rng: random.Random, vocab: Vocab) -> None:
        self.blobs = [self._blob(rng, vocab) for _ in range(self.SIZE)]

    @staticmethod
    def _blob(rng: random.Random, v: Vocab) -> str:
        kind = rng.randrange(5)
        lines: list[str] = []
        target = int(min(40000, rng.lognormvariate(7.6, 0.9)))
        size = 0
        while size < target:
            a, b = rng.choice(v.idents), rng.choice(v.idents)
            if kind == 0:  # source file
                line = rng.choice(
                    (
                        f"def {a}(self, {b}: str, timeout: float = 3.0) -> None:",
                        f"    {a} = self.{b}.get({rng.randint(0, 99)})",
                        f"    if not {a}:\n        raise {rng.choice(ERRORS).split()[0]}('{b}')",
                        f"class {rng.choice(v.classes)}:",
                        f"    return {a}({b}, retries={rng.randint(1, 9)})",
                        f"# TODO({rng.choice(USERS)}): {rng.choice(v.words)} {rng.choice(v.words)}",
                        "",
                    )
                )
                line = f"{len(lines) + 1:>6}\t{line}"
            elif kind == 1:  # test run
                status = rng.choices(("PASSED", "FAILED", "SKIPPED"), (90, 6, 4))[0]
                line = f"tests/test_{a}.py::test_{b} {status} [{rng.randint(0, 100):>3}%]"
            elif kind == 2:  # grep
                line = f"src/{a}.py:{rng.randint(1, 900)}:    {b} = {rng.choice(v.words)}({a})"
            elif kind == 3:  # diff
                sign = rng.choice("+- ")
                line = f"{sign}    {a}.{b}({rng.choice(v.words)}={rng.randint(0, 500)})"
                if rng.random() < 0.08:
                    line = f"@@ -{rng.randint(1, 400)},7 +{rng.randint(1, 400)},9 @@"
            else:  # listing / log
                line = (
                    f"2026-01-{rng.randint(1, 28):02d}T{rng.randint(0, 23):02d}:"
                    f"{rng.randint(0, 59):02d}:{rng.randint(0, 59):02d}Z "
                    f"{rng.choice(('INFO', 'INFO', 'DEBUG', 'WARN', 'ERROR'))} "
                    f"{a} {b}={rng.randint(0, 9999)} {rng.choice(v.words)}"
                )
            lines.append(line)
            size += len(line) + 1
        return "\n".join(lines)

    def output(self, rng: random.Random) -> str:
        """A tool output: a slice of a pool blob, sized like real ones (median ~1 KB)."""
        blob = rng.choice(self.blobs)
        want = int(min(len(blob), rng.lognormvariate(6.0, 1.2)))
        start = rng.randrange(0, max(1, len(blob) - want))
        return blob[start : start + want]


# --- shared helpers ------------------------------------------------------------------


def iso(t: datetime) -> str:
    return t.strftime("%Y-%m-%dT%H:%M:%S.") + f"{t.microsecond // 1000:03d}Z"


def new_uuid(rng: random.Random) -> str:
    return str(uuid.UUID(int=rng.getrandbits(128), version=4))


def b64ish(rng: random.Random, n: int) -> str:
    """Opaque base64-looking bytes (signatures, encrypted reasoning)."""
    raw = rng.getrandbits(n * 6).to_bytes((n * 6 + 7) // 8, "little")
    return base64.b64encode(raw).decode()[:n]


def dumps(obj: Any) -> str:
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":"))


class Clock:
    def __init__(self, start: datetime, rng: random.Random) -> None:
        self.now = start
        self.rng = rng

    def tick(self, lo: float = 0.3, hi: float = 8.0) -> datetime:
        self.now += timedelta(seconds=self.rng.uniform(lo, hi))
        return self.now

    def think(self) -> datetime:
        """The user reading and typing between turns."""
        return self.tick(15, 600)


def reminder(rng: random.Random, w: Writer) -> str:
    return f"<system-reminder>\n{w.paragraph(rng.randint(1, 3))}\n</system-reminder>"


# --- Claude Code -----------------------------------------------------------------------


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
_VOCABS: dict[int, Vocab] = {}
_PROJECTS: dict[int, list[Project]] = {}
_PROJECT_CUM = _zipf_cum(40, s=1.0, q=3.0)


def _vocab(seed: int) -> Vocab:
    if seed not in _VOCABS:
        _VOCABS[seed] = Vocab(seed)
    return _VOCABS[seed]


def session(root: Path, seed: int, index: int) -> dict[str, Any]:
    """Write session number `index`; everything about it follows from (seed, index)."""
    rng = random.Random(seed * 1_000_003 + index)
    vocab = _vocab(seed)
    if seed not in _PROJECTS:
        _PROJECTS[seed] = make_projects(seed)
    projects = _PROJECTS[seed]
    agent = rng.choices([a for a, _ in AGENT_WEIGHTS], [p for _, p in AGENT_WEIGHTS])[0]
    project = rng.choices(projects, cum_weights=_PROJECT_CUM[: len(projects)])[0]
    topic = Topic(rng, vocab, project)
    turns = MIN_TURNS + round((MAX_TURNS - MIN_TURNS) * rng.betavariate(1.1, 3.5))
    start = EPOCH + timedelta(seconds=rng.uniform(0, SPAN_DAYS * 86400))
    path, size = WRITERS[agent](root, rng, Writer(rng, vocab, topic), turns, start)
    return {
        "index": index,
        "agent": agent,
        "path": str(path.relative_to(root)),
        "bytes": size,
        "turns": turns,
        "tickets": topic.tickets,
        "words": topic.words,
    }


def _chunk(args: tuple[str, int, int, int]) -> list[dict[str, Any]]:
    root, seed, lo, hi = args
    return [session(Path(root), seed, i) for i in range(lo, hi)]


def _ranges(n: int, size: int) -> Iterator[tuple[int, int]]:
    for lo in range(0, n, size):
        yield lo, min(n, lo + size)


def generate(root: Path, sessions: int, seed: int = 1, jobs: int | None = None) -> dict[str, Any]:
    root.mkdir(parents=True, exist_ok=True)
    jobs = jobs or os.cpu_count() or 1
    work = [(str(root), seed, lo, hi) for lo, hi in _ranges(sessions, 50)]
    started = time.perf_counter()
    rows: list[dict[str, Any]] = []
    if jobs == 1:
        for item in work:
            rows.extend(_chunk(item))
    else:
        with ProcessPoolExecutor(jobs) as pool:
            for done in pool.map(_chunk, work):
                rows.extend(done)
    rows.sort(key=lambda r: r["index"])
    by_agent: dict[str, dict[str, int]] = {}
    for r in rows:
        a = by_agent.setdefault(r["agent"], {"sessions": 0, "bytes": 0})
        a["sessions"] += 1
        a["bytes"] += r["bytes"]
    total = sum(r["bytes"] for r in rows)
    sizes = sorted(r["bytes"] for r in rows)
    manifest = {
        "seed": seed,
        "sessions": sessions,
        "bytes": total,
        "mean_bytes": total // max(1, sessions),
        "median_bytes": sizes[len(sizes) // 2] if sizes else 0,
        "max_bytes": sizes[-1] if sizes else 0,
        "by_agent": by_agent,
        "generated_in_s": round(time.perf_counter() - started, 1),
        # identifiers and words known to occur, for benchmark queries
        "tickets": [t for r in rows[:20] for t in r["tickets"]],
        "claude_sessions": [r["path"] for r in rows if r["agent"] == "claude"][:200],
        "sessions_index": [{k: r[k] for k in ("path", "agent", "bytes", "turns")} for r in rows],
    }
    (root / "manifest.json").write_text(json.dumps(manifest, indent=1))
    return manifest


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--sessions", type=int, default=1000)
    p.add_argument("--out", type=Path, required=True, help="corpus root (a stand-in $HOME)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--jobs", type=int, default=None, help="worker processes (default: all cores)")
    args = p.parse_args(argv)
    if args.out.exists() and any(args.out.iterdir()):
        print(f"{args.out} is not empty; remove it first", file=sys.stderr)
        return 2
    m = generate(args.out, args.sessions, args.seed, args.jobs)
    mb = m["bytes"] / 1e6
    agents = ", ".join(
        f"{a} {v['sessions']} ({v['bytes'] / 1e6:.0f} MB)" for a, v in sorted(m["by_agent"].items())
    )
    print(
        f"{m['sessions']} sessions, {mb:.1f} MB (mean {m['mean_bytes'] / 1e3:.0f} KB, "
        f"median {m['median_bytes'] / 1e3:.0f} KB, max {m['max_bytes'] / 1e3:.0f} KB) "
        f"in {m['generated_in_s']}s: {agents}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
