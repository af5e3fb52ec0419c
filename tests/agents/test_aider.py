"""Aider: `.aider.chat.history.md` in project folders, one session per run.

`tests/fixtures/home/code/shop` holds recall's fixture (built from aider's
`io.py`: `#### ` prompts, `> ` tool output, fenced edit blocks, CJK, a
half-written last line); the shared real sample (every run only slash
commands and ^C) must index nothing. Expected values were read off the files.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from agenthelp import FIXTURE_HOME
from paths import TRANSCRIPTS
from recall.agents import ADAPTERS, adapter_for
from recall.agents.aider import HISTORY
from recall.ingest import ingest_path
from recall.store import open_reader, open_writer
from recall.store.queries import load_mirror
from synchelp import index_state, stored, sync_now

FIXTURE = FIXTURE_HOME / "code" / "shop" / HISTORY
SHARED = TRANSCRIPTS / "aider" / "zen-mcp-server" / HISTORY


def _lay_out(home: Path) -> Path:
    shop = home / "code" / "shop" / HISTORY
    shop.parent.mkdir(parents=True)
    shutil.copy(FIXTURE, shop)
    real = home / "git" / "github" / "zen-mcp-server" / HISTORY
    real.parent.mkdir(parents=True)
    shutil.copy(SHARED, real)
    return shop


def test_each_run_is_a_session_of_prompts_and_replies() -> None:
    shop = _lay_out(Path.home())
    report = sync_now(["aider"])
    assert report.files_failed == 0
    got = stored("aider")
    assert len(got) == 2  # the second run (^C only) and the real sample's runs: nothing said
    first, second = sorted(got.values(), key=lambda s: s["started"])
    assert first["project"] == str(shop.parent)
    assert first["messages"][0] == (
        "user",
        "The checkout total ignores the discount code\nwhen the cart has a gift card.",
    )
    reply = first["messages"][1][1]
    assert reply.startswith("The discount is applied after the gift card")
    assert ">>>>>>> REPLACE\n```" in reply  # a fenced edit block is the reply's, whole
    assert first["messages"][2:] == [
        ("user", "does the refund path have the same ordering bug?"),
        ("assistant", "Yes: `refund()` subtracts the gift card first too, in cart/refund.py."),
    ]
    assert second["messages"] == [
        ("user", "把折扣码的校验移到 checkout 之前"),
        ("assistant", "好的：`validate_code()` 现在在 `checkout()` 开头调用。"),
        ("user", "split the pricing rules into their own module"),
    ]  # the reply's last line is still being written
    text = repr(got)
    for gone in ("NOISE", "/add", "/run", "Tokens:", "Applied edit", "Aider v0"):
        assert gone not in text


def test_a_second_sync_writes_nothing_and_a_finished_line_is_read_alone() -> None:
    shop = _lay_out(Path.home())
    sync_now(["aider"])
    before = index_state()
    again = sync_now(["aider"])
    assert (again.files_read, again.sessions_touched) == (0, 0) and index_state() == before
    with shop.open("ab") as fh:
        fh.write(b"ed.\n")
    grown = sync_now(["aider"])
    assert (grown.files_read, grown.sessions_touched) == (1, 1)
    last = max(stored("aider").values(), key=lambda s: s["started"])
    assert last["messages"][-1][1].endswith("checkout.py and refund.py. Half-writed.")


def _mirrors(db: Path) -> list[tuple[str, list[tuple[str, str]]]]:
    """Each session's messages, keyed by its header's offset (the folder digest in the id
    differs between the two copies)."""
    with open_reader(db) as store:
        rows = store.conn.execute("SELECT id, session_id FROM sessions ORDER BY session_id")
        return [
            (
                sid.rsplit("-", 1)[1],
                [(m.role, m.text) for m in load_mirror(store.conn, rowid).messages],
            )
            for rowid, sid in rows.fetchall()
        ]


def test_read_as_it_grows_it_mirrors_one_read(tmp_path: Path) -> None:
    """Line by line and mid-line, as a live run is read: a block still being written is
    rewritten in place, never duplicated."""
    adapter = ADAPTERS["aider"]
    data = FIXTURE.read_bytes() + b"ed.\n"
    whole, grown = tmp_path / "whole" / HISTORY, tmp_path / "grown" / HISTORY
    whole.parent.mkdir()
    grown.parent.mkdir()
    whole.write_bytes(data)
    with open_writer(tmp_path / "whole.db") as store:
        ingest_path(store, adapter, whole, "box")
    ends = [i + 1 for i, b in enumerate(data) if b == 0x0A]
    points = sorted({*ends, *(e - 3 for e in ends[::3] if e > 3), len(data)})
    with open_writer(tmp_path / "grown.db") as store:
        written = 0
        for point in points:
            with grown.open("ab") as fh:
                fh.write(data[written:point])
            written = point
            ingest_path(store, adapter, grown, "box")
    assert _mirrors(tmp_path / "grown.db") == _mirrors(tmp_path / "whole.db")
    assert len(_mirrors(tmp_path / "whole.db")) == 2


def test_found_three_levels_down_but_not_in_hidden_or_dependency_folders(
    tmp_path: Path,
) -> None:
    adapter = ADAPTERS["aider"]
    for rel in ("a", "a/b/c", "a/b/c/d", ".hidden/x", "a/node_modules/y"):
        (tmp_path / rel).mkdir(parents=True, exist_ok=True)
        (tmp_path / rel / HISTORY).write_text("# aider chat started at 2026-01-01 00:00:00\n")
    found = [p.parent.relative_to(tmp_path).as_posix() for p in adapter.discover(tmp_path)]
    assert found == ["a", "a/b/c"]
    assert adapter_for(tmp_path / "a" / HISTORY) is adapter
    assert not adapter.owns(tmp_path / "a" / "notes.md")


@pytest.mark.parametrize(
    ("prompt", "kept"),
    [
        ("#### /ask why is it slow?", "why is it slow?"),
        ("#### /code add a cache", "add a cache"),
        ("#### /add src/a.py", None),
        ("#### /copy-context explain this", None),
        ("#### /ask", None),
    ],
)
def test_only_commands_that_ask_the_model_are_prompts(
    prompt: str, kept: str | None, tmp_path: Path
) -> None:
    path = tmp_path / HISTORY
    data = f"# aider chat started at 2026-01-01 00:00:00\n\n{prompt}  \n".encode()
    parsed = ADAPTERS["aider"].parse(path, data, 0, {})
    said = [m.text for part in parsed.parts for m in part.messages]
    assert said == ([kept] if kept else [])
