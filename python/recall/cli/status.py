"""`recall status`: what is indexed, where, how fresh, and which core is running."""

from __future__ import annotations

import argparse
import sqlite3
from typing import Any


def add_parser(subs: Any) -> None:
    p = subs.add_parser("status", help="what is indexed, where, how fresh, which core")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from recall import __version__, _accel
    from recall.cli.render import day, print_json
    from recall.config import computer_name
    from recall.memory.oversize import describe, too_big
    from recall.store import open_reader
    from recall.store.queries import stats

    with open_reader() as store:
        st = stats(store.conn, store.path)
        oversize = too_big(store.conn)
        meaning = semantic(store.conn)
    st.agents = every_agent(st.agents)
    from recall.peers.warm import daemon_status

    daemon = daemon_status()
    if args.json:
        print_json(
            {
                "version": __version__,
                "core": _accel.IMPL,
                "core_reason": _accel.IMPL_REASON,
                "computer": computer_name(),
                "sqlite": sqlite3.sqlite_version,
                "index": st,
                "too_big": oversize,
                "semantic": meaning,
                "daemon": daemon,
            }
        )
        return 0
    print(f"recall {__version__} on {computer_name()}; core: {_accel.IMPL} ({_accel.IMPL_REASON})")
    print(
        f"index: {st.database} ({st.size_bytes / 1e6:.1f} MB); "
        f"SQLite {sqlite3.sqlite_version} (`recall doctor` checks it)"
    )
    print(
        f"{st.sessions} sessions, {st.messages} messages from {st.transcripts} transcripts"
        + (
            f" ({st.transcripts_missing} since deleted, mirrors kept)"
            if st.transcripts_missing
            else ""
        )
    )
    print(f"last indexed: {day(st.last_indexed)}")
    for a in st.agents:
        print(
            f"  {a.agent:<10} {a.sessions:>6} sessions {a.messages:>8} messages  "
            f"latest {day(a.last_message)}"
        )
    if st.skipped:
        print("lines skipped: " + ", ".join(f"{n} {r}" for r, n in sorted(st.skipped.items())))
    if oversize:
        print(f"memory files {describe(oversize)}")
    print(semantic_line(meaning))
    print(daemon_line(daemon))
    return 0


def daemon_line(daemon: dict[str, Any]) -> str:
    """Where semantic and hybrid searches run: a running daemon's warm model, or a model
    loaded by each search (peers/warm.py `daemon_status`)."""
    if not daemon["running"]:
        return "daemon: not running (semantic and hybrid searches load the model in-process)"
    at = daemon["url"]
    if not daemon.get("used", True):
        return f"daemon: up at {at}, not used (RECALL_NO_DAEMON is set)"
    if not daemon["answering"]:
        why = daemon.get("error") or "no token to prove it is ours"
        return f"daemon: at {at} but not answering ({why}): searches run in-process"
    warm = "model warm" if daemon.get("model_loaded") else "model not loaded yet"
    return f"daemon: up at {at}, {warm}; semantic and hybrid searches go through it"


def every_agent(found: list[Any]) -> list[Any]:
    """The index's per-agent counts, with a zero row for each agent recall reads that has
    no session yet: a user sees that Cursor was looked for, and found empty."""
    from recall.agents import ADAPTERS
    from recall.store.queries import AgentStats

    have = {a.agent for a in found}
    empty = [
        AgentStats(agent=name, sessions=0, messages=0, last_message=None)
        for name in ADAPTERS
        if name not in have
    ]
    return sorted([*found, *empty], key=lambda a: a.agent)


# --- semantic search ---
def semantic(db: sqlite3.Connection) -> dict[str, Any]:
    """Which model embeds, what share of the messages it has embedded and up to which
    date (sessions are embedded newest first), without loading the model."""
    from recall.config import load_config
    from recall.semantic import ModelError
    from recall.semantic import vectors as vec
    from recall.semantic.provider import current_model_id
    from recall.timeutil import format_ts

    try:
        model = current_model_id()
    except ModelError as exc:
        return {"model": None, "off": str(exc)}
    cover = vec.coverage(db, model, load_config().embed_roles)
    done = cover.messages - cover.pending
    return {
        "model": model,
        "chunks": dict(vec.models(db)).get(model, 0),
        "messages": cover.messages,
        "embedded": done,
        "pending": cover.pending,
        "share": round(done / cover.messages, 4) if cover.messages else 1.0,
        "complete_since": format_ts(cover.complete_since),
        "newest_pending": format_ts(cover.newest_pending),
        "skimmed": cover.skimmed,
        "searchable_since": format_ts(cover.searchable_since),
    }


def semantic_line(info: dict[str, Any]) -> str:
    """One line: the share embedded, the sessions it covers whole, what is still to do."""
    from recall.cli.render import day

    if info["model"] is None:
        return f"semantic search: off ({info['off']})"
    line = (
        f"semantic search: {info['model']}, {info['share']:.0%} of {info['messages']:,}"
        f" messages embedded ({info['chunks']:,} chunks)"
    )
    if not info["pending"]:
        return line
    if info["complete_since"]:
        line += f"; every session since {day(info['complete_since'])[:10]} is embedded"
    if info["skimmed"]:
        since = info["searchable_since"]
        line += (
            f"; every session since {day(since)[:10]} is searchable by meaning," if since else ";"
        ) + f" {info['skimmed']:,} messages from their opening until read whole"
    return line + (
        f"; {info['pending']:,} messages to embed, back from"
        f" {day(info['newest_pending'])[:10]} (`recall embed`, `recall sync` or the daemon)"
    )
