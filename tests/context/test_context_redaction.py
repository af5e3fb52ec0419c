"""Issue 21 item 1: nothing `recall context` prints carries a secret.

MEMORY.md is read from disk at every hook, so it never went through the store's
redactor; and an index built while redaction was off (or before a rule the user
added) still holds raw text. The hook is the one surface that sends text to the
agent's model unasked, so it redacts everything it emits, whatever the index holds.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from clihelp import call, run
from secretcorpus import write_config

AWS = "AKIAQ7ZX3LBNW5RT2KJD"
GHP = "ghp_R8vK2mQ9xTfL4wZp7NcY3hBd6JsGa1Ue5Hoi"
DB_PASSWORD = "RootPw99-x7Kq"
NEEDLES = (AWS, GHP, DB_PASSWORD)
PROJECT = "/path/to/Vault"
FORMATS = ("claude", "codex", "gemini", "text")
EVENTS = ("session-start", "prompt-submit")


@pytest.fixture
def planted(recall_home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    """Secrets in MEMORY.md, in remembered facts and in a session's title and messages,
    all indexed while redaction was off; then redaction is turned back on."""
    write_config(recall_home, "[redact]\nenabled = false\n")
    secret_lines = (
        f"- deploy key for the vault: aws_access_key_id = {AWS}\n"
        f"- vault CI uses GITHUB_TOKEN={GHP}\n"
        f"- vault database: postgres://app:{DB_PASSWORD}@db.internal:5432/vault\n"
    )
    (recall_home / "MEMORY.md").write_text(f"# Memory\n\n{secret_lines}")
    for line in secret_lines.splitlines():
        assert call(capsys, "remember", line.lstrip("- "), "-c", "fact", "-i", "9")[0] == 0
    rows = [
        {
            "session": f"vault-{n}",
            "role": role,
            "text": text,
            "agent": "claude",
            "project": PROJECT,
            "timestamp": f"2026-03-0{n + 1}T10:00:00Z",
        }
        for n in range(3)
        for role, text in (
            ("user", f"vault deploy: export AWS_ACCESS_KEY_ID={AWS} and GITHUB_TOKEN={GHP}"),
            ("assistant", f"vault database DB_PASSWORD={DB_PASSWORD} set for the deploy"),
        )
    ]
    src = tmp_path / "vault.jsonl"
    src.write_text("".join(json.dumps(r) + "\n" for r in rows))
    assert call(capsys, "ingest", "--format", "jsonl", str(src))[0] == 0
    assert call(capsys, "sync", "-q", "--no-embed")[0] == 0
    write_config(recall_home, "[redact]\nenabled = true\n")
    return recall_home


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("event", EVENTS)
def test_no_secret_reaches_the_agent(planted: Path, fmt: str, event: str) -> None:
    payload = {
        "cwd": PROJECT,
        "session_id": "elsewhere",
        # every excerpt must cover the prompt as well as the best nearly does (context
        # .relevance): a remembered fact holds the deploy key, a session all three secrets
        "prompt": "what is the vault deploy key?",
    }
    done = run("context", "--event", event, "--format", fmt, stdin=json.dumps(payload).encode())
    out = done.stdout.decode()
    assert done.returncode == 0 and done.stderr == b""
    text = json.loads(out)["hookSpecificOutput"]["additionalContext"] if fmt != "text" else out
    assert "From MEMORY.md:" in text  # the file was sent, not left out
    if event == "prompt-submit":
        assert "remembered (fact, importance 9)" in text and "[session vault-" in text
    else:
        assert "[session vault-" in text
    for needle in NEEDLES:
        assert needle not in out, f"{needle} leaked to the {fmt} {event} hook"
    assert "[REDACTED:" in text


def test_a_secret_split_over_memory_lines_is_still_caught(recall_home: Path) -> None:
    """MEMORY.md is redacted as one text, so a PEM block spanning lines goes whole."""
    body = "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7" * 2
    key = f"-----BEGIN PRIVATE KEY-----\n{body}\n{body[::-1]}\n-----END PRIVATE KEY-----"
    recall_home.mkdir(parents=True, exist_ok=True)
    (recall_home / "MEMORY.md").write_text(f"# Memory\n\nthe signing key:\n{key}\n")
    done = run("context", "--event", "session-start", stdin=b'{"cwd": "/nowhere"}')
    out = done.stdout.decode()
    assert "From MEMORY.md:" in out and "[REDACTED:private-key]" in out
    assert body not in out and body[::-1] not in out


def test_the_users_own_rule_applies_to_what_was_indexed_before_it(
    planted: Path,
) -> None:
    """A rule added to config after indexing covers the hook at once (no rescan needed)."""
    write_config(
        planted,
        '[[redact.extra]]\nname = "vault-host"\npattern = "db\\\\.internal"\n',
    )
    done = run("context", "--event", "session-start", stdin=json.dumps({"cwd": PROJECT}).encode())
    out = done.stdout.decode()
    assert "From MEMORY.md:" in out and "db.internal" not in out
    assert "[REDACTED:vault-host]" in out


def test_a_secret_cut_by_the_line_limit_leaves_no_part_behind(
    recall_home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Lines are cut to a width after redaction: a cut token would no longer match its
    rule, and its first twenty characters would go out as they are."""
    write_config(recall_home, "[redact]\nenabled = false\n")
    title = "please rotate the vault deploy credentials " * 3 + f"and then ci uses {GHP} now"
    assert title.index(GHP) < 159 < title.index(GHP) + len(GHP)  # the cut falls inside it
    row = {"session": "cut-1", "role": "user", "text": "rotate", "title": title}
    row["project"] = PROJECT
    src = tmp_path / "cut.jsonl"
    src.write_text(json.dumps({**row, "agent": "claude"}) + "\n")
    assert call(capsys, "ingest", "--format", "jsonl", str(src))[0] == 0
    write_config(recall_home, "[redact]\nenabled = true\n")
    done = run("context", "--event", "session-start", stdin=json.dumps({"cwd": PROJECT}).encode())
    out = done.stdout.decode()
    assert "[session cut-1]" in out and "[REDACTED:" in out
    assert GHP[:12] not in out


def test_a_redaction_config_that_cannot_load_means_no_context(recall_home: Path) -> None:
    """Fail closed: without the user's rules the hook cannot know what to hide, so it
    prints nothing (and logs why) rather than MEMORY.md as it is."""
    write_config(recall_home, '[[redact.extra]]\nname = "bad"\npattern = "(a+)+$"\n')
    (recall_home / "MEMORY.md").write_text(f"# Memory\n\n- CI token {GHP}\n")
    done = run("context", "--event", "session-start", stdin=b'{"cwd": "/nowhere"}')
    assert (done.returncode, done.stdout, done.stderr) == (0, b"", b"")
    assert "refused" in (recall_home / "recall.log").read_text()


@pytest.mark.parametrize("where", ["message", "daily_log"])
@pytest.mark.parametrize(
    ("secret", "fillers", "parts"),
    [
        (GHP, 10, (GHP[4:16], GHP[-12:])),  # the snippet began after `ghp_`
        (f"postgres://app:{DB_PASSWORD}@db.internal:5432/vault", 6, (DB_PASSWORD[-6:],)),
        ("aws_secret_access_key=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", 9, ("bPxRfiCY",)),
    ],
)
def test_a_secret_cut_by_the_snippet_edge_is_redacted_within_its_message(
    recall_home: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    secret: str,
    fillers: int,
    parts: tuple[str, ...],
    where: str,
) -> None:
    """A snippet is a window of its message (or note chunk): a token whose start fell
    outside it matched no rule, and its rest went to the agent (a ghp_ token's body)."""
    write_config(recall_home, "[redact]\nenabled = false\n")
    words = "alpha beta gamma delta epsilon zeta eta theta iota kappa " * 2
    text = f"{words}token {secret} {'filler ' * fillers}walrus {'after ' * 30}"
    if where == "message":
        row = {"session": "edge-1", "role": "user", "text": text, "agent": "claude"}
        src = tmp_path / "edge.jsonl"
        src.write_text(json.dumps({**row, "project": "/p", "timestamp": "2026-03-01T10:00:00Z"}))
        assert call(capsys, "ingest", "--format", "jsonl", str(src))[0] == 0
        shown = "[session edge-1 #0]"
    else:
        (recall_home / "daily").mkdir()
        (recall_home / "daily" / "2026-03-01.md").write_text(f"# 2026-03-01\n\n{text}\n")
        assert call(capsys, "sync", "-q", "--no-embed")[0] == 0
        shown = "2026-03-01.md › 2026-03-01:"
    write_config(recall_home, "[redact]\nenabled = true\n")
    payload = {"cwd": "/elsewhere", "session_id": "x", "prompt": "what about the walrus?"}
    done = run("context", "--event", "prompt-submit", stdin=json.dumps(payload).encode())
    out = done.stdout.decode()
    assert shown in out and "walrus" in out and "[REDACTED:" in out
    for part in parts:
        assert part not in out
