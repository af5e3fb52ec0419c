"""`recall context`: the hook block, its shapes, its budgets and caps, and its silence."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from clihelp import call, run
from recall.context.shape import tokens

PROMPT = "what did we decide about retries in the payments service?"


@pytest.fixture
def history(recall_home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    """Sessions in /path/to/Demo (the fixtures' cwd) about retries, and one elsewhere."""
    lines = []
    for n in range(30):
        for role, text in (
            ("user", f"payments retry policy question {n}: should we retry kafka writes?"),
            ("assistant", f"decision {n}: retries back off exponentially, budget of {n} tries"),
        ):
            lines.append(
                {
                    "session": f"demo-{n}",
                    "role": role,
                    "text": text,
                    "agent": "claude",
                    "project": "/path/to/Demo",
                    "timestamp": f"2026-03-{1 + n % 28:02d}T10:00:00Z",
                }
            )
    lines.append(
        {
            "session": "other",
            "role": "user",
            "text": "unrelated css work",
            "agent": "codex",
            "project": "/elsewhere",
        }
    )
    src = tmp_path / "h.jsonl"
    src.write_text("".join(json.dumps(x) + "\n" for x in lines))
    assert call(capsys, "ingest", "--format", "jsonl", str(src))[0] == 0
    return recall_home


def _context(payload: dict[str, object] | bytes, *args: str) -> tuple[int, str]:
    raw = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
    done = run("context", *args, stdin=raw)
    assert done.stderr == b""
    return done.returncode, done.stdout.decode()


def _fixture(hook_payloads: Path, name: str) -> dict[str, object]:
    return json.loads((hook_payloads / name).read_text())


@pytest.mark.parametrize(
    ("fmt", "event", "hook_event"),
    [
        ("claude", "session-start", "SessionStart"),
        ("claude", "prompt-submit", "UserPromptSubmit"),
        ("codex", "prompt-submit", "UserPromptSubmit"),
        ("gemini", "prompt-submit", "BeforeAgent"),
        ("gemini", "session-start", "SessionStart"),
    ],
)
def test_each_agent_gets_its_hook_shape(
    history: Path, hook_payloads: Path, fmt: str, event: str, hook_event: str
) -> None:
    name = (
        "claude-session-start.json"
        if event == "session-start"
        else "claude-user-prompt-submit.json"
    )
    code, out = _context(_fixture(hook_payloads, name), "--event", event, "--format", fmt)
    assert code == 0
    doc = json.loads(out)  # JSON and nothing else (Gemini insists)
    assert list(doc) == ["hookSpecificOutput"]
    assert doc["hookSpecificOutput"]["hookEventName"] == hook_event
    text = doc["hookSpecificOutput"]["additionalContext"]
    assert "earlier agent sessions" in text and "[session demo-" in text
    assert "other" not in text.split("[session ")[-1]  # the unrelated project stays out


def test_prompt_submit_finds_matching_messages_and_skips_this_session(
    history: Path, hook_payloads: Path
) -> None:
    payload = {**_fixture(hook_payloads, "claude-user-prompt-submit.json"), "session_id": "demo-3"}
    code, out = _context(payload, "--event", "prompt-submit", "--format", "text")
    assert code == 0 and "Past messages and notes that match this prompt:" in out
    assert "retr" in out and "[session demo-" in out
    assert "[session demo-3 " not in out and "[session demo-3]" not in out


def test_memory_md_comes_first(history: Path, hook_payloads: Path) -> None:
    (history / "MEMORY.md").write_text("# Memory\n\n- The payments team prefers Kafka.\n")
    code, out = _context(
        _fixture(hook_payloads, "claude-session-start.json"), "--event", "session-start"
    )
    assert code == 0
    lines = out.splitlines()
    assert lines[1:4] == ["From MEMORY.md:", "# Memory", ""]
    assert lines.index("- The payments team prefers Kafka.") < lines.index(
        "Recent sessions in /path/to/Demo:"
    )


@pytest.mark.parametrize("budget", [40, 120, 500, 2000, 20000])
@pytest.mark.parametrize("fmt", ["claude", "codex", "gemini", "text"])
def test_never_over_budget_nor_over_a_cap_with_huge_memories(
    history: Path, hook_payloads: Path, budget: int, fmt: str
) -> None:
    line = '- a long remembered fact with "quotes", tabs\tand ünïcödé 記憶 ' * 8
    (history / "MEMORY.md").write_text(
        "\n".join(line for _ in range(20_000))
    )  # ~10 MB: only its head is read
    started = time.monotonic()
    code, out = _context(
        _fixture(hook_payloads, "claude-user-prompt-submit.json"),
        "--event",
        "prompt-submit",
        "--format",
        fmt,
        "--budget",
        str(budget),
    )
    assert code == 0 and time.monotonic() - started < 30
    out = out.rstrip("\n")
    assert tokens(out) <= budget
    if fmt == "claude":
        assert len(out) <= 10_000
    if fmt == "codex":
        assert tokens(out) <= 2_500
    if out and fmt != "text":
        json.loads(out)
    if budget >= 500:
        assert "From MEMORY.md:" in out and "[session demo-" in out  # both get a share


def test_a_huge_prompt_is_searched_by_its_start(history: Path) -> None:
    # filler with nothing to look up: words the history never holds would weigh against
    # every excerpt (context.relevance), and this test is about the prompt's size
    prompt = "payments retry " + "ok, continue " * 250_000
    code, out = _context({"cwd": "/path/to/Demo", "prompt": prompt}, "--event", "prompt-submit")
    assert code == 0 and "[session demo-" in out


@pytest.mark.parametrize(
    "payload",
    [b"{not json", b"[1, 2]", b"\xff\xfe", b'{"prompt": ' + b'"x' * 3_000_000 + b'"}'],
)
def test_any_problem_prints_nothing_and_exits_0(history: Path, payload: bytes) -> None:
    assert _context(payload, "--event", "prompt-submit", "--format", "gemini") == (0, "")


def test_nothing_to_say_prints_nothing(recall_home: Path) -> None:
    assert _context({"cwd": "/nowhere", "prompt": "hello"}, "--event", "prompt-submit") == (0, "")
    assert not (recall_home / "recall.db").exists()  # a hook never creates the index


def test_the_deadline_wins(
    history: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from recall.cli import context

    def slow(*args: object) -> None:
        time.sleep(5)

    monkeypatch.setattr(context, "_context", slow)
    started = time.monotonic()
    assert context.run_context("prompt-submit", "claude", None, deadline=0.2) == 0
    assert time.monotonic() - started < 2
    assert capsys.readouterr().out == ""


def test_the_hook_command_needs_no_argparse(history: Path) -> None:
    from recall.cli.context import fast_args

    assert fast_args(
        ["context", "--event", "prompt-submit", "--format=codex", "--budget", "9"]
    ) == ("prompt-submit", "codex", 9)
    assert fast_args(["context", "--event", "nope"]) is None
    code, _, err = call_usage("context", "--event", "nope")
    assert code == 2 and "invalid choice" in err


def call_usage(*argv: str) -> tuple[int, str, str]:
    done = run(*argv)
    return done.returncode, done.stdout.decode(), done.stderr.decode()


def test_a_long_prompt_is_searched_by_its_longest_words() -> None:
    from recall.context.gather import prompt_query

    prompt = (
        "Hi, hope you are well! Could you remind me what we decided about the "
        "idempotency keys for the webhook retries in PAY-1234?"
    )
    assert prompt_query(prompt, 4) == "decided idempotency webhook retries"
    assert prompt_query(prompt, 4, longest=False) == "Hi hope well remind"
    assert prompt_query("the a of to") == ""
    assert prompt_query("支付服务的重试策略") == "支付服务的重试策略"
    assert prompt_query('say "quoted" -never prefix*') == "say quoted never prefix"  # no syntax


def test_prompt_submit_brings_remembered_facts_but_not_memory_md_twice(
    history: Path, hook_payloads: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from clihelp import call

    call(capsys, "remember", "payments retries are capped at six attempts", "-c", "fact", "-i", "8")
    (history / "MEMORY.md").write_text("# Memory\n\n## Payments\n\nretries go through the outbox\n")
    assert call(capsys, "sync", "-q", "--no-embed")[0] == 0
    payload = _fixture(hook_payloads, "claude-user-prompt-submit.json")
    code, out = _context(payload, "--event", "prompt-submit", "--format", "text")
    assert code == 0
    assert "remembered (fact, importance 8): payments retries are capped at six attempts" in out
    assert out.count("retries go through the outbox") == 1  # the MEMORY.md head, not again


@pytest.mark.parametrize("fmt", ["claude", "codex", "gemini", "text"])
@pytest.mark.parametrize("excerpts", [0, 40])
def test_a_bigger_budget_never_gives_less(fmt: str, excerpts: int) -> None:
    from recall.context.gather import Facts
    from recall.context.shape import CHAR_CAP, TOKEN_CAP, output

    memory = [f'- note {i}: the "retry" budget is {i} tries, see docs/x{i}.md' for i in range(2000)]
    lines = [
        f'[2026-03-0{i % 9 + 1}] "payments" retries: {"back off " * (i % 7)}'
        for i in range(excerpts)
    ]
    facts = Facts(memory=memory, excerpts=lines, heading="Earlier here:")
    sizes = []
    for budget in [*range(0, 600, 37), 3000, 5000, 8000, 20000, 100000]:
        out = output(facts, fmt, "session-start", budget)
        assert tokens(out) <= budget
        assert len(out) <= CHAR_CAP.get(fmt, len(out)) and tokens(out) <= TOKEN_CAP.get(fmt, budget)
        sizes.append(len(out))
    assert sizes == sorted(sizes) and sizes[-1] > 0
    if fmt == "claude":
        assert sizes[-1] > 9000  # a big budget fills the cap, not nothing


def test_a_fifo_at_memory_md_is_passed_over_and_the_rest_still_comes(
    history: Path, hook_payloads: Path
) -> None:
    """A named pipe nobody writes to would block an open() for ever: the hook would say
    nothing at all (its deadline) instead of the recent sessions it has."""
    import os

    os.mkfifo(history / "MEMORY.md")
    started = time.monotonic()
    code, out = _context(
        _fixture(hook_payloads, "claude-session-start.json"), "--event", "session-start"
    )
    assert code == 0
    assert time.monotonic() - started < 1.0
    assert "From MEMORY.md:" not in out
    assert "Recent sessions in /path/to/Demo:" in out
