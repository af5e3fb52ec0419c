"""What the adapter tests share: a parse of a whole file, its turns, and a model of the store."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

from paths import REPO, TRANSCRIPTS
from recall.agents import Adapter
from recall.types import Parsed, SessionPart

Store = dict[str, dict[str, tuple[str, str, str | None]]]
"""session id → message key → (role, text, timestamp), as the store would keep them."""


def parse_whole(adapter: Adapter, path: Path, data: bytes | None = None) -> Parsed:
    """`adapter`'s parse of `data` (default: the file) from offset 0 with no state."""
    raw = path.read_bytes() if data is None else data
    return adapter.parse(path, raw, 0, {})


def pairs(parsed: Parsed) -> list[tuple[str, str]]:
    """Every message of a parse as (role, text), in order."""
    return [(m.role, m.text) for part in parsed.parts for m in part.messages]


def apply(store: Store, parts: list[SessionPart]) -> None:
    """What the store does with parts: replace, then rewinds, then upsert by key in order."""
    for part in parts:
        msgs = store.setdefault(part.info.session_id, {})
        if part.replace:
            msgs.clear()
        for key in part.rewinds:
            if key in msgs:
                keys = list(msgs)
                for k in keys[keys.index(key) :]:
                    del msgs[k]
        for m in part.messages:
            msgs[m.key] = (m.role, m.text, m.timestamp)


FIXTURE_HOME = REPO / "tests" / "fixtures" / "home"
"""recall's fixtures for Copilot CLI, Pi, OpenClaw and Qwen Code, laid out as a home folder."""


def make_home(home: Path) -> Path:
    """`FIXTURE_HOME` copied to `home`, with the shared Copilot samples where Copilot writes
    them and Copilot's `session-store.db` built from its SQL."""
    shutil.copytree(FIXTURE_HOME, home, dirs_exist_ok=True)
    state = home / ".copilot" / "session-state"
    shared = TRANSCRIPTS / "copilot" / "agent-sessions"
    shutil.copy(shared / "small.jsonl", state / "copilot_stage0_small.jsonl")  # the flat layout
    shutil.copy(shared / "schema_drift.jsonl", state / "copilot_stage0_drift.jsonl")
    shutil.copytree(shared / "subdir_v1", state, dirs_exist_ok=True)
    sql = (home / ".copilot" / "session-store.sql").read_text("utf-8")
    with sqlite3.connect(home / ".copilot" / "session-store.db") as db:
        db.executescript(sql)
    return home
