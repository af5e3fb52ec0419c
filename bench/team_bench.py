"""The team's index at scale: push throughput, search latency and sizes on a real Postgres.

    python bench/team_bench.py                       # 20 people x 5 computers x 1000 sessions
    python bench/team_bench.py --people 2 --computers 2 --sessions 200   # a quick look

Starts a throwaway PostgreSQL 15 with pgvector (tests/support/pgcluster.py;
scripts/install_postgres.sh installs it), creates the schema as `recall team
init` does, and one login role per synthetic person. Each person's computers
then push their sessions through the push's own SQL (`team.push._send`, as
that person's role, row-level security on), 10 messages a session by
default: 100,000 sessions and 1,000,000 messages at the defaults. Text is
bench/corpus.py's generator (Zipf prose salted with identifiers, each session
on its own topic); a share of the messages (`--vector-share`) get a random
384-dimension vector, as the model's chunks would (the HNSW index's cost is
the point, not the vectors' meaning).

Then it measures, as one person (row-level security filtering every row):
keyword and hybrid search (`team.search.search`, the statement `recall search
--team` runs) over generated queries, p50 and p95; a real computer's push
(`recall team push`'s whole path: local index read, digests, upserts) of
`--sessions` sessions, and the same push again with nothing changed; and the
tables' and indexes' sizes.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "python"), str(ROOT / "tests" / "support"), str(ROOT / "bench")]

import corpus_text  # noqa: E402
import pgcluster  # noqa: E402
from recall.search.query import parse  # noqa: E402
from recall.search.results import Filters  # noqa: E402
from recall.team import local, schema  # noqa: E402
from recall.team.push import PushReport, _send  # noqa: E402
from recall.team.search import TeamFilters, search  # noqa: E402
from recall.team.vectors import from_floats, register  # noqa: E402

MODEL = "bench-random-384"
DIMS = 384


def _vector(rng: random.Random) -> bytes:
    values = [rng.gauss(0.0, 1.0) for _ in range(DIMS)]
    norm = sum(v * v for v in values) ** 0.5
    return from_floats([v / norm for v in values])


def sessions_of(
    seed: int, count: int, messages: int, share: float, shared: bool
) -> list[local.Session]:
    """`count` generated sessions of `messages` messages each (one computer's)."""
    rng = random.Random(seed)
    vocab = corpus_text.Vocab(1)
    projects = corpus_text.make_projects(1)
    out = []
    for n in range(count):
        project = projects[rng.randrange(len(projects))]
        writer = corpus_text.Writer(rng, vocab, corpus_text.Topic(rng, vocab, project))
        start = 1_760_000_000.0 + rng.random() * 180 * 86400
        s = local.Session(
            agent=rng.choice(["claude", "codex", "gemini"]),
            session_id=f"{seed:06d}-{n:05d}",
            project=project.cwd,
            title=writer.prompt()[:80],
            parent_session_id=None,
            started_at=start,
            ended_at=start + messages * 30,
            shared=shared,
        )
        for i in range(messages):
            text = writer.prompt() if i % 2 == 0 else writer.paragraph(rng.randint(1, 4))
            s.messages.append(
                local.Message(
                    i,
                    "user" if i % 2 == 0 else "assistant",
                    text,
                    start + i * 30,
                    len(text.split()),
                )
            )
            if rng.random() < share:
                s.chunks.append(local.Chunk(i, 0, 0, len(text), _vector(rng)))
        s.digest = local.digest(s)
        out.append(s)
    return out


def _pct(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(p * (len(ordered) - 1)))]


def _queries(n: int) -> list[str]:
    rng = random.Random(7)
    vocab = corpus_text.Vocab(1)
    out = []
    for i in range(n):
        words = rng.choices(vocab.words, cum_weights=vocab.cum, k=rng.randint(1, 3))
        if i % 5 == 4:
            words = [rng.choice(vocab.idents)]
        out.append(" ".join(words))
    return out


def push_all(cluster: Any, args: argparse.Namespace) -> dict[str, float]:
    """Every person's computers push their generated sessions; throughput of the sends."""
    sent_s = 0.0
    report = PushReport("", "", 0, 0, 0, 0, 0, MODEL)
    for p in range(args.people):
        person = f"person{p:02d}"
        with cluster.connect(person, password=cluster.password) as conn:
            conn.autocommit = False
            register(conn)
            for c in range(args.computers):
                seed = p * 1000 + c
                made = sessions_of(
                    seed, args.sessions, args.messages, args.vector_share, c % 2 == 0
                )
                for i in range(0, len(made), local.BATCH):
                    started = time.perf_counter()
                    _send(conn, f"computer{c:02d}", made[i : i + local.BATCH], report)
                    sent_s += time.perf_counter() - started
        print(
            f"  {person}: {report.sessions} sessions, {report.messages} messages sent so far "
            f"({report.messages / sent_s:.0f} messages/s)",
            file=sys.stderr,
            flush=True,
        )
    return {
        "sessions": report.sessions,
        "messages": report.messages,
        "vectors": report.chunks,
        "seconds": round(sent_s, 1),
        "sessions_per_s": round(report.sessions / sent_s, 1),
        "messages_per_s": round(report.messages / sent_s, 1),
    }


def real_push(cluster: Any, args: argparse.Namespace) -> dict[str, float]:
    """A real computer's `recall team push`, then the same push with nothing changed."""
    from recall.cli import main

    home = Path(tempfile.mkdtemp(prefix="recall-team-bench-"))
    lines = []
    for s in sessions_of(999_999, args.sessions, args.messages, 0.0, True):
        for m in s.messages:
            lines.append(
                json.dumps(
                    {
                        "session": s.session_id,
                        "role": m.role,
                        "text": m.text,
                        "project": s.project,
                        "timestamp": time.strftime(
                            "%Y-%m-%dT%H:%M:%S+00:00", time.gmtime(m.ts or 0)
                        ),
                    }
                )
            )
    (home / "import.jsonl").write_text("\n".join(lines) + "\n")
    (home / "config.toml").write_text(
        f'[team]\ndsn = "{cluster.dsn("person00")}"\npassword_env = "BENCH_PW"\n'
        'projects = ["/home/*"]\nshare = ["/home/*"]\n'
    )
    os.environ.update(
        RECALL_HOME=str(home),
        RECALL_COMPUTER="real-laptop",
        BENCH_PW=cluster.password,
        RECALL_EMBEDDING="none",
    )
    assert main(["ingest", "--format", "jsonl", str(home / "import.jsonl")]) == 0
    timings = {}
    for name in ("first_push_s", "unchanged_push_s"):
        started = time.perf_counter()
        assert main(["team", "push"]) == 0
        timings[name] = round(time.perf_counter() - started, 2)
    return timings


def searches(cluster: Any, args: argparse.Namespace) -> dict[str, dict[str, float]]:
    rng = random.Random(3)
    out: dict[str, dict[str, float]] = {}
    queries = _queries(args.queries)
    with cluster.connect("person00", password=cluster.password) as conn:
        conn.autocommit = False
        register(conn)
        for name, vector, filters in (
            ("keyword", False, TeamFilters()),
            ("hybrid", True, TeamFilters()),
            (
                "hybrid, --agent codex --person person03",
                True,
                TeamFilters(base=Filters(agents=["codex"]), persons=["person03"]),
            ),
        ):
            times = []
            for q in queries:
                started = time.perf_counter()
                search(conn, parse(q), filters, 10, _vector(rng) if vector else None, floor=0.0)
                times.append((time.perf_counter() - started) * 1000)
            out[name] = {
                "p50_ms": round(_pct(times, 0.5), 1),
                "p95_ms": round(_pct(times, 0.95), 1),
            }
    return out


def sizes(cluster: Any) -> dict[str, str]:
    with cluster.connect() as conn:
        rows = conn.execute(
            """SELECT c.relname, pg_size_pretty(pg_relation_size(c.oid))
               FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
               WHERE n.nspname = 'recall' AND c.relkind IN ('r', 'i')
               ORDER BY pg_relation_size(c.oid) DESC"""
        ).fetchall()
        (total,) = conn.execute("SELECT pg_size_pretty(pg_database_size('team'))").fetchone()
    return {**dict(rows), "database": total}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument("--people", type=int, default=20)
    p.add_argument("--computers", type=int, default=5, help="per person")
    p.add_argument("--sessions", type=int, default=1000, help="per computer")
    p.add_argument("--messages", type=int, default=10, help="per session")
    p.add_argument("--vector-share", type=float, default=0.1, help="messages with a vector")
    p.add_argument("--queries", type=int, default=40)
    p.add_argument("--json", metavar="FILE")
    args = p.parse_args(argv)
    cluster = pgcluster.start()
    try:
        with cluster.connect() as conn:
            conn.autocommit = False
            schema.init(conn, schema.Plan(MODEL, DIMS))
            conn.commit()
            conn.autocommit = True
            for n in range(args.people):
                conn.execute(  # type: ignore[call-overload]
                    f"CREATE ROLE person{n:02d} LOGIN PASSWORD '{cluster.password}'"
                    f" IN ROLE {schema.MEMBER}"
                )
        result: dict[str, Any] = {"push": push_all(cluster, args)}
        with cluster.connect() as conn:
            conn.execute("ANALYZE")
        result["search"] = searches(cluster, args)
        result["real_push"] = real_push(cluster, args)
        result["sizes"] = sizes(cluster)
    finally:
        cluster.stop()
    print(json.dumps(result, indent=2))
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
