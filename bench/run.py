"""recall's benchmark: one run, one table of medians and of ratios to baselines taken in it.

    python bench/run.py --sessions 1000            # corpus in bench/data/1k (made if missing)
    python bench/run.py --sessions 10000 --quick   # fewer repetitions

These machines are shared and noisy, so every figure sits beside a baseline
measured in the same run (SPEC §8), and the ratios are what to compare
across runs. Commands run as users run them: the `recall` console script
installed beside this interpreter (not a pyenv shim, whose bash wrapper
would add ~50 ms to every figure), with recall's bytecode compiled as a
regular `pip install` leaves it, as whole processes timed with
`time.perf_counter` around `subprocess.run`. The environment of every
recall process has HOME set to the corpus root, so `recall sync` finds the
corpus through each agent's default root (`~/.claude/projects`,
`~/.codex/sessions`, `~/.gemini/tmp`; CLAUDE_CONFIG_DIR, CODEX_HOME and
GEMINI_CLI_HOME are removed), and RECALL_HOME set to a fresh temporary
directory, so no real index is touched.

Measurements, in order:

1. Python start-up: `python -c 'import json'` with this interpreter, median
   of N runs (taken before and after everything else, pooled). Every
   whole-process latency below is also shown as a multiple of it.
2. Raw read speed: `grep -rc '"type"'` over the same transcript files
   (LC_ALL=C; the first run warms the page cache and is not counted).
3. Full ingest: `recall sync` into an empty index, for RECALL_IMPL=rust and
   RECALL_IMPL=python, reported as wall seconds and MB/s of transcript bytes
   beside grep's MB/s; then `recall sync` again with nothing changed (the
   cost of a no-op reconcile: a stat per file).
4. Hook latency: the largest Claude session grows by one turn (a user
   prompt, the assistant's thinking, tool calls and results and its answer,
   appended in Claude Code's format), then `recall ingest --event
   agent-stop` runs with a Claude Stop-hook payload on stdin, as Claude Code
   would run it. Repeated N times per core, each time one turn longer;
   p50/p95 of the whole process, and p95 as a multiple of Python start-up
   (target <= 2.5x). The hook must print nothing; each appended turn is
   checked to have reached the index. The session file is cut back to its
   original bytes and mtime afterwards, so the corpus stays as generated.
5. CLI start-up: `recall --version` and `recall search <word>` (default core)
   p50/p95 as whole processes, as multiples of Python start-up (target for
   search: <= 3x at 1k sessions).
6. Keyword search in-process: `recall.search.search` on one
   `recall.store.open_reader` connection, cycling through a fixed mixed query
   set (single words of differing frequency, two words, phrases, a prefix, an
   exclusion, ticket ids, a file path, a flag, a prose question, a no-hit
   query) for a fixed number of calls; p50/p95 in ms overall (target p50 < 20
   ms at 10k sessions) and the median per query beside how many messages it
   matches.

Results are also written as JSON to bench/out/.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import corpus

BENCH = Path(__file__).resolve().parent
IMPLS = ("rust", "python")
TARGETS = {"hook_p95_x": 2.5, "cli_search_x": 3.0, "keyword_p50_ms": 20.0}

# Fixed queries; "{ticket}" is filled with an id the corpus is known to contain.
QUERIES: list[tuple[str, str]] = [
    ("word", "retry"),
    ("word", "deadlock"),
    ("word", "idempotency"),
    ("word", "webhook"),
    ("two words", "cache invalidation"),
    ("two words", "flaky test"),
    ("two words", "connection pool"),
    ("phrase", '"rate limiter"'),
    ("phrase", '"circuit breaker"'),
    ("prefix", "idempot*"),
    ("exclusion", "migration -rollback"),
    ("ticket id", "{ticket0}"),
    ("ticket id", "{ticket1}"),
    ("path", "migrations"),
    ("flag", "--dry-run"),
    ("error name", "TimeoutError"),
    ("prose question", "what did we decide about the retry backoff for webhooks"),
    ("no hit", "zyzzogeton quixotically"),
]
CLI_SEARCH_WORD = "deadlock"


# --- measuring ------------------------------------------------------------------------


def p50(xs: Sequence[float]) -> float:
    return statistics.median(xs)


def p95(xs: Sequence[float]) -> float:
    if len(xs) < 2:
        return xs[0]
    return statistics.quantiles(xs, n=20, method="inclusive")[18]


def run_timed(cmd: Sequence[str], env: dict[str, str], stdin: bytes | None = None) -> float:
    """Wall seconds of one whole process; raises if it fails."""
    start = time.perf_counter()
    proc = subprocess.run(cmd, input=stdin, env=env, capture_output=True, check=False)
    elapsed = time.perf_counter() - start
    if proc.returncode not in (0, 1):  # 1: `recall search` found nothing
        raise RuntimeError(f"{' '.join(cmd)} exited {proc.returncode}: {proc.stderr.decode()}")
    return elapsed


def repeat(fn: Callable[[], float], n: int, warmup: int = 1) -> list[float]:
    for _ in range(warmup):
        fn()
    return [fn() for _ in range(n)]


# --- the environment ------------------------------------------------------------------


def recall_command() -> tuple[list[str], str]:
    """The `recall` console script beside this interpreter, else `python -m recall`."""
    script = Path(sys.executable).parent / "recall"
    if script.is_file() and os.access(script, os.X_OK):
        return [str(script)], f"console script {script}"
    return [sys.executable, "-m", "recall"], f"{sys.executable} -m recall (no console script)"


def compile_bytecode() -> str:
    """Write the package's .pyc files, as `pip install` does for a regular install.

    An editable install leaves compiling to the first import, and with
    PYTHONDONTWRITEBYTECODE set (as on these machines) every process would
    recompile recall from source: ~15 ms that no installed user pays.
    """
    import compileall

    import recall

    package = Path(recall.__file__).parent
    compileall.compile_dir(package, quiet=1)
    return str(package)


def recall_env(home: Path, data: Path, impl: str | None = None) -> dict[str, str]:
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("CLAUDE_CONFIG_DIR", "CODEX_HOME", "GEMINI_CLI_HOME", "RECALL_IMPL")
        and not k.startswith("XDG_")
    }
    env.update(HOME=str(home), RECALL_HOME=str(data), RECALL_COMPUTER="bench")
    if impl:
        env["RECALL_IMPL"] = impl
    return env


def transcripts(root: Path) -> list[Path]:
    found = []
    for top in (".claude", ".codex", ".gemini"):
        for dirpath, _, names in os.walk(root / top):
            found.extend(Path(dirpath, n) for n in names if n.endswith(".jsonl"))
    return found


def machine() -> dict[str, Any]:
    cpu = ""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        cpu = platform.processor()
    return {
        "date": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "nproc": os.cpu_count(),
        "cpu": cpu,
        "platform": platform.platform(),
        "python": platform.python_version(),
        "sqlite": sqlite3.sqlite_version,
    }


def db_count(data: Path, sql: str, args: Sequence[Any] = ()) -> int:
    uri = (data / "recall.db").resolve().as_uri() + "?mode=ro"
    with sqlite3.connect(uri, uri=True) as db:
        return int(db.execute(sql, args).fetchone()[0])


# --- the measurements -------------------------------------------------------------------


def bench_ingest(
    recall: list[str], root: Path, scratch: Path, impl: str, runs: int, expected: int
) -> dict[str, Any]:
    """`recall sync` into a fresh index `runs` times; the last index is kept for later steps."""
    times = []
    data = scratch / impl
    for n in range(runs):
        if data.exists():
            shutil.rmtree(data)
        env = recall_env(root, data, impl)
        times.append(run_timed([*recall, "sync", "--no-embed"], env))
        print(f"  sync {impl} run {n + 1}/{runs}: {times[-1]:.1f}s", flush=True)
    sessions = db_count(data, "SELECT count(*) FROM sessions")
    if sessions != expected:
        raise RuntimeError(f"sync ({impl}) indexed {sessions} sessions, expected {expected}")
    noop = repeat(lambda: run_timed([*recall, "sync", "--no-embed"], env), 3, warmup=0)
    return {
        "sync_s": times,
        "noop_sync_s": noop,
        "messages": db_count(data, "SELECT count(*) FROM messages"),
        "db_bytes": (data / "recall.db").stat().st_size,
    }


def bench_grep(files: list[Path], root: Path, runs: int) -> list[float]:
    cmd = ["grep", "-rc", "--include=*.jsonl", '"type"']
    cmd += [str(root / d) for d in (".claude", ".codex", ".gemini") if (root / d).is_dir()]
    env = dict(os.environ, LC_ALL="C")
    return repeat(lambda: run_timed(cmd, env), runs, warmup=1)


def bench_hook(
    recall: list[str], root: Path, scratch: Path, impl: str, session: Path, runs: int, seed: int
) -> dict[str, Any]:
    """Grow `session` by a turn, run the Stop hook; `runs` times. Restores the file after."""
    data = scratch / impl
    env = recall_env(root, data, impl)
    rel = session.relative_to(root)
    payload = json.dumps(
        {
            "session_id": session.stem,
            "transcript_path": f"~/{rel.as_posix()}",
            "cwd": "/home/dev/src",
            "permission_mode": "default",
            "hook_event_name": "Stop",
            "stop_hook_active": False,
            "last_assistant_message": "Done.",
        }
    ).encode()
    cmd = [*recall, "ingest", "--event", "agent-stop"]
    st = session.stat()
    times, added = [], 0
    try:
        for n in range(runs):
            added += corpus.append_claude_turn(session, seed, f"benchturn{impl}{n:03d}")
            start = time.perf_counter()
            proc = subprocess.run(cmd, input=payload, env=env, capture_output=True, check=False)
            times.append(time.perf_counter() - start)
            if proc.returncode != 0 or proc.stdout:
                raise RuntimeError(f"hook exited {proc.returncode}, stdout {proc.stdout[:200]!r}")
    finally:
        with open(session, "r+b") as fh:
            fh.truncate(st.st_size)
        os.utime(session, ns=(st.st_atime_ns, st.st_mtime_ns))
    indexed = db_count(
        data, "SELECT count(*) FROM messages WHERE text LIKE ?", (f"%benchturn{impl}%",)
    )
    if indexed != runs:
        raise RuntimeError(f"hook ({impl}): {indexed} of {runs} appended turns reached the index")
    log = data / "recall.log"
    if log.exists() and log.stat().st_size:
        raise RuntimeError(f"hook ({impl}) logged problems: {log.read_text()[-500:]}")
    return {"hook_s": times, "bytes_per_turn": added // max(1, runs)}


def bench_startup(recall: list[str], root: Path, data: Path, runs: int) -> dict[str, list[float]]:
    env = recall_env(root, data)
    version = repeat(lambda: run_timed([*recall, "--version"], env), runs)
    search = repeat(lambda: run_timed([*recall, "search", CLI_SEARCH_WORD], env), runs)
    return {"version_s": version, "search_s": search}


def bench_keyword(data: Path, queries: list[tuple[str, str]], calls: int) -> dict[str, Any]:
    """In-process `search()` over one reader connection, cycling through `queries`."""
    os.environ["RECALL_HOME"] = str(data)
    from recall.search.keyword import search
    from recall.search.query import match_all, parse, parse_query
    from recall.search.results import Filters
    from recall.store import open_reader

    per_query: dict[str, list[float]] = {q: [] for _, q in queries}
    found: dict[str, int] = {}
    with open_reader(data / "recall.db") as store:
        for _, q in queries:  # warm-up, and what each query matches
            found[q] = search(store.conn, parse(q), Filters()).found
        samples = []
        for n in range(calls):
            q = queries[n % len(queries)][1]
            start = time.perf_counter()
            search(store.conn, parse(q), Filters())
            elapsed = time.perf_counter() - start
            samples.append(elapsed)
            per_query[q].append(elapsed)
        matched = {}
        for _, q in queries:
            expr = match_all(parse_query(q))
            matched[q] = (
                store.conn.execute(
                    "SELECT count(*) FROM messages_fts WHERE messages_fts MATCH ?", (expr,)
                ).fetchone()[0]
                if expr
                else 0
            )
    return {
        "all_s": samples,
        "per_query": [
            {
                "kind": kind,
                "query": q,
                "p50_ms": p50(per_query[q]) * 1e3,
                "max_ms": max(per_query[q]) * 1e3,
                "results": found[q],
                "messages_matched": matched[q],
            }
            for kind, q in queries
        ],
    }


# --- the report --------------------------------------------------------------------------


def ms(x: float) -> str:
    return f"{x * 1e3:.0f} ms" if x >= 0.1 else f"{x * 1e3:.1f} ms"


def table(rows: list[tuple[str, ...]]) -> str:
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    out = []
    for n, row in enumerate(rows):
        cells = [
            c.ljust(w) if i == 0 else c.rjust(w)
            for i, (c, w) in enumerate(zip(row, widths, strict=True))
        ]
        out.append("  ".join(cells).rstrip())
        if n == 0:
            out.append("  ".join("-" * w for w in widths))
    return "\n".join(out)


def verdict(ok: bool) -> str:
    return "PASS" if ok else "FAIL"


def report(r: dict[str, Any]) -> str:
    base = p50(r["baseline_s"])
    mb = r["corpus"]["bytes"] / 1e6
    lines = [
        f"recall {r['recall_version']} · {r['corpus']['sessions']} sessions, {mb:.0f} MB "
        f"({r['corpus']['files']} files) · {r['machine']['nproc']} cores, "
        f"Python {r['machine']['python']}, SQLite {r['machine']['sqlite']} · "
        f"{r['machine']['date']}",
        f"recall runs as: {r['recall_cmd']}",
        "",
    ]
    grep = p50(r["grep_s"])
    rows = [("ingest (whole corpus)", "median", "MB/s", "vs grep -c", "vs python core")]
    rows.append(("grep -rc '\"type\"'", f"{grep:.2f} s", f"{mb / grep:.0f}", "1.00x", ""))
    py = p50(r["ingest"]["python"]["sync_s"]) if "python" in r["ingest"] else None
    for impl, ing in r["ingest"].items():
        t = p50(ing["sync_s"])
        rows.append(
            (
                f"recall sync, {impl} core",
                f"{t:.1f} s",
                f"{mb / t:.1f}",
                f"{t / grep:.0f}x slower",
                f"{py / t:.2f}x" if py else "",
            )
        )
    for impl, ing in r["ingest"].items():
        t = p50(ing["noop_sync_s"])
        rows.append((f"recall sync, nothing changed, {impl}", ms(t), "", "", f"{t / base:.1f}x py"))
    lines += [table(rows), ""]
    rows = [("whole process", "p50", "p95", "p50/py", "p95/py", "target", "")]
    rows.append(("python -c 'import json'", ms(base), ms(p95(r["baseline_s"])), "1.0x", "", "", ""))
    for impl, h in r["hook"].items():
        a, b = p50(h["hook_s"]), p95(h["hook_s"])
        ok = b / base <= TARGETS["hook_p95_x"]
        rows.append(
            (
                f"ingest --event agent-stop ({impl})",
                ms(a),
                ms(b),
                f"{a / base:.1f}x",
                f"{b / base:.1f}x",
                "p95 <= 2.5x",
                verdict(ok),
            )
        )
    s = r["startup"]
    for name, key in (
        ("recall --version", "version_s"),
        (f"recall search {CLI_SEARCH_WORD}", "search_s"),
    ):
        a, b = p50(s[key]), p95(s[key])
        target, mark = "", ""
        if key == "search_s" and r["corpus"]["sessions"] <= 1000:
            target, mark = "p50 <= 3x @1k", verdict(a / base <= TARGETS["cli_search_x"])
        rows.append((name, ms(a), ms(b), f"{a / base:.1f}x", f"{b / base:.1f}x", target, mark))
    lines += [table(rows), ""]
    k = r["keyword"]
    a, b = p50(k["all_s"]) * 1e3, p95(k["all_s"]) * 1e3
    target = f"p50 < 20 ms @10k: {verdict(a < TARGETS['keyword_p50_ms'])}"
    if r["corpus"]["sessions"] < 10000:
        target = "(target is at 10k)"
    lines.append(
        f"keyword search in-process, {len(k['all_s'])} calls: "
        f"p50 {a:.1f} ms, p95 {b:.1f} ms  {target}"
    )
    rows = [("query", "kind", "p50 ms", "max ms", "results", "msgs matched")]
    for q in k["per_query"]:
        rows.append(
            (
                q["query"][:48],
                q["kind"],
                f"{q['p50_ms']:.1f}",
                f"{q['max_ms']:.1f}",
                str(q["results"]),
                str(q["messages_matched"]),
            )
        )
    lines += [table(rows), ""]
    idx = r["ingest"].get("rust") or next(iter(r["ingest"].values()))
    lines.append(
        f"index: {idx['messages']} messages, {idx['db_bytes'] / 1e6:.0f} MB; hook session: "
        f"{r['hook_session']['path']} ({r['hook_session']['bytes'] / 1e3:.0f} KB, "
        f"+{r['hook_session']['bytes_per_turn'] / 1e3:.1f} KB a turn)"
    )
    return "\n".join(lines)


# --- the run ------------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--sessions", type=int, default=1000, help="1000 or 10000 (any count works)")
    p.add_argument("--corpus", type=Path, help="corpus root (default bench/data/<n>k)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--quick", action="store_true", help="fewer repetitions: a smoke run")
    p.add_argument("--impl", choices=IMPLS, action="append", help="only this core (repeatable)")
    args = p.parse_args(argv)

    n = args.sessions
    root = args.corpus or BENCH / "data" / (f"{n // 1000}k" if n % 1000 == 0 else str(n))
    quick = args.quick
    reps = {
        "baseline": 10 if quick else 30,
        "grep": 2 if quick else 5,
        "sync": 1 if quick else 3,
        "hook": 10 if quick else 30,
        "startup": 10 if quick else 30,
        "keyword": 72 if quick else 216,
    }
    if not (root / "manifest.json").exists():
        print(f"generating {n} sessions in {root} …", flush=True)
        corpus.generate(root, n, args.seed)
    manifest = json.loads((root / "manifest.json").read_text())
    if manifest["sessions"] != n:
        raise SystemExit(f"{root} holds {manifest['sessions']} sessions, not {n}")
    files = transcripts(root)
    total = sum(f.stat().st_size for f in files)
    recall, recall_desc = recall_command()
    compile_bytecode()
    impls = args.impl or list(IMPLS)
    results: dict[str, Any] = {
        "machine": machine(),
        "recall_cmd": recall_desc,
        "corpus": {"root": str(root), "sessions": n, "files": len(files), "bytes": total},
        "reps": reps,
    }
    version = subprocess.run([*recall, "--version"], capture_output=True, text=True, check=True)
    results["recall_version"] = version.stdout.strip().removeprefix("recall ")
    print(f"{results['recall_version']}; corpus {root}: {len(files)} files, {total / 1e6:.0f} MB")

    py_start = [sys.executable, "-c", "import json"]
    baseline = repeat(lambda: run_timed(py_start, dict(os.environ)), reps["baseline"] // 2, 2)
    print(f"  python start-up p50 {ms(p50(baseline))}", flush=True)

    with tempfile.TemporaryDirectory(prefix="recall-bench-") as tmp:
        scratch = Path(tmp)
        results["grep_s"] = bench_grep(files, root, reps["grep"])
        print(f"  grep p50 {p50(results['grep_s']):.2f}s", flush=True)
        results["ingest"] = {
            impl: bench_ingest(recall, root, scratch, impl, reps["sync"], n) for impl in impls
        }
        claude = [s for s in manifest["sessions_index"] if s["agent"] == "claude"]
        biggest = max(claude, key=lambda s: s["bytes"])
        session = root / biggest["path"]
        results["hook"] = {}
        for impl in impls:
            results["hook"][impl] = bench_hook(
                recall, root, scratch, impl, session, reps["hook"], args.seed
            )
            print(f"  hook {impl} p50 {ms(p50(results['hook'][impl]['hook_s']))}", flush=True)
        results["hook_session"] = {
            "path": biggest["path"],
            "bytes": biggest["bytes"],
            "bytes_per_turn": results["hook"][impls[0]]["bytes_per_turn"],
        }
        data = scratch / impls[0]
        results["startup"] = bench_startup(recall, root, data, reps["startup"])
        queries = [
            (kind, q.format(ticket0=manifest["tickets"][0], ticket1=manifest["tickets"][1]))
            for kind, q in QUERIES
        ]
        results["keyword"] = bench_keyword(data, queries, reps["keyword"])

    baseline += repeat(lambda: run_timed(py_start, dict(os.environ)), reps["baseline"] // 2, 0)
    results["baseline_s"] = baseline
    text = report(results)
    print("\n" + text)
    out = BENCH / "out"
    out.mkdir(exist_ok=True)
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S")
    (out / f"run-{n}-{stamp}.json").write_text(json.dumps(results, indent=1))
    (out / f"run-{n}-{stamp}.txt").write_text(text + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
