"""Session titles: the user's, the agent's, a summary of the session's leaf, the first prompt.

A Claude `summary` line titles the session holding its leaf message, whichever
file, order, sync or hook brings either in (tests/fixtures/titles/README.md
lists the cases and the titles expected).
"""

from __future__ import annotations

import json
import random
import shutil
import sqlite3
from pathlib import Path

import pytest

from clihelp import call, run
from recall import config
from secretcorpus import db_bytes, write_config

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "titles"
A = "11111111-aaaa-4000-8000-000000000001"
B = "22222222-bbbb-4000-8000-000000000002"
SUMMARY_FILE = "33333333-cccc-4000-8000-000000000003"
SAME_FILE = "44444444-dddd-4000-8000-000000000004"
RENAMED = "55555555-eeee-4000-8000-000000000005"
AI_TITLED = "66666666-ffff-4000-8000-000000000006"
MARKDOWN = "77777777-0000-4000-8000-000000000007"
OTHER = "00000000-9999-4000-8000-000000000009"
A_SUMMARY = "Speed up the checkout page with an orders index"

EXPECTED = {
    A: A_SUMMARY,
    B: "Now add a loading spinner to the cart",
    SAME_FILE: "Rename the billing module to payments",
    RENAMED: "my ci work",
    AI_TITLED: "Dark mode toggle",
    MARKDOWN: "Bug report raise ValueError('boom') Why does this fail in prod? it works locally",
    OTHER: "write the release notes",
}


@pytest.fixture(autouse=True)
def _fresh_config() -> None:
    config._load.cache_clear()


@pytest.fixture
def projects(tmp_path: Path) -> Path:
    """The fixtures where Claude Code keeps them, under the test's HOME."""
    root = tmp_path / "user-home" / ".claude" / "projects"
    shutil.copytree(FIXTURES, root, ignore=shutil.ignore_patterns("*.md"))
    return root


def files(projects: Path) -> list[Path]:
    return sorted(projects.rglob("*.jsonl"))


def ingest(capsys: pytest.CaptureFixture[str], *paths: Path, force: bool = False) -> None:
    for path in paths:
        argv = ["ingest", "--agent", "claude", *(["--force"] if force else []), str(path)]
        code, _, err = call(capsys, *argv)
        assert code == 0, err


def titles(home: Path) -> dict[str, str | None]:
    with sqlite3.connect(f"file:{home / 'recall.db'}?mode=ro", uri=True) as db:
        return dict(db.execute("SELECT session_id, title FROM sessions"))


def hook(session: str, transcript: Path) -> None:
    """What Claude Code's Stop hook runs: `recall ingest --event agent-stop`, a process."""
    payload = {"session_id": session, "transcript_path": str(transcript), "hook_event_name": "Stop"}
    proc = run("ingest", "--event", "agent-stop", stdin=json.dumps(payload).encode())
    assert proc.returncode == 0 and proc.stdout == b"", proc.stderr


def path_of(projects: Path, session: str) -> Path:
    return next(p for p in files(projects) if p.stem == session)


@pytest.mark.parametrize("order", ["sorted", "reversed", "shuffle-1", "shuffle-2", "shuffle-3"])
def test_titles_follow_the_precedence_whatever_order_files_arrive_in(
    order: str, projects: Path, recall_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    paths = files(projects)
    if order == "reversed":
        paths.reverse()
    elif order.startswith("shuffle"):
        random.Random(order).shuffle(paths)
    ingest(capsys, *paths)
    assert titles(recall_home) == EXPECTED


def test_sync_and_sync_force_give_the_same_titles(
    projects: Path, recall_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert call(capsys, "sync", "--no-embed")[0] == 0
    assert titles(recall_home) == EXPECTED
    assert call(capsys, "sync", "--no-embed", "--force")[0] == 0
    assert titles(recall_home) == EXPECTED
    shown = json.loads(call(capsys, "show", A[:8], "--json")[1])
    assert shown["title"] == A_SUMMARY


def test_a_summary_read_in_an_earlier_sync_titles_the_leaf_when_it_arrives(
    projects: Path, recall_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    leaf_file = path_of(projects, A)
    held = leaf_file.read_bytes()
    leaf_file.unlink()
    assert call(capsys, "sync", "--no-embed")[0] == 0
    assert A not in titles(recall_home)
    assert titles(recall_home)[B] == EXPECTED[B]  # a summary never titles its own file
    leaf_file.write_bytes(held)
    assert call(capsys, "sync", "--no-embed")[0] == 0
    assert titles(recall_home) == EXPECTED


def test_a_summary_arriving_through_a_hook_titles_an_indexed_session(
    projects: Path, recall_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ingest(capsys, *files(projects))
    target = path_of(projects, MARKDOWN)
    line = {"type": "summary", "summary": "Debug the prod ValueError", "leafUuid": "e-2"}
    with target.open("a") as fh:
        fh.write(json.dumps(line) + "\n")
    hook(MARKDOWN, target)
    assert titles(recall_home) == {**EXPECTED, MARKDOWN: "Debug the prod ValueError"}


def test_a_resumed_file_hooked_before_its_leafs_file_is_synced(
    projects: Path, recall_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    hook(B, path_of(projects, B))
    assert titles(recall_home) == {B: EXPECTED[B]}
    assert call(capsys, "sync", "--no-embed")[0] == 0
    assert titles(recall_home) == EXPECTED


def test_a_summary_whose_leaf_is_never_seen_titles_nothing(
    projects: Path, recall_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ingest(capsys, *files(projects))
    assert "Ghost conversation nobody kept" not in titles(recall_home).values()
    code, out, _ = call(capsys, "search", "Ghost conversation", "--json")
    assert code == 1 or json.loads(out)["found"] == 0


def test_the_same_leaf_in_two_sessions_of_one_folder_goes_to_the_smaller_id(
    tmp_path: Path, recall_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "user-home" / ".claude" / "projects" / "-work-twin"
    folder.mkdir(parents=True)

    def session(sid: str, text: str) -> Path:
        line = {"type": "user", "sessionId": sid, "uuid": "shared", "cwd": "/work/twin",
                "message": {"role": "user", "content": text}}  # fmt: skip
        path = folder / f"{sid}.jsonl"
        path.write_text(json.dumps(line) + "\n")
        return path

    summary = folder / "summary.jsonl"
    summary.write_text(
        json.dumps({"type": "summary", "summary": "Twin", "leafUuid": "shared"}) + "\n"
    )
    later, earlier = session("b-later", "second text"), session("a-earlier", "first text")
    ingest(capsys, summary, later)
    assert titles(recall_home) == {"b-later": "Twin"}
    ingest(capsys, earlier)  # the smaller id takes the summary; the other falls back
    assert titles(recall_home) == {"a-earlier": "Twin", "b-later": "second text"}


def test_forget_leaves_no_summary_title_behind(
    projects: Path, recall_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ingest(capsys, *files(projects))
    code, _, err = call(capsys, "forget", A[:8])
    assert code == 0, err
    assert A not in titles(recall_home)
    assert b"speed up the checkout" not in db_bytes(recall_home)
    assert b"profile the checkout queries" not in db_bytes(recall_home)
    # Read again, the summaries naming its messages still title nothing, not even
    # the other project's session that shares a line uuid with it.
    ingest(capsys, *files(projects), force=True)
    assert titles(recall_home) == {k: v for k, v in EXPECTED.items() if k != A}
    assert b"speed up the checkout" not in db_bytes(recall_home)
    # Nor is a summary the agent appends to the forgotten session's file later stored.
    line = {"type": "summary", "summary": "Checkout latency postmortem", "leafUuid": "b-2"}
    with path_of(projects, A).open("a") as fh:
        fh.write(json.dumps(line) + "\n")
    hook(A, path_of(projects, A))
    assert titles(recall_home)[B] == EXPECTED[B]
    assert b"postmortem" not in db_bytes(recall_home)


def test_forgetting_the_file_that_holds_a_summary_forgets_the_summary(
    projects: Path, recall_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ingest(capsys, *files(projects))
    assert call(capsys, "forget", B[:8])[0] == 0
    assert titles(recall_home)[A] == "Profile the checkout queries"  # the other summary
    assert b"ghost conversation" not in db_bytes(recall_home)


def test_rescan_redacts_summaries_titles_and_pending_ones(
    projects: Path, recall_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ingest(capsys, *files(projects))
    write_config(recall_home, '[[redact.extra]]\nname = "ghost"\npattern = "Ghost|checkout"\n')
    code, _, err = call(capsys, "redact", "--rescan")
    assert code == 0, err
    assert titles(recall_home)[A] == "Speed up the [REDACTED:ghost] page with an orders index"
    data = db_bytes(recall_home)
    assert b"ghost conversation" not in data and b"checkout" not in data
    # a later read of the same files stores them redacted, and titles stay put
    ingest(capsys, *files(projects), force=True)
    assert titles(recall_home)[A] == "Speed up the [REDACTED:ghost] page with an orders index"


def test_an_excluded_projects_summaries_are_not_stored(
    projects: Path, recall_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write_config(recall_home, '[privacy]\nexclude_projects = ["/work/shop"]\n')
    ingest(capsys, *files(projects))
    assert titles(recall_home) == {OTHER: EXPECTED[OTHER]}
    assert b"ghost conversation" not in db_bytes(recall_home)


def test_an_index_titled_by_the_old_rules_is_mended_on_upgrade(
    projects: Path, recall_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from recall.ingest import resolve
    from recall.store import migrations, open_writer
    from recall.vetting import stored_path

    # An index made before m006, as the old rules left it: the resumed file's
    # session wears its summary (of another session), every file is read to the end.
    before = migrations.MIGRATIONS[: migrations.MIGRATIONS.index(migrations.m006_summaries)]
    old = {  # session id -> (agent, title, rank under the old ranks, first prompt)
        B: ("claude", A_SUMMARY, 2, EXPECTED[B]),
        RENAMED: ("claude", "my ci work", 3, "set up the CI pipeline"),
        "codex-thread": ("codex", "Thread name", 3, "hello"),
        "gemini-chat": ("gemini", "Gemini summary", 2, "hello"),
        MARKDOWN: ("claude", "## Bug report ```python", 1, "## Bug report\n```python\nx = 1"),
    }
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(migrations, "MIGRATIONS", before)
        with open_writer(recall_home / "recall.db") as store, store.transaction() as db:
            for sid, (agent, title, rank, prompt) in old.items():
                rowid = db.execute(
                    "INSERT INTO sessions(session_id, agent, computer, title, title_rank,"
                    " updated_at) VALUES (?, ?, 'box', ?, ?, 0)",
                    (sid, agent, title, rank),
                ).lastrowid
                db.execute(
                    "INSERT INTO messages(session, position, key, role, text)"
                    " VALUES (?, 0, ?, 'user', ?)",
                    (rowid, f"{sid}-0", prompt),
                )
            for path in files(projects):
                st = path.stat()
                db.execute(
                    "INSERT INTO transcripts(path, agent, size, mtime_ns, head, offset)"
                    " VALUES (?, 'claude', ?, ?, 'x', ?)",
                    (stored_path(resolve(path)), st.st_size, st.st_mtime_ns, st.st_size),
                )

    assert call(capsys, "sync", "--no-embed")[0] == 0  # migrates, then re-reads Claude's files
    with sqlite3.connect(f"file:{recall_home / 'recall.db'}?mode=ro", uri=True) as db:
        ranks = dict(
            (sid, (title, rank))
            for sid, title, rank in db.execute("SELECT session_id, title, title_rank FROM sessions")
        )
    assert ranks["codex-thread"] == ("Thread name", 3) and ranks[RENAMED] == ("my ci work", 4)
    assert ranks["gemini-chat"] == ("Gemini summary", 3)
    assert ranks[B] == (EXPECTED[B], 1) and ranks[A] == (A_SUMMARY, 2)
    assert ranks[MARKDOWN] == ("Bug report x = 1", 1)  # cleaned again
    assert titles(recall_home) == {
        **EXPECTED,
        MARKDOWN: "Bug report x = 1",
        "codex-thread": "Thread name",
        "gemini-chat": "Gemini summary",
    }
