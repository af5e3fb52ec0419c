"""`recall demo`: index a few sample sessions into a throwaway home and search them.

Shows recall working on a machine with no agent history yet (a fresh laptop,
CI), through the real adapters, store and search; the user's index is never
touched.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

# Sample transcripts shipped in recall/demo, in each agent's real format.
SAMPLES = {
    "claude-payments.jsonl": "claude",
    "rollout-2026-03-05T14-10-00-0199d3m0-c0de-7000-8000-000000000002.jsonl": "codex",
    "session-2026-03-09T11-00-3f2ad3m0.jsonl": "gemini",
}
QUERIES = ("retry backoff", "dataframe library", "health endpoint")


def add_parser(subs: Any) -> None:
    p = subs.add_parser("demo", help="index sample sessions into a throwaway home and search them")
    p.add_argument("query", nargs="*", help="what to search for (default: three sample questions)")
    p.set_defaults(run=run)


def _embed_samples() -> str | None:
    """Embed the samples so the demo shows hybrid search; why not, when there is no model."""
    from recall.cli.embed import embed_now
    from recall.semantic import ModelError

    try:
        embed_now(quiet=True)
    except ModelError as exc:
        return str(exc)
    return None


def run(args: argparse.Namespace) -> int:
    import shutil  # here, not at the top: every hook imports this module to build the parser
    import tempfile

    from recall.config import home_at

    home = Path(tempfile.mkdtemp(prefix="recall-demo-"))
    try:
        with home_at(home):
            return _run_demo(home, args)
    finally:
        shutil.rmtree(home, ignore_errors=True)


def _run_demo(home: Path, args: argparse.Namespace) -> int:
    from importlib import resources

    from recall.agents import ADAPTERS
    from recall.cli import main
    from recall.config import computer_name
    from recall.ingest import ingest_path
    from recall.store import open_writer

    samples = home / "transcripts"
    samples.mkdir()
    source = resources.files("recall") / "demo"
    with open_writer() as store:
        for name, agent in SAMPLES.items():
            target = samples / name
            target.write_bytes((source / name).read_bytes())
            ingest_path(store, ADAPTERS[agent], target, computer_name())
    agents = ", ".join(SAMPLES.values())
    print(f"Indexed {len(SAMPLES)} sample sessions ({agents}) into a throwaway index.")
    why_not = _embed_samples()
    mode = ["--mode", "keyword"] if why_not else []
    if why_not:
        print(f"Keyword search only: semantic search is off ({why_not}).")
    else:
        print("Embedded them with the local model: searches are hybrid (keywords + meaning).")
    for query in [" ".join(args.query)] if args.query else QUERIES:
        print(f"\n$ recall search {query!r} --limit 3")
        main(["search", query, "--limit", "3", *mode])
    print("$ recall status")
    main(["status"])
    print("\nThat was a throwaway index. Index your own sessions with: recall sync")
    return 0
