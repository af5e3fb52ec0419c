"""How long `recall redact --rescan` holds the write lock: the bound docs/privacy.md states.

    python bench/lock_bench.py                       # 2,000 sessions x 20 messages
    python bench/lock_bench.py --sessions 5000 --messages 40

An index is built through the JSONL import with redaction off, every message
carrying a fake secret, so a rescan with redaction on rewrites every message
(the most a rescan ever writes). The rescan runs in this process with
`Store.transaction` and `forget.compact` timed from the lock taken to the
lock released. Reported, per core: how many write transactions, the median
and longest hold, and the compaction's hold (FTS rebuild + VACUUM, which
grows with the index). The baseline, taken in the same run, is a hook's
one-turn transaction on the same index.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

IMPLS = ("rust", "python")


def build(home: Path, sessions: int, messages: int) -> None:
    """An index whose every message holds a secret, stored raw (redaction off)."""
    src = home / "import.jsonl"
    with open(src, "w", encoding="utf-8") as fh:
        for s in range(sessions):
            for m in range(messages):
                token = f"ghp_{s:08d}{m:06d}{'Ab3' * 7}x"
                text = f"session {s} turn {m}: set GITHUB_TOKEN={token} and rebuild the cache"
                role = "user" if m % 2 == 0 else "assistant"
                fh.write(json.dumps({"session": f"s{s:05d}", "role": role, "text": text}) + "\n")
    (home / "config.toml").write_text("[redact]\nenabled = false\n", encoding="utf-8")
    env = {**os.environ, "RECALL_HOME": str(home)}
    subprocess.run(
        [sys.executable, "-m", "recall", "ingest", "--format", "jsonl", str(src)],
        env=env,
        check=True,
        capture_output=True,
    )
    (home / "config.toml").write_text("", encoding="utf-8")


def measure(home: Path, impl: str) -> dict[str, Any]:
    """Run in a child process (the core is chosen at import): the holds of one rescan."""
    code = """
import json, time, contextlib
from recall.store import db as store_db, open_writer
from recall.privacy import forget, rescan
from recall.privacy.redaction import current
from recall.ingest import ingest_bytes
from recall.agents import IMPORT

holds, compaction = [], []
real_tx, real_compact = store_db.Store.transaction, forget.compact

@contextlib.contextmanager
def timed(self):
    with real_tx(self) as db:
        start = time.perf_counter()
        yield db
    holds.append(time.perf_counter() - start)

def timed_compact(store, rebuild=False):
    start = time.perf_counter()
    try:
        return real_compact(store, rebuild)
    finally:
        compaction.append(time.perf_counter() - start)

store_db.Store.transaction = timed
rescan.compact = timed_compact
with open_writer() as store:
    turn = json.dumps({"session": "hook", "role": "user", "text": "one new turn"}).encode()
    hook = []
    for _ in range(5):
        holds.clear()
        ingest_bytes(store, IMPORT, turn, "bench")
        hook.append(holds[-1])
    holds.clear()
    start = time.perf_counter()
    report = rescan.rescan(store, current())
    took = time.perf_counter() - start
print(json.dumps({"holds": holds, "compaction": compaction, "hook": hook, "took": took,
                  "changed": report.messages_changed}))
"""
    env = {**os.environ, "RECALL_HOME": str(home), "RECALL_IMPL": impl}
    done = subprocess.run(
        [sys.executable, "-c", code], env=env, check=True, capture_output=True, text=True
    )
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


@contextmanager
def scratch() -> Iterator[Path]:
    with tempfile.TemporaryDirectory(prefix="recall-lock-bench-") as tmp:
        yield Path(tmp)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sessions", type=int, default=2000)
    ap.add_argument("--messages", type=int, default=20)
    args = ap.parse_args()
    print(f"index: {args.sessions} sessions x {args.messages} messages, each with a secret")
    for impl in IMPLS:
        with scratch() as home:
            build(home, args.sessions, args.messages)
            size = (home / "recall.db").stat().st_size / 1e6
            r = measure(home, impl)
        holds = r["holds"]
        hook = statistics.median(r["hook"])
        print(
            f"{impl:>6}: {size:.0f} MB index, rescan {r['took']:.1f} s, "
            f"{r['changed']} messages rewritten in {len(holds)} transactions; "
            f"hold median {statistics.median(holds) * 1000:.0f} ms, "
            f"longest {max(holds) * 1000:.0f} ms "
            f"({max(holds) / hook:.0f}x a hook's one-turn transaction, "
            f"{hook * 1000:.1f} ms); compaction {sum(r['compaction']):.2f} s"
        )


if __name__ == "__main__":
    main()
