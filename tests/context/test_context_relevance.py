"""Context that helps or stays silent (issue 22): nothing for a prompt with nothing to look
up, only excerpts that cover the prompt, the decision itself, and never MEMORY.md's
template."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from clihelp import call, run

SESSIONS = {
    "kafka": [
        ("user", "should the payments consumer retry kafka writes, and how often?"),
        (
            "assistant",
            "Decision: the payments consumer writes through an outbox table and retries "
            "with exponential backoff, capped at six attempts.",
        ),
    ],
    "decide-1": [
        ("user", "help me decide on a name for the settings page"),
        ("assistant", "call it Preferences, people look for that word"),
    ],
    "decide-2": [
        ("user", "we should decide the colour of the header"),
        ("assistant", "dark blue, it matches the logo"),
    ],
    "tests": [
        ("user", "run the tests please"),
        ("assistant", "all 214 tests pass; the suite takes 41 seconds"),
    ],
}


@pytest.fixture
def history(recall_home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    rows = [
        {"session": sid, "role": role, "text": text, "agent": "claude", "project": "/p"}
        for sid, turns in SESSIONS.items()
        for role, text in turns
    ]
    src = tmp_path / "h.jsonl"
    src.write_text("".join(json.dumps(r) + "\n" for r in rows))
    assert call(capsys, "ingest", "--format", "jsonl", str(src))[0] == 0
    (recall_home / "MEMORY.md").write_text("# Memory\n\n- The payments team prefers Kafka.\n")
    return recall_home


def _prompt(prompt: str, event: str = "prompt-submit") -> str:
    payload = json.dumps({"cwd": "/p", "prompt": prompt, "session_id": "now"}).encode()
    done = run("context", "--event", event, "--format", "text", stdin=payload)
    assert done.returncode == 0 and done.stderr == b""
    return done.stdout.decode()


@pytest.mark.parametrize(
    "prompt", ["ok run the tests", "yes", "continue", "thanks", "looks good, go ahead"]
)
def test_a_prompt_with_nothing_to_look_up_injects_nothing(history: Path, prompt: str) -> None:
    """Before, "ok run the tests" injected five snippets, and MEMORY.md rode along."""
    assert _prompt(prompt) == ""


def test_a_prompt_the_history_cannot_answer_injects_nothing(history: Path) -> None:
    assert _prompt("why does React useEffect fire twice on mount in development?") == ""


def test_only_excerpts_that_cover_the_prompt_and_the_decision_itself(history: Path) -> None:
    """Before, "what did we decide about retries" injected matches on "decide"; the
    excerpt is the question with its answer, so the decision itself is there."""
    out = _prompt("what did we decide about retries for kafka writes?")
    assert "[session kafka #" in out
    assert "outbox table" in out and "six attempts" in out  # the reply, not only the ask
    assert "decide-1" not in out and "decide-2" not in out and "[session tests" not in out
    assert "From MEMORY.md:" in out  # beside an answer, the user's notes come too


def test_memory_md_template_is_never_sent(history: Path) -> None:
    (history / "MEMORY.md").write_text(
        "# Memory\n\n## Preferences\n\n- \n- <add your preferences here>\n\n"
        "## Decisions\n\n_Add decisions here_\n\n## Projects\n\n(none yet)\n"
    )
    out = _prompt("", event="session-start")
    assert "MEMORY.md" not in out and "Preferences" not in out
    (history / "MEMORY.md").write_text(
        "# Memory\n\n## Preferences\n\n- dark theme\n- <add more here>\n\n## Projects\n\nTODO\n"
    )
    out = _prompt("", event="session-start")
    assert "From MEMORY.md:\n# Memory\n\n## Preferences\n\n- dark theme" in out
    assert "<add more here>" not in out and "Projects" not in out and "TODO" not in out


def test_lookup_words_leave_out_talk_to_the_agent() -> None:
    from recall.context.relevance import lookup_words

    assert lookup_words("ok run the tests") == []
    assert lookup_words("what did we decide about retries?") == ["retries"]
    assert lookup_words("Why is the Kafka consumer lagging, 2 or 3 times?") == [
        "kafka",
        "consumer",
        "lagging",
    ]
