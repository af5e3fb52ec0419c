"""Sessions whose first prompts share a template are titled by the part that differs,
whether they arrive by sync, one by one through hooks, or were indexed before m009."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from clihelp import call
from recall import config

TEMPLATE = (
    "Fix this bug to solve the issue based on manual.yaml, reading the repository first"
    " and keeping the change small:\ninstance_id: {iid}\n\nThe failing test is {test}."
)
IDS = ["django__django-11099", "django__django-11133", "sympy__sympy-20590"]


@pytest.fixture(autouse=True)
def _fresh_config() -> None:
    config._load.cache_clear()


def write_session(root: Path, n: int, prompt: str) -> Path:
    sid = f"{n:08d}-aaaa-4000-8000-{n:012d}"
    path = root / "-work-bench" / f"{sid}.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    base = {"cwd": "/work/bench", "sessionId": sid, "version": "1.0.30", "isSidechain": False}
    lines = [
        {
            **base,
            "type": "user",
            "uuid": f"u{n}",
            "timestamp": "2025-06-03T10:00:00.000Z",
            "message": {"role": "user", "content": prompt},
        },
        {
            **base,
            "type": "assistant",
            "uuid": f"a{n}",
            "timestamp": "2025-06-03T10:01:00.000Z",
            "message": {"role": "assistant", "content": [{"type": "text", "text": "Done."}]},
        },
    ]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path


def titles(home: Path) -> list[str]:
    with sqlite3.connect(f"file:{home / 'recall.db'}?mode=ro", uri=True) as db:
        return [r[0] for r in db.execute("SELECT title FROM sessions ORDER BY session_id")]


def prompts() -> list[str]:
    return [TEMPLATE.format(iid=iid, test=f"test_{i}") for i, iid in enumerate(IDS)]


def test_a_lone_template_prompt_keeps_its_plain_title_and_a_second_one_tells_both_apart(
    recall_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = recall_home.parent / "user-home" / ".claude" / "projects"
    first = write_session(root, 1, prompts()[0])
    assert call(capsys, "ingest", "--agent", "claude", str(first))[0] == 0
    assert titles(recall_home)[0].startswith("Fix this bug to solve the issue")
    for n, prompt in enumerate(prompts()[1:], 2):
        path = write_session(root, n, prompt)
        assert call(capsys, "ingest", "--agent", "claude", str(path))[0] == 0
    assert titles(recall_home) == [
        "…instance_id: django__django-11099 The failing test is test_0.",
        "…instance_id: django__django-11133 The failing test is test_1.",
        "…instance_id: sympy__sympy-20590 The failing test is test_2.",
    ]
    out = call(capsys, "search", "failing", "test")[1]
    assert "…instance_id: sympy__sympy-20590" in out
    shown = call(capsys, "show", "00000003")[1]
    assert shown.splitlines()[0] == "…instance_id: sympy__sympy-20590 The failing test is test_2."


def test_prompts_that_are_the_template_alone_keep_the_shared_title(
    recall_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = recall_home.parent / "user-home" / ".claude" / "projects"
    for n in (1, 2):
        write_session(root, n, "continue")
    assert call(capsys, "sync", "--no-embed")[0] == 0
    assert titles(recall_home) == ["continue", "continue"]


def test_past_a_sample_of_fifty_each_newcomer_is_cut_where_it_departs(
    recall_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = recall_home.parent / "user-home" / ".claude" / "projects"
    for n in range(1, 53):
        write_session(root, n, TEMPLATE.format(iid=f"proj-{n}", test="t"))
    assert call(capsys, "sync", "--no-embed")[0] == 0
    shown = titles(recall_home)
    assert shown[0] == "…instance_id: proj-1 The failing test is t."
    assert shown[51] == "…instance_id: proj-52 The failing test is t."
    assert len(set(shown)) == 52


def test_the_migration_retitles_template_groups_indexed_before_it(
    recall_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = recall_home.parent / "user-home" / ".claude" / "projects"
    for n, prompt in enumerate(prompts(), 1):
        write_session(root, n, prompt)
    assert call(capsys, "sync", "--no-embed")[0] == 0
    live = titles(recall_home)
    db = sqlite3.connect(recall_home / "recall.db")
    with db:  # as m008 left them: plain first-prompt titles, no groups
        for (rowid,) in db.execute("SELECT id FROM sessions").fetchall():
            db.execute(
                "UPDATE sessions SET title = ?, title_group = NULL WHERE id = ?",
                (
                    "Fix this bug to solve the issue based on manual.yaml, reading the repository…",
                    rowid,
                ),
            )
        # and as no later migration left them either
        db.execute("DELETE FROM schema_migrations WHERE name >= 'm009_title_groups'")
        db.execute("DROP INDEX chunks_openings")
        db.execute("DROP INDEX sessions_title_group")
        db.execute("ALTER TABLE sessions DROP COLUMN title_group")
    db.close()
    assert call(capsys, "status")[0] == 0  # opening the store migrates it
    assert titles(recall_home) == live
