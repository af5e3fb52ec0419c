"""Copilot CLI, Pi, OpenClaw and Qwen Code through sync and ingest, as a user's home holds them.

`tests/fixtures/home` is laid out as a home folder (`.copilot`, `.pi`,
`.openclaw`, `.qwen`); the shared Copilot samples join it in the places
Copilot writes them. Expected counts were read off the fixture files by hand.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from agenthelp import FIXTURE_HOME, make_home
from paths import TRANSCRIPTS
from recall.agents import ADAPTERS, adapter_for
from recall.ingest import ingest_path
from recall.store import open_reader, open_writer
from recall.store.queries import load_mirror
from recall.sync import sync

NEW_AGENTS = ("copilot", "openclaw", "pi", "qwen")


def _mirrors(db_path: Path | None = None) -> dict[tuple[str, str], list[tuple[str, str]]]:
    with open_reader(db_path) as store:
        rows = store.conn.execute("SELECT id, session_id, agent FROM sessions").fetchall()
        return {
            (agent, sid): [(m.role, m.text) for m in load_mirror(store.conn, rowid).messages]
            for rowid, sid, agent in rows
        }


def _sessions() -> dict[str, tuple[str | None, str | None, str | None]]:
    with open_reader() as store:
        rows = store.conn.execute(
            "SELECT session_id, title, project, parent_session_id FROM sessions"
        ).fetchall()
    return {sid: (title, project, parent) for sid, title, project, parent in rows}


def test_one_sync_indexes_every_fixture_and_a_second_writes_nothing() -> None:
    make_home(Path.home())
    with open_writer() as store:
        first = sync(store, "box")
    assert first.files_failed == 0
    mirrors = _mirrors()
    per_agent = {a: sum(1 for (agent, _) in mirrors if agent == a) for a in NEW_AGENTS}
    # copilot: 5 fixture sessions + 3 shared samples, and a sub-agent each in the first
    # fixture and the shared small.jsonl; pi: 4 files; openclaw: 1; qwen: 3 files and a
    # sub-agent
    assert per_agent == {"copilot": 10, "openclaw": 1, "pi": 4, "qwen": 4}
    for (_, sid), messages in mirrors.items():
        assert messages, f"{sid} was created with no messages"
        for _, text in messages:
            for noise in ("NOISE", "ABANDONED", "transformedContent", "<current_datetime>"):
                assert noise not in text, (sid, text)
    sessions = _sessions()
    assert sessions["5b0c7c2e-1f7a-4d7e-9a51-2f6d0f1c9e11"][:2] == (
        "Fix CI-only timezone test failure",  # workspace.yaml, over the store's
        "/home/dev/shop",
    )
    assert sessions["7d1e0b4a-5c3f-4e21-8a9b-0c1d2e3f4a5b"][0] == "Retry large uploads with backoff"
    assert sessions["5b0c7c2e-1f7a-4d7e-9a51-2f6d0f1c9e11:agent-explore-7f3c"][2] == (
        "5b0c7c2e-1f7a-4d7e-9a51-2f6d0f1c9e11"
    )
    assert sessions["01919f5e-7a2b-7c3d-8e4f-5a6b7c8d9e0f"][0] == "Login double-submit fix"
    assert sessions["8a7b6c5d-4e3f-4a2b-9c1d-0e9f8a7b6c5d"][0] == "Invoice template decision"
    assert sessions["6f5e4d3c-2b1a-4098-8765-43210fedcba9"][:2] == (
        "Orders: empty cart returns 404",
        "/home/dev/api",
    )
    assert sessions["6f5e4d3c-2b1a-4098-8765-43210fedcba9:agent-explore-9a1b"][2] == (
        "6f5e4d3c-2b1a-4098-8765-43210fedcba9"
    )
    with open_writer() as store:
        second = sync(store, "box")
    assert (second.files_read, second.bytes_read, second.sessions_touched) == (0, 0, 0)
    assert _mirrors() == mirrors


GROWTH = {
    "copilot": (
        ".copilot/session-state/7d1e0b4a-5c3f-4e21-8a9b-0c1d2e3f4a5b/events.jsonl",
        b'{"type":"user.message","id":"f4","parentId":"f3","timestamp":"2026-09-02T08:05:00.000Z",'
        b'"data":{"content":"also log each retry with its attempt number"}}\n',
        "7d1e0b4a-5c3f-4e21-8a9b-0c1d2e3f4a5b",
    ),
    "pi": (
        ".pi/agent/sessions/--home-dev-shop--/"
        "2026-08-11T10-00-00-000Z_01919fa0-1111-7222-8333-444455556666.jsonl",
        b'{"type":"message","id":"b2f00003","parentId":"b2f00002",'
        b'"timestamp":"2026-08-11T10:05:00.000Z","message":{"role":"user",'
        b'"content":"also log each retry with its attempt number"}}\n',
        "01919fa0-1111-7222-8333-444455556666",
    ),
    "openclaw": (
        ".openclaw/agents/main/sessions/8a7b6c5d-4e3f-4a2b-9c1d-0e9f8a7b6c5d.jsonl",
        b'{"type":"message","id":"d4f00007","parentId":"d4f00006",'
        b'"timestamp":"2026-07-04T18:10:00.000Z","message":{"role":"user",'
        b'"content":"also log each retry with its attempt number"}}\n',
        "8a7b6c5d-4e3f-4a2b-9c1d-0e9f8a7b6c5d",
    ),
    "qwen": (
        ".qwen/tmp/3c9f2e7a1b8d4c6e0f5a9b2d7e1c4f8a3b6d0e9c2f5a8b1d4e7c0f3a6b9d2e5c/chats/"
        "1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d.jsonl",
        b'{"uuid":"r-3","parentUuid":"r-2","sessionId":"1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d",'
        b'"timestamp":"2025-11-03T12:05:00.000Z","type":"user","message":{"role":"user",'
        b'"parts":[{"text":"also log each retry with its attempt number"}]}}\n',
        "1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d",
    ),
}


@pytest.mark.parametrize("agent", NEW_AGENTS)
def test_a_session_grown_by_one_turn_is_reindexed_alone(agent: str) -> None:
    home = make_home(Path.home())
    with open_writer() as store:
        sync(store, "box")
    before = _mirrors()
    rel, line, sid = GROWTH[agent]
    with open(home / rel, "ab") as fh:
        fh.write(line)
    with open_writer() as store:
        report = sync(store, "box")
    assert (report.files_read, report.sessions_touched) == (1, 1)
    assert report.bytes_read == len(line)
    after = _mirrors()
    grown = after.pop((agent, sid))
    assert grown == [
        *before.pop((agent, sid)),
        ("user", "also log each retry with its attempt number"),
    ]
    assert after == before


def _growing_files() -> list[object]:
    out = []
    for path in sorted(FIXTURE_HOME.rglob("*.jsonl")):
        adapter = adapter_for(path)
        assert adapter is not None, path
        out.append(pytest.param(adapter.name, path, id=str(path.relative_to(FIXTURE_HOME))))
    for rel in ("small.jsonl", "schema_drift.jsonl"):
        path = TRANSCRIPTS / "copilot" / "agent-sessions" / rel
        out.append(pytest.param("copilot", path, id=f"shared/copilot/{rel}"))
    return out


@pytest.mark.parametrize(("agent", "source"), _growing_files())
def test_a_file_read_as_it_grows_mirrors_one_read_of_it(
    agent: str, source: Path, tmp_path: Path
) -> None:
    """Line by line and mid-line, as hooks read a live session: a branch that moves back
    (Pi, Qwen) is read again whole, so the mirror is what one read of the file gives."""
    adapter = ADAPTERS[agent]
    data = source.read_bytes()
    whole = tmp_path / "whole" / source.parent.name / source.name  # the folder can be the id
    grown = tmp_path / "grown" / source.parent.name / source.name
    whole.parent.mkdir(parents=True)
    grown.parent.mkdir(parents=True)
    whole.write_bytes(data)
    with open_writer(tmp_path / "whole.db") as store:
        ingest_path(store, adapter, whole, "box")
    ends = [i + 1 for i, b in enumerate(data) if b == 0x0A]
    points = sorted({*ends, *(e - 5 for e in ends[::4] if e > 5), len(data)})
    with open_writer(tmp_path / "grown.db") as store:
        written = 0
        for point in points:
            with open(grown, "ab") as fh:
                fh.write(data[written:point])
            written = point
            ingest_path(store, adapter, grown, "box")
    assert _mirrors(tmp_path / "grown.db") == _mirrors(tmp_path / "whole.db")


def test_a_branch_that_moves_back_replaces_the_abandoned_turns(tmp_path: Path) -> None:
    path = tmp_path / "2026-01-01T00-00-00-000Z_f00dfeed.jsonl"

    def entry(eid: str, parent: str | None, role: str, text: str) -> bytes:
        parent_json = "null" if parent is None else f'"{parent}"'
        return (
            f'{{"type":"message","id":"{eid}","parentId":{parent_json},'
            f'"message":{{"role":"{role}","content":"{text}"}}}}\n'
        ).encode()

    path.write_bytes(
        b'{"type":"session","version":3,"id":"f00dfeed","cwd":"/w"}\n'
        + entry("e1", None, "user", "pick a database")
        + entry("e2", "e1", "assistant", "use MongoDB")
    )
    with open_writer() as store:
        ingest_path(store, ADAPTERS["pi"], path, "box")
        with open(path, "ab") as fh:  # the user goes back to e1 and asks for another answer
            fh.write(entry("e3", "e1", "assistant", "use SQLite"))
        job = ingest_path(store, ADAPTERS["pi"], path, "box")
        assert job is not None and job.parsed.parts[0].replace
    assert _mirrors()[("pi", "f00dfeed")] == [
        ("user", "pick a database"),
        ("assistant", "use SQLite"),
    ]
