"""A year of history in the plain import format, streamed to a file: any number of messages.

    python bench/history_corpus.py --messages 400000 --out bench/data/history-400k.jsonl

One JSON object a line (`session`, `role`, `text`, `timestamp`, `project`,
`agent`, sometimes `title`), sessions of 4 to 60 messages spread over the
365 days before `END`, several agents and forty projects. Text comes from
`corpus.py`'s generator: technical English from a Zipf vocabulary with a
long tail, salted with the session's tickets, paths, functions and errors,
and now and then a pasted tool output (code, logs, diffs). Messages average
~520 bytes a line, the shape of the 210 MB, 400,000-message history issue 28
measured. Seeded and written a line at a time: the same arguments give the
same bytes, and memory stays flat whatever `--messages` is.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from corpus_text import _PROJECT_CUM, Topic, Writer, _vocab, make_projects

END = datetime(2026, 11, 1, tzinfo=UTC)
DAYS = 365
AGENTS = (("claude", 0.45), ("codex", 0.3), ("gemini", 0.15), ("import", 0.1))


def session_lines(seed: int, index: int) -> Iterator[dict[str, str]]:
    """Session number `index`: everything follows from (seed, index)."""
    rng = random.Random(seed * 1_000_003 + index)
    vocab = _vocab(seed)
    projects = make_projects(seed)
    project = rng.choices(projects, cum_weights=_PROJECT_CUM[: len(projects)])[0]
    agent = rng.choices([a for a, _ in AGENTS], [w for _, w in AGENTS])[0]
    writer = Writer(rng, vocab, Topic(rng, vocab, project))
    turns = 2 + round(28 * rng.betavariate(1.2, 3.0))
    at = END - timedelta(seconds=rng.uniform(0, DAYS * 86400))
    sid = f"{agent}-{seed}-{index:07d}"
    for turn in range(turns):
        for role in ("user", "assistant"):
            at += timedelta(seconds=rng.uniform(5, 400))
            if role == "user":
                text = writer.prompt()
            else:
                text = writer.answer()
                if rng.random() < 0.12:
                    text += "\n\n```\n" + vocab.tool_pool.output(rng)[:4000] + "\n```"
            line = {
                "session": sid,
                "role": role,
                "text": text,
                "timestamp": at.strftime("%Y-%m-%dT%H:%M:%SZ"),
                "project": project.cwd,
                "agent": agent,
            }
            if turn == 0 and role == "user" and rng.random() < 0.3:
                line["title"] = writer.short()[:60]
            yield line


def write(out: Path, messages: int, seed: int = 1) -> dict[str, int]:
    """Write sessions until `messages` lines are out; the totals."""
    n = sessions = size = 0
    with out.open("w", encoding="utf-8") as fh:
        while n < messages:
            for line in session_lines(seed, sessions):
                raw = json.dumps(line, ensure_ascii=False) + "\n"
                fh.write(raw)
                size += len(raw.encode("utf-8"))
                n += 1
                if n >= messages:
                    break
            sessions += 1
    return {"messages": n, "sessions": sessions, "bytes": size}


def ensure(out: Path, messages: int, seed: int = 1) -> Path:
    """`out`, written if it is not there yet (generated files are kept in bench/data)."""
    if not out.exists():
        out.parent.mkdir(parents=True, exist_ok=True)
        tmp = out.with_suffix(".part")
        write(tmp, messages, seed)
        tmp.replace(out)
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--messages", type=int, default=10_000)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--out", type=Path, required=True)
    args = p.parse_args(argv)
    totals = write(args.out, args.messages, args.seed)
    print(json.dumps(totals))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
