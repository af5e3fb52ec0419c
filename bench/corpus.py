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
import json
import os
import random
import sys
import time
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from datetime import timedelta
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from corpus_agents import WRITERS, append_claude_turn
from corpus_text import (
    _PROJECT_CUM,
    AGENT_WEIGHTS,
    EPOCH,
    MAX_TURNS,
    MIN_TURNS,
    SPAN_DAYS,
    Project,
    Topic,
    Writer,
    _vocab,
    make_projects,
)

__all__ = ["append_claude_turn", "generate", "session"]
"""What other scripts use: a corpus, one session, and a turn added to a Claude session."""

_PROJECTS: dict[int, list[Project]] = {}


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
