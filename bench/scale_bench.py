"""How recall grows with a history: 10k, 100k and 1M messages, each command as a user runs it.

    python bench/scale_bench.py [--sizes 10000,100000,1000000] [--calls 15] [--embed 2000]

For each size, a history in the import format (`history_corpus.py`: a year of
sessions, several agents and projects, Zipf vocabulary with a long tail,
identifiers, pasted code and logs) is imported into a fresh index, and each
command runs as its own process, as a user or an agent runs it:

- import from nothing (`recall ingest --format jsonl FILE`) and again, a
  no-op (the file is as its import left it), and a no-op `recall sync`;
- keyword `recall search` over `--calls` queries (rare identifiers, common
  words, two-word queries): p50/p95 and the p50's ratio to Python's own
  start-up (`python3 -c 'import json'`) measured in the same run;
- with a model installed, `recall embed --limit N` (the newest N messages:
  the embedding rate, chunks/s), then hybrid `recall search` over that
  partly embedded index, p50/p95 and ratio;
- `recall status` and `recall show <session>`, p50;
- the database and the vector index on disk; the peak RSS of each command.

Results print as a table and, with `--json`, as data. Generated histories are
kept in bench/data/ (1M messages is ~490 MB).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "python"))

from history_corpus import ensure  # noqa: E402

QUERIES = [
    "rebase",
    "canary rollout",
    "shard probe",
    "leader queue",
    "timeout",
    "encoder socket",
    "isolation payload",
    "flaky test",
    "deadlock",
    "router constraint",
]


def env_for(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("RECALL_", "XDG_"))}
    env.update(
        HOME=str(home),
        RECALL_HOME=str(home / "data"),
        RECALL_COMPUTER="bench",
        PYTHONPATH=str(HERE.parent / "python"),
    )
    if os.environ.get("RECALL_MODEL_DIR"):
        env["RECALL_MODEL_DIR"] = os.environ["RECALL_MODEL_DIR"]
    return env


def timed(cmd: list[str], env: dict[str, str], ok: tuple[int, ...] = (0,)) -> tuple[float, int]:
    """(wall seconds, peak RSS MB) of one process."""
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    seconds = time.perf_counter() - start
    code = os.waitstatus_to_exitcode(status)
    if code not in ok:
        err = proc.stderr.read().decode() if proc.stderr else ""
        raise RuntimeError(f"{' '.join(cmd)} exited {code}: {err}")
    if proc.stderr:
        proc.stderr.close()
    return seconds, usage.ru_maxrss // 1024


def series(
    cmds: list[list[str]], env: dict[str, str], ok: tuple[int, ...] = (0,)
) -> dict[str, Any]:
    runs = [timed(c, env, ok) for c in cmds]
    walls = sorted(s for s, _ in runs)
    p95 = walls[min(len(walls) - 1, round(0.95 * (len(walls) - 1)))]
    return {
        "p50_ms": round(statistics.median(walls) * 1000, 1),
        "p95_ms": round(p95 * 1000, 1),
        "rss_mb": max(r for _, r in runs),
    }


def sessions_in(src: Path, n: int) -> list[str]:
    """The first `n` session ids of a history file."""
    ids: list[str] = []
    with src.open("rb") as fh:
        for line in fh:
            sid = json.loads(line)["session"]
            if sid not in ids:
                ids.append(sid)
            if len(ids) == n:
                break
    return ids


def model_present() -> bool:
    try:
        from recall.semantic.provider import current_model_id

        current_model_id()
    except Exception:
        return False
    return True


def disk(data: Path) -> tuple[float, float]:
    """(database MB, vector index MB) on disk."""
    db = sum(p.stat().st_size for p in data.glob("recall.db*"))
    vec = sum(p.stat().st_size for p in (data / "vectors").rglob("*") if p.is_file())
    return round(db / 1e6, 1), round(vec / 1e6, 1)


def one_size(messages: int, calls: int, embed: int) -> dict[str, Any]:
    src = ensure(HERE / "data" / f"history-{messages}.jsonl", messages)
    recall = [sys.executable, "-m", "recall"]
    out: dict[str, Any] = {"messages": messages, "file_mb": round(src.stat().st_size / 1e6, 1)}
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp)
        env = env_for(home)
        base = series([[sys.executable, "-c", "import json"]] * calls, env)
        out["python_start"] = base
        seconds, rss = timed([*recall, "ingest", "--format", "jsonl", str(src)], env)
        out["import"] = {"seconds": round(seconds, 1), "rss_mb": rss}
        seconds, rss = timed([*recall, "ingest", "--format", "jsonl", str(src)], env)
        out["import_noop"] = {"seconds": round(seconds, 2), "rss_mb": rss}
        seconds, rss = timed([*recall, "sync", "--no-embed", "-q"], env)
        out["sync_noop"] = {"seconds": round(seconds, 2), "rss_mb": rss}
        queries = [QUERIES[i % len(QUERIES)] for i in range(calls)]
        search = [[*recall, "search", "--mode", "keyword", q] for q in queries]
        timed(search[0], env, (0, 1))  # warm the page cache, as a user's index is
        out["keyword"] = series(search, env, (0, 1))
        out["keyword"]["ratio"] = round(out["keyword"]["p50_ms"] / base["p50_ms"], 2)
        out["status"] = series([[*recall, "status"]] * max(3, calls // 3), env)
        show = [[*recall, "show", sid] for sid in sessions_in(src, max(3, calls // 3))]
        out["show"] = series(show, env)
        if embed and model_present():
            seconds, rss = timed([*recall, "embed", "--limit", str(embed), "-q"], env)
            import sqlite3

            db = sqlite3.connect(home / "data" / "recall.db")
            (chunks,) = db.execute("SELECT count(*) FROM chunks").fetchone()
            db.close()
            out["embed"] = {
                "messages": embed,
                "chunks": chunks,
                "seconds": round(seconds, 1),
                "chunks_per_s": round(chunks / seconds, 1),
                "rss_mb": rss,
            }
            hybrid = [[*recall, "search", "--mode", "hybrid", q] for q in queries]
            timed(hybrid[0], env, (0, 1))
            out["hybrid"] = series(hybrid, env, (0, 1))
            out["hybrid"]["ratio"] = round(out["hybrid"]["p50_ms"] / base["p50_ms"], 2)
        out["db_mb"], out["vectors_mb"] = disk(home / "data")
    return out


def table(results: list[dict[str, Any]]) -> str:
    rows = [
        ("messages (file MB)", lambda r: f"{r['messages']:,} ({r['file_mb']} MB)"),
        (
            "import from nothing",
            lambda r: f"{r['import']['seconds']} s, {r['import']['rss_mb']} MB",
        ),
        ("import again (no-op)", lambda r: f"{r['import_noop']['seconds']} s"),
        (
            "sync, no-op",
            lambda r: f"{r['sync_noop']['seconds']} s, {r['sync_noop']['rss_mb']} MB",
        ),
        ("python start-up p50", lambda r: f"{r['python_start']['p50_ms']} ms"),
        (
            "keyword search p50 / p95",
            lambda r: (
                f"{r['keyword']['p50_ms']} / {r['keyword']['p95_ms']} ms"
                f" ({r['keyword']['ratio']}x), {r['keyword']['rss_mb']} MB"
            ),
        ),
        (
            "embed newest N",
            lambda r: (
                f"{r['embed']['chunks']} chunks, {r['embed']['chunks_per_s']} chunks/s,"
                f" {r['embed']['rss_mb']} MB"
                if "embed" in r
                else "—"
            ),
        ),
        (
            "hybrid search p50 / p95",
            lambda r: (
                f"{r['hybrid']['p50_ms']} / {r['hybrid']['p95_ms']} ms"
                f" ({r['hybrid']['ratio']}x), {r['hybrid']['rss_mb']} MB"
                if "hybrid" in r
                else "—"
            ),
        ),
        ("status p50", lambda r: f"{r['status']['p50_ms']} ms, {r['status']['rss_mb']} MB"),
        ("show p50", lambda r: f"{r['show']['p50_ms']} ms, {r['show']['rss_mb']} MB"),
        ("database / vectors on disk", lambda r: f"{r['db_mb']} / {r['vectors_mb']} MB"),
    ]
    lines = ["| | " + " | ".join(f"{r['messages']:,}" for r in results) + " |"]
    lines.append("| --- |" + " --- |" * len(results))
    for name, cell in rows:
        lines.append(f"| {name} | " + " | ".join(cell(r) for r in results) + " |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--sizes", default="10000,100000,1000000")
    p.add_argument("--calls", type=int, default=15)
    p.add_argument("--embed", type=int, default=2000, help="newest messages embedded (0: none)")
    p.add_argument("--json", type=Path)
    args = p.parse_args(argv)
    results = []
    for size in (int(s) for s in args.sizes.split(",")):
        results.append(one_size(size, args.calls, args.embed))
        print(json.dumps(results[-1]), flush=True)
    print(table(results))
    if args.json:
        args.json.write_text(json.dumps(results, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
