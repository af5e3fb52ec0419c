"""Issue 27's first "done when": two people's computers push to one real Postgres; each
finds the other's shared sessions and never the unshared ones (row-level security, checked
by connecting as each role); `forget` removes the rows, and they stay gone."""

from __future__ import annotations

import json
from pathlib import Path

import psycopg
import pytest

from clihelp import call
from recall.config import forget_loaded
from teamhelp import Team, write_import

pytestmark = pytest.mark.team

ALICE = {
    "a-shared": (
        "/work/app",
        [("user", "the invoice renderer drops kerning"), ("assistant", "use harfbuzz shaping")],
    ),
    "a-private": (
        "/work/alice-lab",
        [("user", "invoice experiment with my salary numbers"), ("assistant", "noted")],
    ),
    "a-home": (
        "/home/alice/diary",
        [("user", "invoice from the dentist"), ("assistant", "pay it")],
    ),
}
BOB = {
    "b-shared": (
        "/src/app",
        [("user", "invoice totals round wrongly"), ("assistant", "use decimal not float")],
    ),
    "b-private": (
        "/src/bob-side",
        [("user", "invoice for my side business"), ("assistant", "keep it apart")],
    ),
}


def _index(capsys: pytest.CaptureFixture[str], home: Path, sessions: dict) -> None:  # type: ignore[type-arg]
    path = write_import(home / "import.jsonl", sessions)
    code, _, err = call(capsys, "ingest", "--format", "jsonl", str(path))
    assert code == 0, err


def _push(capsys: pytest.CaptureFixture[str]) -> dict:  # type: ignore[type-arg]
    code, out, err = call(capsys, "team", "push", "--json")
    assert code == 0, err
    return json.loads(out)  # type: ignore[no-any-return]


def _team_ids(capsys: pytest.CaptureFixture[str], *extra: str) -> set[str]:
    code, out, err = call(capsys, "search", "invoice", "--computer", "team", "--json", *extra)
    assert code in (0, 1), err
    return {r["session_id"] for r in json.loads(out)["results"]} if code == 0 else set()


def _rows(team: Team, user: str) -> set[str]:
    with team.connect(user) as conn:
        return {r[0] for r in conn.execute("SELECT session_id FROM recall.sessions")}


@pytest.fixture
def pushed(team: Team, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> Team:
    monkeypatch.setenv("RECALL_EMBEDDING", "none")
    _index(capsys, team.home("alice", "laptop", projects=["/work/*"], share=["/work/app"]), ALICE)
    assert _push(capsys)["sessions"] == 2
    _index(capsys, team.home("bob", "desk", projects=["/src/*"], share=["/src/app"]), BOB)
    assert _push(capsys)["sessions"] == 2
    return team


def test_each_finds_the_others_shared_sessions_and_never_the_unshared(
    pushed: Team, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _team_ids(capsys) == {"b-shared", "b-private", "a-shared"}  # bob, last homed
    pushed.home("alice", "laptop", projects=["/work/*"], share=["/work/app"])
    assert _team_ids(capsys) == {"a-shared", "a-private", "b-shared"}
    assert _team_ids(capsys, "--person", "bob") == {"b-shared"}
    # merged with this computer's own results, its own rows in the team not repeated
    code, out, _ = call(capsys, "search", "invoice", "--team", "--json")
    found = [(r["session_id"], r["computer"]) for r in json.loads(out)["results"]]
    assert sorted(found) == [
        ("a-home", "laptop"),
        ("a-private", "laptop"),
        ("a-shared", "laptop"),
        ("b-shared", "team:bob@desk"),
    ]
    code, out, _ = call(capsys, "show", "b-sh", "--team")
    assert code == 0 and "decimal not float" in out and "team:bob@desk" in out
    code, _, err = call(capsys, "show", "b-private", "--team")
    assert code == 1 and "no session of the team's matches" in err


def test_the_agents_tools_include_the_team_when_asked(pushed: Team) -> None:
    from recall.mcp.history import search_history
    from recall.mcp.show import show_session

    pushed.home("alice", "laptop", projects=["/work/*"], share=["/work/app"])
    found = search_history({"query": "invoice", "team": True})
    where = {(r["session_id"], r["computer"]) for r in found["results"]}
    assert ("b-shared", "team:bob@desk") in where and ("a-shared", "laptop") in where
    assert not any(sid == "b-private" for sid, _ in where) and "note" not in found
    alone = search_history({"query": "invoice"})
    assert {r["computer"] for r in alone["results"]} == {"laptop"}
    page = show_session({"session_id": "b-shared", "start": 0, "computer": "team:bob@desk"})
    assert page["computer"] == "team:bob@desk"
    assert [m["text"] for m in page["messages"]][1] == "use decimal not float"


def test_row_level_security_as_each_role(pushed: Team) -> None:
    with pushed.connect() as admin:  # the owner sees what left each computer: nothing more
        everything = {r[0] for r in admin.execute("SELECT session_id FROM recall.sessions")}
    assert everything == {"a-shared", "a-private", "b-shared", "b-private"}  # never a-home
    assert _rows(pushed, "alice") == {"a-shared", "a-private", "b-shared"}
    assert _rows(pushed, "bob") == {"b-shared", "b-private", "a-shared"}
    with pushed.connect("alice") as alice:
        (texts,) = alice.execute(
            "SELECT array_agg(text) FROM recall.messages WHERE session_id LIKE 'b-%'"
        ).fetchone()
        assert not any("side business" in t for t in texts)
        assert alice.execute("DELETE FROM recall.sessions WHERE person = 'bob'").rowcount == 0
        assert (
            alice.execute("UPDATE recall.messages SET text = 'x' WHERE person = 'bob'").rowcount
            == 0
        )
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            alice.execute(
                "INSERT INTO recall.sessions (person, computer, agent, session_id,"
                " message_count, digest) VALUES ('bob', 'desk', 'import', 'fake', 0, '')"
            )
    assert _rows(pushed, "bob") >= {"b-shared", "b-private"}


def test_forget_removes_the_rows_and_they_stay_gone(
    pushed: Team, capsys: pytest.CaptureFixture[str]
) -> None:
    home = pushed.home("alice", "laptop", projects=["/work/*"], share=["/work/app"])
    assert _push(capsys)["sessions"] == 0  # an unchanged index sends nothing
    code, out, err = call(capsys, "forget", "a-shared")
    assert code == 0, err
    assert "deleted 1 of them from the team's index" in out
    assert "a-shared" not in _rows(pushed, "bob")
    _index(capsys, home, ALICE)  # the transcript read again: the tombstone keeps it out
    code, _, _ = call(capsys, "ingest", "--format", "jsonl", "--force", str(home / "import.jsonl"))
    report = _push(capsys)
    assert report["sessions"] == 0 and "a-shared" not in _rows(pushed, "recall_admin")
    # an exclusion rule added later takes the pushed project's rows away at the next push
    config = home / "config.toml"
    config.write_text(config.read_text() + '[privacy]\nexclude_projects = ["/work/alice-lab"]\n')
    forget_loaded()  # as a new process would read it
    assert _push(capsys)["deleted"] == 1
    assert _rows(pushed, "recall_admin") == {"b-shared", "b-private"}


def test_the_teams_results_are_judged_by_the_bar_like_this_computers(
    pushed: Team, capsys: pytest.CaptureFixture[str]
) -> None:
    """Merged with local results, a team result says how it matched and whether it clears the
    relevance bar on the same scale: bob's session holds only the common word of the two."""
    pushed.home("alice", "laptop", projects=["/work/*"], share=["/work/app"])
    code, out, err = call(capsys, "search", "invoice", "kerning", "--team", "--json")
    assert code == 0, err
    found = {r["session_id"]: r for r in json.loads(out)["results"]}
    mine, theirs = found["a-shared"], found["b-shared"]
    assert mine["computer"] == "laptop" and theirs["computer"] == "team:bob@desk"
    assert (mine["matched"], mine["weak"]) == ("every word", False)
    assert (theirs["matched"], theirs["weak"]) == ("some words", True)
    assert 0 <= theirs["relevance"] < 1 <= mine["relevance"]
    code, _, err = call(capsys, "search", "harfbuzz", "--computer", "bob", "team", "--json")
    assert code == 2 and "no peer named 'bob'" in err  # the team is no peer


def test_the_prompt_hook_asks_the_team_when_configured(pushed: Team) -> None:
    """`[team] context = true`: a prompt's excerpts come from the team's index too, each
    saying where to read it; without it the hook stays on this computer. (In-process: the
    hook's own half-second deadline is `recall context`'s, tested in tests/context.)"""
    from recall.context.gather import matching

    prompt = "why do the invoice totals round wrongly?"
    pushed.home("alice", "laptop", projects=["/work/*"], share=["/work/app"])
    forget_loaded()
    assert not any("team:" in line for line in matching(prompt, 5, None).excerpts)
    pushed.home("alice", "laptop", projects=["/work/*"], share=["/work/app"], context=True)
    forget_loaded()
    lines = matching(prompt, 5, None).excerpts
    assert any("[session b-shared #0 on team:bob@desk]" in line for line in lines), lines
    assert not any("b-private" in line for line in lines)
