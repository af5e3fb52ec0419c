"""Memories and file sources: what one search over every source costs, and re-indexing files.

    python bench/memory_bench.py [--memories 1000 10000] [--queries 40]

Every figure sits beside a baseline measured in the same run (SPEC §8):

1. Search latency, in-process, keyword mode: a recall database holding
   LongMemEval's haystack conversations (real text) plus N memories (real user
   turns, cut to a sentence) and a 200-section MEMORY.md. p50/p95 of
   `search.sources.run(scope="all")` against `search.modes.run` alone (the
   sessions-only search of before, the baseline), over LongMemEval's questions.
2. `remember` latency (write + FTS, no model) against one `INSERT` of a
   message row in its own transaction (the baseline: the least a write costs).
3. Re-indexing a 200-section MEMORY.md: unchanged (a hash) and one section
   edited, against indexing it the first time.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SHARED = Path(os.environ.get("RECALL_SHARED", ROOT.parent / "shared"))
DATA = SHARED / "eval" / "longmemeval" / "longmemeval_s_dev100.jsonl.gz"


def _records(limit: int) -> list[dict]:
    with gzip.open(DATA, "rt", encoding="utf-8") as fh:
        return [json.loads(line) for _, line in zip(range(limit), fh, strict=False)]


def _ms(samples: list[float]) -> tuple[float, float]:
    ordered = sorted(samples)
    return statistics.median(ordered) * 1000, ordered[int(len(ordered) * 0.95) - 1] * 1000


def _memory_md(sections: int, changed: int | None = None) -> str:
    body = [
        f"## Topic {i}\n\nnote {i}: " + ("edited " if i == changed else "") + "x" * 200
        for i in range(sections)
    ]
    return "# Memory\n\n" + "\n\n".join(body) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--memories", type=int, nargs="+", default=[1000, 10000])
    parser.add_argument("--queries", type=int, default=40)
    args = parser.parse_args(argv)
    sys.path.insert(0, str(ROOT / "python"))
    tmp = Path(tempfile.mkdtemp(prefix="recall-membench-"))
    os.environ["RECALL_HOME"] = str(tmp)
    os.environ["RECALL_EMBEDDING"] = "none"
    from recall.agents import IMPORT
    from recall.config import computer_name
    from recall.ingest import ingest_bytes
    from recall.memory.files import Source, index_file, memory_file
    from recall.memory.memories import remember
    from recall.search.asked import Asked, prepare
    from recall.search.modes import run as sessions_only
    from recall.search.results import Filters
    from recall.search.sources import run as every_source
    from recall.store import open_writer

    records = _records(args.queries)
    lines = []
    turns: list[str] = []
    for rec in records:
        for sid, sess in zip(rec["haystack_session_ids"], rec["haystack_sessions"], strict=True):
            for turn in sess:
                lines.append(
                    json.dumps({"session": sid, "role": turn["role"], "text": turn["content"]})
                )
                if turn["role"] == "user":
                    turns.append(turn["content"].split(". ")[0][:300])
    with open_writer() as store:
        ingest_bytes(store, IMPORT, "\n".join(lines).encode(), computer_name())
        print(f"index: {len(lines)} messages of {len(records)} LongMemEval haystacks")
        path = memory_file()
        path.write_text(_memory_md(200), encoding="utf-8")
        t0 = time.perf_counter()
        index_file(store, Source(path, "memory_md"))
        first = time.perf_counter() - t0
        t0 = time.perf_counter()
        index_file(store, Source(path, "memory_md"))
        same = time.perf_counter() - t0
        path.write_text(_memory_md(200, changed=100), encoding="utf-8")
        t0 = time.perf_counter()
        index_file(store, Source(path, "memory_md"))
        edit = time.perf_counter() - t0
        print(
            f"MEMORY.md, 200 sections: first index {first * 1000:.1f} ms; unchanged "
            f"{same * 1000:.2f} ms ({same / first:.3f}x); one section edited "
            f"{edit * 1000:.1f} ms ({edit / first:.3f}x)"
        )
        kept = 0
        for size in args.memories:
            writes: list[float] = []
            base: list[float] = []
            while kept < size:
                text = f"{turns[kept % len(turns)]} (note {kept})"
                t0 = time.perf_counter()
                remember(store, text, "fact", 1 + kept % 10)
                writes.append(time.perf_counter() - t0)
                t0 = time.perf_counter()
                with store.transaction() as db:
                    db.execute(
                        "INSERT INTO digest_marks(session, position, digested_at) VALUES (1, ?, 0)"
                        " ON CONFLICT(session) DO UPDATE SET position = excluded.position",
                        (kept,),
                    )
                base.append(time.perf_counter() - t0)
                kept += 1
            w50, w95 = _ms(writes[-500:])
            b50, _ = _ms(base[-500:])
            print(
                f"{size} memories: remember p50 {w50:.2f} ms p95 {w95:.2f} ms;"
                f" a one-row write {b50:.2f} ms ({w50 / b50:.1f}x)"
            )
            old: list[float] = []
            new: list[float] = []
            for rec in records:
                q = rec["question"]
                t0 = time.perf_counter()
                sessions_only(store.conn, Asked(store.conn, prepare(q)), Filters(), 10, "keyword")
                old.append(time.perf_counter() - t0)
                t0 = time.perf_counter()
                every_source(
                    store.conn,
                    Asked(store.conn, prepare(q)),
                    Filters(),
                    10,
                    "bench",
                    "all",
                    "keyword",
                )
                new.append(time.perf_counter() - t0)
            o50, o95 = _ms(old)
            n50, n95 = _ms(new)
            print(
                f"{size} memories: search sessions only p50 {o50:.1f} ms p95 {o95:.1f} ms; "
                f"every source p50 {n50:.1f} ms p95 {n95:.1f} ms ({n50 / o50:.2f}x p50)"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
