"""The Gemini CLI adapter against every shared Gemini fixture and hand-written edge cases.

Expected values were read off the fixture files by hand, never produced by the adapter.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any

import pytest

from agenthelp import Store, apply, pairs, parse_whole
from recall.agents.base import SKIP_BAD_SHAPE, SKIP_BROKEN
from recall.agents.gemini import GeminiAdapter
from recall.types import TITLE_AGENT, Parsed

GEMINI = GeminiAdapter()


def fixture(transcripts: Path, rel: str) -> Path:
    return transcripts / "gemini" / rel


def parse(path: Path, data: bytes | None = None) -> Parsed:
    return parse_whole(GEMINI, path, data)


def line_ends(data: bytes) -> list[int]:
    return [i + 1 for i, b in enumerate(data) if b == ord("\n")]


def piecewise(path: Path, data: bytes, cuts: list[int]) -> tuple[Store, int]:
    """Parse `data` as a growing file read at each cut, state round-tripped through JSON."""
    store: Store = {}
    offset, state = 0, dict[str, Any]()
    for cut in [*cuts, len(data)]:
        if cut < offset:
            continue
        parsed = GEMINI.parse(path, data[offset:cut], offset, state)
        apply(store, parsed.parts)
        offset += parsed.offset
        state = json.loads(json.dumps(parsed.state))
    return store, offset


def one_shot(path: Path, data: bytes) -> Store:
    store: Store = {}
    apply(store, GEMINI.parse(path, data, 0, {}).parts)
    return store


def texts(store: Store, sid: str) -> list[tuple[str, str]]:
    return [(role, text) for role, text, _ in store[sid].values()]


# --- the shared fixtures ---------------------------------------------------------------


def test_jsonl_v040(transcripts: Path) -> None:
    path = fixture(transcripts, "agent-sessions/jsonl_v040.jsonl")
    parsed = parse(path)
    assert len(parsed.parts) == 1
    part = parsed.parts[0]
    info = part.info
    assert info.session_id == "gemini_stage0_jsonl"
    assert info.agent == "gemini"
    assert info.started_at == "2026-04-29T21:39:22.319Z"
    assert info.metadata["model"] == "gemini-3-flash-preview"
    assert info.metadata["kind"] == "main"
    assert info.metadata["project_hash"] == (
        "0b7dfb1274ee51b336813b17f2ddab1f56b6591f723e7314126bbd502c69e9c9"
    )
    assert info.project is None  # never derived from the hash
    assert info.parent_session_id is None
    # The tool-call-only gemini record (empty content) and its tool output are not turns.
    assert pairs(parsed) == [
        ("user", "Say hello and list files."),
        ("assistant", "Hello! I listed the files."),
    ]
    assert "AgentSessions" not in str(pairs(parsed))
    assert [m.key for m in part.messages] == [
        "gemini_stage0_jsonl#g-user-1",
        "gemini_stage0_jsonl#g-assistant-2",
    ]
    assert part.messages[0].timestamp == "2026-04-29T21:39:33.155Z"
    assert not part.replace and part.rewinds == []
    assert parsed.offset == len(path.read_bytes())
    assert parsed.skipped == {}


def test_legacy_small_json(transcripts: Path) -> None:
    parsed = parse(fixture(transcripts, "agent-sessions/small.json"))
    part = parsed.parts[0]
    assert part.replace
    assert part.info.session_id == "session-2026-01-16T18-34-3739ef95"
    assert part.info.metadata["kind"] == "chat"
    assert part.info.metadata["model"] == "gemini-3-flash-preview"
    assert pairs(parsed) == [("user", "Hello"), ("assistant", "Hi!")]
    assert "Short reasoning placeholder." not in str(pairs(parsed))


def test_schema_drift_history_document(transcripts: Path) -> None:
    parsed = parse(fixture(transcripts, "agent-sessions/schema_drift.json"))
    info = parsed.parts[0].info
    assert info.session_id == "schema_drift"  # the file stem: the document names none
    assert (info.title, info.title_rank) == ("Redacted session summary", TITLE_AGENT)
    assert info.started_at == "2025-12-16T23:47:00.000Z"
    assert pairs(parsed) == [("user", "Describe this image:"), ("assistant", "It looks like...")]
    assert parsed.parts[0].messages[0].timestamp == "2023-09-18T01:20:00Z"  # ts 1695000000


def test_agentsview_standard_session(transcripts: Path) -> None:
    parsed = parse(fixture(transcripts, "agentsview/standard_session.json"))
    assert parsed.parts[0].info.session_id == "sess-uuid-1"
    assert parsed.parts[0].info.metadata["project_hash"] == "abc123def456"
    assert parsed.parts[0].info.project is None
    assert pairs(parsed) == [
        ("user", "Fix the login bug"),
        ("assistant", "Looking at the auth module..."),
        ("user", "That looks right"),
        ("assistant", "Applied the fix."),
    ]


def test_system_messages_only_give_nothing(transcripts: Path) -> None:
    parsed = parse(fixture(transcripts, "agentsview/system_messages.json"))
    assert pairs(parsed) == []
    assert parsed.parts == []
    assert parsed.skipped == {}


def test_thinking_is_dropped(transcripts: Path) -> None:
    parsed = parse(fixture(transcripts, "agentsview/thinking_only.json"))
    assert parsed.parts[0].info.metadata["model"] == "gemini-2.5-pro"
    assert pairs(parsed) == [
        ("user", "Explain how this works"),
        ("assistant", "Here is how it works: the system reads the config file on startup."),
    ]
    assert "Planning response" not in str(pairs(parsed))


def test_short_ids_do_not_collide_across_sessions(transcripts: Path) -> None:
    a = parse(fixture(transcripts, "agentsview/standard_session.json")).parts[0].messages
    b = parse(fixture(transcripts, "agentsview/thinking_only.json")).parts[0].messages
    assert not {m.key for m in a} & {m.key for m in b}  # both files use ids u1 and a1


def test_whole_file_only_for_json(transcripts: Path) -> None:
    assert GEMINI.whole_file(fixture(transcripts, "agent-sessions/small.json"))
    assert not GEMINI.whole_file(fixture(transcripts, "agent-sessions/jsonl_v040.jsonl"))
    assert GEMINI.incremental


def test_chunked_fixture_matches_one_shot(transcripts: Path) -> None:
    path = fixture(transcripts, "agent-sessions/jsonl_v040.jsonl")
    data = path.read_bytes()
    ends = line_ends(data)
    for cuts in (ends, ends[1::2], [e - 3 for e in ends if e > 3]):
        store, offset = piecewise(path, data, cuts)
        assert store == one_shot(path, data)
        assert offset == len(data)


def test_owns(transcripts: Path, tmp_path: Path) -> None:
    for rel in (
        "agent-sessions/jsonl_v040.jsonl",
        "agent-sessions/small.json",
        "agent-sessions/schema_drift.json",
        "agentsview/system_messages.json",
    ):
        assert GEMINI.owns(fixture(transcripts, rel)), rel
    other = tmp_path / "claude.jsonl"
    other.write_text('{"type":"user","sessionId":"s","message":{"content":"hi"}}\n')
    assert not GEMINI.owns(other)
    assert not GEMINI.owns(tmp_path / "missing.json")
    assert GEMINI.owns(Path("/home/u/.gemini/tmp/p/chats/session-x.jsonl"))
    junk = tmp_path / "junk.json"
    junk.write_bytes(b"\xff\x00{{{")
    assert not GEMINI.owns(junk)


# --- hand-written records --------------------------------------------------------------

SID = "7c0f5a3e-1b2c-4d5e-8f90-0123456789ab"
META = {
    "sessionId": SID,
    "projectHash": "ab" * 32,
    "startTime": "2026-05-01T08:00:00.000Z",
    "lastUpdated": "2026-05-01T08:00:00.000Z",
    "kind": "main",
}


def user(mid: str, text: str, **extra: Any) -> dict[str, Any]:
    return {
        "id": mid,
        "timestamp": "2026-05-01T08:00:01.000Z",
        "type": "user",
        "content": [{"text": text}],
        **extra,
    }


def model(mid: str, text: str, **extra: Any) -> dict[str, Any]:
    return {
        "id": mid,
        "timestamp": "2026-05-01T08:00:02.000Z",
        "type": "gemini",
        "content": text,
        "model": "gemini-2.5-pro",
        **extra,
    }


def jsonl(*records: dict[str, Any]) -> bytes:
    return "".join(json.dumps(r) + "\n" for r in records).encode()


def chat_path(tmp_path: Path) -> Path:
    return tmp_path / "session-2026-05-01T08-00-7c0f5a3e.jsonl"


def key(mid: str) -> str:
    return f"{SID}#{mid}"


REWOUND = (
    META,
    user("m1", "Pick a database"),
    model("m2", "Postgres."),
    user("m3", "Why not Mongo?"),
    model("m4", "Joins."),
    {"$rewindTo": "m3"},
    user("m5", "Why Postgres?"),
)
"""A chat whose user rewinds to "Why not Mongo?" and asks again."""


def test_rewind_within_one_parse(tmp_path: Path) -> None:
    data = jsonl(
        *REWOUND,
        model("m6", "Transactions."),
    )
    parsed = parse(chat_path(tmp_path), data)
    assert pairs(parsed) == [
        ("user", "Pick a database"),
        ("assistant", "Postgres."),
        ("user", "Why Postgres?"),
        ("assistant", "Transactions."),
    ]
    assert parsed.parts[0].rewinds == [] and not parsed.parts[0].replace


def test_rewind_across_parses_goes_to_the_store(tmp_path: Path) -> None:
    path = chat_path(tmp_path)
    data = jsonl(
        *REWOUND,
    )
    cut = line_ends(data)[4]
    first = GEMINI.parse(path, data[:cut], 0, {})
    second = GEMINI.parse(path, data[cut:], cut, json.loads(json.dumps(first.state)))
    assert second.parts[0].rewinds == [key("m3")]
    assert pairs(second) == [("user", "Why Postgres?")]
    store, _ = piecewise(path, data, [cut])
    assert texts(store, SID) == [
        ("user", "Pick a database"),
        ("assistant", "Postgres."),
        ("user", "Why Postgres?"),
    ]
    assert store == one_shot(path, data)


def test_rewind_to_a_dropped_record_cuts_at_the_next_kept_one(tmp_path: Path) -> None:
    path = chat_path(tmp_path)
    data = jsonl(
        META,
        user("m1", "Run the tests"),
        {
            "id": "i1",
            "timestamp": "2026-05-01T08:00:03Z",
            "type": "info",
            "content": "Request cancelled.",
        },
        model("m2", "All green."),
        {"$rewindTo": "i1"},
        user("m3", "Run them again"),
    )
    cut = line_ends(data)[3]
    first = GEMINI.parse(path, data[:cut], 0, {})
    second = GEMINI.parse(path, data[cut:], cut, json.loads(json.dumps(first.state)))
    assert second.parts[0].rewinds == [key("m2")]
    store, _ = piecewise(path, data, [cut])
    assert texts(store, SID) == [("user", "Run the tests"), ("user", "Run them again")]
    assert store == one_shot(path, data)


def test_reappended_id_keeps_its_place_and_last_copy_wins(tmp_path: Path) -> None:
    path = chat_path(tmp_path)
    data = jsonl(
        META,
        user("m1", "Summarise the RFC"),
        model("m2", "Draft summary"),
        {"$set": {"lastUpdated": "2026-05-01T08:00:05Z"}},
        user("m3", "Shorter please"),
        model("m2", "Final summary", tokens={"input": 1, "output": 2}),
    )
    parsed = parse(path, data)
    assert pairs(parsed) == [
        ("user", "Summarise the RFC"),
        ("assistant", "Final summary"),
        ("user", "Shorter please"),
    ]
    assert [m.key for m in parsed.parts[0].messages] == [key("m1"), key("m2"), key("m3")]
    for cut in line_ends(data)[:-1]:
        store, _ = piecewise(path, data, [cut])
        assert texts(store, SID) == pairs(parsed)


def test_checkpoint_merges_and_loses_nothing(tmp_path: Path) -> None:
    """Gemini writes `$set.messages` when it compresses a chat; the mirror keeps the discussion."""
    path = chat_path(tmp_path)
    data = jsonl(
        META,
        user("m1", "Old question"),
        model("m2", "Old answer"),
        user("m3", "Keep this"),
        {
            "$set": {
                "messages": [user("m3", "Keep this"), model("m4", "Kept answer")],
                "summary": "Checkpointed chat",
            }
        },
        user("m5", "After the checkpoint"),
    )
    parsed = parse(path, data)
    part = parsed.parts[0]
    assert not part.replace
    assert pairs(parsed) == [
        ("user", "Old question"),
        ("assistant", "Old answer"),
        ("user", "Keep this"),
        ("assistant", "Kept answer"),
        ("user", "After the checkpoint"),
    ]
    assert (part.info.title, part.info.title_rank) == ("Checkpointed chat", TITLE_AGENT)
    for cut in line_ends(data)[:-1]:
        store, _ = piecewise(path, data, [cut])
        assert store == one_shot(path, data), cut


def test_unknown_rewind_target_is_left_to_the_store(tmp_path: Path) -> None:
    path = chat_path(tmp_path)
    first = GEMINI.parse(path, jsonl(META, user("m1", "Hi")), 0, {})
    data = jsonl({"$rewindTo": "zz"}, user("m2", "Again"))
    second = GEMINI.parse(path, data, 99, json.loads(json.dumps(first.state)))
    assert second.parts[0].rewinds == [key("zz")]


def test_user_turn_filters(tmp_path: Path) -> None:
    data = jsonl(
        META,
        user("u1", "Fix @src/app.py", displayContent=[{"text": "Fix @src/app.py please"}]),
        {
            "id": "u2",
            "type": "user",
            "content": [
                {"functionResponse": {"id": "c1", "name": "ls", "response": {"output": "a.txt"}}}
            ],
        },
        user("u3", "/help"),
        user("u4", "?"),
        user("u5", "<session_context>\nThis is the Gemini CLI.\n</session_context>"),
        {
            "id": "u6",
            "type": "user",
            "content": [
                {"text": "Deploy it"},
                {"text": "<hook_context>branch=main</hook_context>"},
            ],
        },
        user("u7", "Why?<hook_context>x</hook_context>"),
        user("u8", "Explain <system-reminder>ignore</system-reminder>this"),
        user(
            "u9",
            "Read @a.py\n--- Content from referenced files ---\nContent from @a.py:\n"
            "print(1)\n--- End of content ---",
        ),
        {
            "id": "g1",
            "type": "gemini",
            "content": [
                {"text": "Let me think", "thought": True},
                {"text": "Done."},
                {"functionCall": {"name": "ls", "args": {}}},
            ],
        },
        {"id": "w1", "type": "warning", "content": "Slow"},
        {"id": "e1", "type": "error", "content": "Boom"},
    )
    parsed = parse(chat_path(tmp_path), data)
    assert pairs(parsed) == [
        ("user", "Fix @src/app.py please"),
        ("user", "Deploy it"),
        ("user", "Why?"),
        ("user", "Explain this"),
        ("user", "Read @a.py"),
        ("assistant", "Done."),
    ]
    assert parsed.skipped == {}


def test_subagent_file_and_project_sources(tmp_path: Path) -> None:
    tmp = tmp_path / ".gemini" / "tmp"
    parent_sid = "11111111-2222-4333-8444-555555555555"
    sub = tmp / "myproj" / "chats" / parent_sid / f"{SID}.jsonl"
    sub.parent.mkdir(parents=True)
    sub.write_bytes(
        jsonl(
            {**META, "kind": "subagent", "directories": ["/work/myproj"]},
            user("m1", "Find the bug"),
        )
    )
    info = parse(sub).parts[0].info
    assert info.parent_session_id == parent_sid
    assert info.metadata["kind"] == "subagent"
    assert info.project == "/work/myproj"  # from `directories`
    # A main chat with no directories: the folder's .project_root names the root.
    main = tmp / "myproj" / "chats" / "session-2026-05-01T08-00-7c0f5a3e.jsonl"
    main.write_bytes(jsonl(META, user("m1", "Hello")))
    (tmp / "myproj" / ".project_root").write_text("/work/myproj\n")
    info = parse(main).parts[0].info
    assert (info.project, info.parent_session_id) == ("/work/myproj", None)
    # A legacy hash folder: ~/.gemini/projects.json knows the root whose sha256 it is.
    digest = hashlib.sha256(b"/work/other").hexdigest()
    legacy = tmp / digest / "chats" / "session-2026-05-01T08-00-7c0f5a3e.json"
    legacy.parent.mkdir(parents=True)
    legacy.write_text(json.dumps({**META, "projectHash": digest, "messages": [user("m1", "x")]}))
    assert parse(legacy).parts[0].info.project is None
    (tmp_path / ".gemini" / "projects.json").write_text(
        json.dumps({"projects": {"/work/other": "other"}})
    )
    assert parse(legacy).parts[0].info.project == "/work/other"


def test_discover_prefers_migrated_jsonl(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    tmp = tmp_path / ".gemini" / "tmp"
    chats = tmp / "proj" / "chats"
    (chats / "parent-sid").mkdir(parents=True)
    for name in ("session-a.json", "session-a.jsonl", "session-b.json", "session-c.jsonl"):
        (chats / name).write_text("{}\n")
    (chats / "parent-sid" / "child.jsonl").write_text("{}\n")
    (tmp / "proj" / "logs.json").write_text("[]")
    expected = [
        chats / "parent-sid" / "child.jsonl",
        chats / "session-a.jsonl",
        chats / "session-b.json",
        chats / "session-c.jsonl",
    ]
    assert list(GEMINI.discover(tmp)) == expected
    assert list(GEMINI.discover(tmp_path / ".gemini")) == expected
    assert list(GEMINI.discover(tmp_path / "nowhere")) == []
    monkeypatch.setenv("GEMINI_CLI_HOME", str(tmp_path))
    assert GEMINI.default_roots() == [tmp]
    monkeypatch.delenv("GEMINI_CLI_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "h"))
    assert GEMINI.default_roots() == [tmp_path / "h" / ".gemini" / "tmp"]


def test_truncated_last_line_is_left_for_later(tmp_path: Path) -> None:
    path = chat_path(tmp_path)
    full = jsonl(META, user("m1", "first"), user("m2", "second"))
    cut = len(full) - 10
    parsed = GEMINI.parse(path, full[:cut], 0, {})
    assert pairs(parsed) == [("user", "first")]
    assert parsed.offset == line_ends(full)[1]
    assert parsed.skipped == {}
    rest = GEMINI.parse(path, full[parsed.offset :], parsed.offset, parsed.state)
    assert pairs(rest) == [("user", "second")]


@pytest.mark.parametrize(
    "data",
    [
        b"",
        b"\n",
        b"\x00\xff\xfe garbage\x80\n",
        os.urandom(4096),
        b'[1]\n"x"\n',
        b'{"$set": 5}\n{"$rewindTo": 3}\n{"id": "x", "type": ["user"]}\n',
        b'{"id": "x", "type": "user", "content": {"weird": true}}\n{"messages": [1, 2]}\n',
    ],
)
def test_garbage_jsonl_never_raises(tmp_path: Path, data: bytes) -> None:
    parsed = GEMINI.parse(chat_path(tmp_path), data, 0, {})
    assert pairs(parsed) == []
    assert 0 <= parsed.offset <= len(data)


@pytest.mark.parametrize(
    ("data", "reason"),
    [
        (b"", SKIP_BROKEN),
        (b"{not json", SKIP_BROKEN),
        (b"[1, 2]", SKIP_BAD_SHAPE),
        (b'{"messages": 3}', SKIP_BAD_SHAPE),
        (b'{"sessionId": "s", "messages": ["x"]}', SKIP_BAD_SHAPE),
    ],
)
def test_garbage_json_document_is_counted(tmp_path: Path, data: bytes, reason: str) -> None:
    parsed = GEMINI.parse(tmp_path / "session-x.json", data, 0, {})
    assert parsed.parts == []
    assert parsed.skipped == {reason: 1}
    assert parsed.offset == len(data)
