"""The synthetic corpus's text: a Zipf vocabulary, topics, projects, prose and tool output.

Split from corpus.py (which writes sessions with it); history_corpus.py and rank_bench.py
use the prose alone.
"""

from __future__ import annotations

import base64
import json
import random
import uuid
from datetime import UTC, datetime, timedelta
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


_PROJECT_CUM = _zipf_cum(40, s=1.0, q=3.0)
"""How often each project comes up: a few are most of the work."""
_VOCABS: dict[int, Vocab] = {}


def _vocab(seed: int) -> Vocab:
    if seed not in _VOCABS:
        _VOCABS[seed] = Vocab(seed)
    return _VOCABS[seed]
