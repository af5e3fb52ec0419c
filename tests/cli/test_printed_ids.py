"""Every id recall prints is one `recall show` takes as printed: the shortest unique
prefix (ids that share 8 characters print longer), and `ID#N` opening at message N."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from clihelp import call, call_json

IDS = ["chatgpt-0001", "chatgpt-0002", "session-aa", "5c0375b4-aaaa-bbbb"]


@pytest.fixture
def sessions(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src = tmp_path / "chats.jsonl"
    rows = [
        {"session": sid, "role": role, "text": f"{word} {sid} turn {n}"}
        for sid in IDS
        for n, (role, word) in enumerate(
            [("user", "walrus"), ("assistant", "ok"), ("user", "narwhal"), ("assistant", "fine")]
        )
    ]
    rows.append({"session": "5c0375b4-aaaa-bbbb:sidechain", "role": "user", "text": "walrus side"})
    src.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    assert call(capsys, "ingest", "--format", "jsonl", str(src))[0] == 0


def printed(out: str) -> list[str]:
    return re.findall(r"\[([^\]\s]+)\]", out)


def test_search_prints_prefixes_show_resolves_to_the_same_session(
    sessions: None, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = call(capsys, "search", "walrus", "--mode", "keyword", "-n", "20")
    assert code == 0
    refs = printed(out)
    assert sorted(refs) == [
        "5c0375b4-aaaa-bbbb",
        "5c0375b4-aaaa-bbbb:sidechain",
        "chatgpt-0001",
        "chatgpt-0002",
        "session-",
    ]
    for ref in refs:
        shown = call_json(capsys, "show", ref)
        assert shown["session_id"].startswith(ref.partition(":")[0])


def test_a_message_reference_opens_at_that_message_in_every_spelling(
    sessions: None, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = call(capsys, "search", "narwhal", "--messages", "--mode", "keyword")
    assert code == 0
    ref = next(r for r in printed(out) if r.startswith("chatgpt-0002"))
    assert ref == "chatgpt-0002#2"
    for argv in ([ref], ["chatgpt-0002 #2"], ["chatgpt-0002", "#2"], ["chatgpt-0002", "2"]):
        code, out, err = call(capsys, "show", *argv)
        assert code == 0, err
        body = out.split("\n── ", 1)[1]
        assert body.startswith("#2 user") and "narwhal chatgpt-0002 turn 2" in body
        assert "walrus chatgpt-0002" not in body  # opened at #2, the messages before left out
        assert "(#0–#1 above: recall show chatgpt-0002)" in out
    code, _, err = call(capsys, "show", "chatgpt-0002#9")
    assert code == 2 and "has 4 messages (#0 to #3); there is no #9" in err
    code, _, err = call(capsys, "show", "chatgpt-0002", "#x")
    assert code == 2 and "'#x' is not a message number" in err


def test_show_without_a_message_numbers_every_message(
    sessions: None, capsys: pytest.CaptureFixture[str]
) -> None:
    out = call(capsys, "show", "session-")[1]
    assert [line.split(" ")[1] for line in out.splitlines() if line.startswith("── ")] == [
        "#0",
        "#1",
        "#2",
        "#3",
    ]
