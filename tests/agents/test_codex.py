"""The Codex CLI adapter against every shared Codex fixture and hand-written edge cases.

Expected values were read off the fixture files by hand, never produced by the adapter.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from agenthelp import Store, apply, pairs, parse_whole
from recall.agents.base import SKIP_BAD_SHAPE, SKIP_BROKEN, SKIP_UNKNOWN
from recall.agents.codex import CodexAdapter
from recall.types import TITLE_AGENT, Parsed

CODEX = CodexAdapter()


def fixture(transcripts: Path, rel: str) -> Path:
    return transcripts / "codex" / rel


def parse(path: Path, data: bytes | None = None) -> Parsed:
    return parse_whole(CODEX, path, data)


def count(parsed: Parsed, role: str, text: str) -> int:
    return pairs(parsed).count((role, text))


def piecewise(path: Path, data: bytes, cuts: list[int]) -> tuple[dict[str, Any], int, list[Any]]:
    """Parse `data` as a growing file read at each cut, state round-tripped through JSON."""
    store: Store = {}
    offset, state = 0, dict[str, Any]()
    infos: list[Any] = []
    for cut in [*cuts, len(data)]:
        if cut < offset:
            continue
        parsed = CODEX.parse(path, data[offset:cut], offset, state)
        apply(store, parsed.parts)
        infos += [p.info for p in parsed.parts]
        offset += parsed.offset
        state = json.loads(json.dumps(parsed.state))
    return store, offset, infos


def line_ends(data: bytes) -> list[int]:
    return [i + 1 for i, b in enumerate(data) if b == ord("\n")]


# --- the shared fixtures ---------------------------------------------------------------


def test_small_kitchen_sink(transcripts: Path) -> None:
    parsed = parse(fixture(transcripts, "agent-sessions/small.jsonl"))
    assert len(parsed.parts) == 1
    info = parsed.parts[0].info
    assert info.session_id == "019fc8be-3658-7ca3-9e29-000000000000"
    assert info.agent == "codex"
    assert info.project == "/tmp/repo"
    assert info.started_at == "2026-08-03T10:48:56.000Z"
    assert info.parent_session_id is None  # the first session_meta is a plain cli session
    assert info.metadata["git_branch"] == "main"
    assert info.metadata["agent_version"] == "0.146.0"
    assert info.metadata["originator"] == "codex_cli_rs"
    assert "forked_from" not in info.metadata  # only a later (copied) session_meta has one
    assert (info.title, info.title_rank) == ("[trimmed for fixture]", TITLE_AGENT)
    # The only typed conversation: one prompt, one answer; their event_msg twins,
    # the developer message, reasoning, tool outputs and the compacted
    # replacement_history (all "[trimmed for fixture]") must not show up.
    assert pairs(parsed) == [("user", "List the files"), ("assistant", "Found 2 files.")]
    assert parsed.skipped == {}
    assert parsed.offset == len(fixture(transcripts, "agent-sessions/small.jsonl").read_bytes())


def test_large_envelope_session(transcripts: Path) -> None:
    parsed = parse(fixture(transcripts, "agent-sessions/large.jsonl"))
    info = parsed.parts[0].info
    assert info.session_id == "019b2ea4-aaaa-bbbb-cccc-58208e1f0000"
    assert info.project == "/tmp/large"
    assert info.metadata["model"] == "gpt-5.2"
    assert info.metadata["agent_version"] == "0.106.0"
    expected = [
        ("user", "Start"),
        ("assistant", "Acknowledged."),
        ("assistant", "Captured multiline output."),
    ]
    for n in range(1, 6):
        expected += [("user", f"Step {n}"), ("assistant", "Ok")]
    assert pairs(parsed) == expected  # "Start" once, although event_msg logged it too
    texts = " ".join(t for _, t in pairs(parsed))
    assert "environment_context" not in texts and "/tmp/large" not in texts
    assert "line1" not in texts  # tool output
    assert [m.timestamp for m in parsed.parts[0].messages][:2] == [
        "2025-12-18T10:00:01.000Z",
        "2025-12-18T10:00:02.000Z",
    ]


def test_schema_drift_flat_records(transcripts: Path) -> None:
    parsed = parse(fixture(transcripts, "agent-sessions/schema_drift.jsonl"))
    assert pairs(parsed) == [("user", "Translate 'hello' to Spanish"), ("assistant", '"hola"')]
    assert parsed.parts[0].info.session_id == "schema_drift"  # no header, no uuid in the name
    assert parsed.parts[0].messages[0].timestamp == "2025-09-10T12:00:00Z"
    assert "(redacted)" not in str(pairs(parsed))  # world_state AGENTS.md text
    assert parsed.skipped == {SKIP_UNKNOWN: 1}  # the `function_result` line


@pytest.mark.parametrize(
    "rel",
    [
        "agent-sessions/codex_052_raw.jsonl",
        "agent-sessions/codex_053_rate_limit.jsonl",
        "ccusage/session-alpha.jsonl",
    ],
)
def test_usage_only_rollouts_have_no_conversation(transcripts: Path, rel: str) -> None:
    path = fixture(transcripts, rel)
    parsed = parse(path)
    assert parsed.parts == []
    assert parsed.offset == len(path.read_bytes())
    assert parsed.skipped == {}


def test_agentsview_payload_without_message_type(transcripts: Path) -> None:
    parsed = parse(fixture(transcripts, "agentsview/standard_session.jsonl"))
    info = parsed.parts[0].info
    assert (info.session_id, info.project) == ("abc-123", "/Users/alice/code/my-api")
    assert pairs(parsed) == [
        ("user", "Add rate limiting"),
        ("assistant", "I'll add rate limiting to the API."),
    ]


def test_malformed_rollout_keeps_the_good_lines(transcripts: Path) -> None:
    name = "claude-code-log/malformed_rollout-66666666-6666-4666-8666-666666666666.jsonl"
    parsed = parse(fixture(transcripts, name))
    assert parsed.parts[0].info.session_id == "66666666-6666-4666-8666-666666666666"
    assert parsed.parts[0].info.project == "/workspace/synthetic-project"
    # No response items at all, so the event log is the conversation.
    assert pairs(parsed) == [("user", "Safe line before malformed input.")]
    assert parsed.skipped == {SKIP_BROKEN: 1}


JSONL_FIXTURES = [
    "agent-sessions/small.jsonl",
    "agent-sessions/large.jsonl",
    "agent-sessions/schema_drift.jsonl",
    "agent-sessions/codex_052_raw.jsonl",
    "agent-sessions/codex_053_rate_limit.jsonl",
    "ccusage/session-alpha.jsonl",
    "agentsview/standard_session.jsonl",
    "claude-code-log/malformed_rollout-66666666-6666-4666-8666-666666666666.jsonl",
]


@pytest.mark.parametrize("rel", JSONL_FIXTURES)
def test_chunked_parse_matches_one_shot(transcripts: Path, rel: str) -> None:
    path = fixture(transcripts, rel)
    data = path.read_bytes()
    whole: Store = {}
    one = CODEX.parse(path, data, 0, {})
    apply(whole, one.parts)
    ends = line_ends(data)
    for cuts in (ends, ends[::3], ends[1::2], [e - 5 for e in ends if e > 5]):
        store, offset, _ = piecewise(path, data, cuts)
        assert store == whole, cuts
        assert offset == one.offset


def test_owns_fixtures_and_rejects_others(transcripts: Path, tmp_path: Path) -> None:
    assert CODEX.owns(fixture(transcripts, "agent-sessions/small.jsonl"))
    assert CODEX.owns(fixture(transcripts, "ccusage/session-alpha.jsonl"))
    other = tmp_path / "notes.jsonl"
    other.write_text('{"type":"user","message":{"role":"user","content":"hi"}}\n')
    assert not CODEX.owns(other)
    assert not CODEX.owns(tmp_path / "missing.jsonl")
    assert CODEX.owns(tmp_path / "rollout-2025-01-01T00-00-00-x.jsonl")  # by name
    legacy = tmp_path / "old.jsonl"
    legacy.write_text('{"id":"a","timestamp":"2025-08-01T00:00:00Z","instructions":null}\n')
    assert CODEX.owns(legacy)
    binary = tmp_path / "blob.jsonl"
    binary.write_bytes(b"\xff\xfe\x00garbage")
    assert not CODEX.owns(binary)


# --- hand-written records --------------------------------------------------------------

SID = "0199a0b1-1111-7222-8333-444455556666"
NAME = f"rollout-2025-10-01T10-00-00-{SID}.jsonl"


def env(kind: str, payload: dict[str, Any], ts: str = "2025-10-01T10:00:00Z") -> str:
    return json.dumps({"timestamp": ts, "type": kind, "payload": payload})


def msg(role: str, *texts: str, item: str = "input_text") -> str:
    content = [{"type": item, "text": t} for t in texts]
    return env("response_item", {"type": "message", "role": role, "content": content})


def lines(*records: str) -> bytes:
    return "".join(r + "\n" for r in records).encode()


META = env("session_meta", {"id": SID, "cwd": "/home/u/proj", "cli_version": "0.60.0"})


def test_injected_context_developer_and_reminders_are_dropped(tmp_path: Path) -> None:
    data = lines(
        META,
        msg("developer", "<permissions instructions>sandboxed</permissions instructions>"),
        msg(
            "user",
            "# AGENTS.md instructions for /home/u/proj\n\n<INSTRUCTIONS>x</INSTRUCTIONS>",
            "<environment_context><cwd>/home/u/proj</cwd></environment_context>",
        ),
        msg(
            "user",
            "  <user_instructions>be terse</user_instructions>",
            "Why is the build red?<system-reminder>secret hint</system-reminder>",
        ),
        env(
            "response_item",
            {"type": "reasoning", "summary": [{"type": "summary_text", "text": "thinking hard"}]},
        ),
        env(
            "response_item",
            {
                "type": "function_call",
                "name": "shell",
                "arguments": '{"cmd":"make"}',
                "call_id": "c1",
            },
        ),
        env(
            "response_item",
            {"type": "function_call_output", "call_id": "c1", "output": "error: missing semicolon"},
        ),
        msg("assistant", "A missing semicolon.", "Fixed it.", item="output_text"),
        msg("user", "<turn_aborted>interrupted</turn_aborted>"),
        msg("user", "<skill>\n<name>x</name>\n</skill>"),
        msg("user", "<subagent_notification>{}</subagent_notification>"),
        msg("user", "<user_shell_command>ls</user_shell_command>"),
        msg("system", "system text"),
    )
    parsed = parse(tmp_path / NAME, data)
    assert pairs(parsed) == [
        ("user", "Why is the build red?"),
        ("assistant", "A missing semicolon.\n\nFixed it."),  # two items, one message
    ]
    # The kept prompt sits on the 4th line (whose first item is injected and dropped).
    fourth = line_ends(data)[2]
    assert data[fourth:].startswith(b'{"timestamp"')
    assert parsed.parts[0].messages[0].key == f"{SID}@{fourth}"
    assert parsed.parts[0].info.project == "/home/u/proj"


def test_message_key_is_session_and_line_offset(tmp_path: Path) -> None:
    data = lines(META, msg("user", "hello there"))
    parsed = CODEX.parse(tmp_path / NAME, data, 0, {})
    assert parsed.parts[0].messages[0].key == f"{SID}@{len(META) + 1}"
    # Resuming at that offset gives the same key.
    again = CODEX.parse(
        tmp_path / NAME,
        data[len(META) + 1 :],
        len(META) + 1,
        json.loads(json.dumps(CODEX.parse(tmp_path / NAME, data[: len(META) + 1], 0, {}).state)),
    )
    assert again.parts[0].messages[0].key == f"{SID}@{len(META) + 1}"


def test_event_twins_and_repeats_appear_once(tmp_path: Path) -> None:
    data = lines(
        META,
        env("event_msg", {"type": "user_message", "message": "Rename the module"}),
        msg("user", "Rename the module"),
        msg("assistant", "Renamed.", item="output_text"),
        env("event_msg", {"type": "agent_message", "message": "Renamed."}),
        msg("assistant", "Renamed.", item="output_text"),  # an identical repeat
        env(
            "compacted",
            {
                "message": "",
                "replacement_history": [
                    {
                        "type": "message",
                        "role": "user",
                        "content": [{"type": "input_text", "text": "Rename the module"}],
                    }
                ],
            },
        ),
        msg("user", "Thanks"),
    )
    parsed = parse(tmp_path / NAME, data)
    assert pairs(parsed) == [
        ("user", "Rename the module"),
        ("assistant", "Renamed."),
        ("user", "Thanks"),
    ]


def test_event_fallback_is_replaced_when_message_items_arrive(tmp_path: Path) -> None:
    data = lines(
        META,
        env("event_msg", {"type": "user_message", "message": "Plan the migration"}),
        env("event_msg", {"type": "agent_message", "message": "Step one: back up."}),
        msg("user", "Plan the migration"),
        msg("assistant", "Step one: back up.", item="output_text"),
    )
    path = tmp_path / NAME
    first = CODEX.parse(path, data[: line_ends(data)[2]], 0, {})
    assert pairs(first) == [("user", "Plan the migration"), ("assistant", "Step one: back up.")]
    store, _, _ = piecewise(path, data, [line_ends(data)[2]])
    whole: Store = {}
    apply(whole, parse(path, data).parts)
    assert store == whole
    assert [v[:2] for v in store[SID].values()] == [
        ("user", "Plan the migration"),
        ("assistant", "Step one: back up."),
    ]


def test_legacy_rollout_format(tmp_path: Path) -> None:
    data = lines(
        json.dumps(
            {
                "id": SID,
                "timestamp": "2025-08-20T09:00:00Z",
                "instructions": "be nice",
                "git": {"branch": "feature/x", "commit_hash": "abc"},
            }
        ),
        json.dumps({"record_type": "state"}),
        json.dumps(
            {
                "type": "message",
                "role": "user",
                "content": [
                    {"type": "input_text", "text": "<environment_context>cwd</environment_context>"}
                ],
            }
        ),
        json.dumps(
            {
                "type": "message",
                "role": "user",
                "content": [{"type": "input_text", "text": "Port this to Rust"}],
            }
        ),
        json.dumps({"type": "reasoning", "summary": []}),
        json.dumps(
            {
                "type": "message",
                "role": "assistant",
                "content": [{"type": "output_text", "text": "Starting with the parser."}],
            }
        ),
        json.dumps({"record_type": "state"}),
    )
    parsed = parse(tmp_path / "rollout-2025-08-20T09-00-00-zzz.jsonl", data)
    info = parsed.parts[0].info
    assert info.session_id == SID
    assert info.metadata["git_branch"] == "feature/x"
    assert info.started_at == "2025-08-20T09:00:00Z"
    assert pairs(parsed) == [
        ("user", "Port this to Rust"),
        ("assistant", "Starting with the parser."),
    ]
    assert parsed.skipped == {}


def test_session_id_from_file_name_and_stem(tmp_path: Path) -> None:
    data = lines(msg("user", "no meta here"))
    assert parse(tmp_path / NAME, data).parts[0].info.session_id == SID
    assert parse(tmp_path / "plain.jsonl", data).parts[0].info.session_id == "plain"


def test_subagent_and_fork_metadata(tmp_path: Path) -> None:
    parent = "0199a0b1-0000-7000-8000-000000000001"
    data = lines(
        env(
            "session_meta",
            {
                "id": SID,
                "forked_from_id": "0199a0b1-0000-7000-8000-00000000000f",
                "source": {"subagent": {"thread_spawn": {"parent_thread_id": parent, "depth": 1}}},
                "git": {"branch": "dev"},
                "originator": "codex_exec",
            },
        ),
        env("session_meta", {"id": parent, "cwd": "/elsewhere"}),  # the parent's copied meta
        env("turn_context", {"cwd": "/home/u/proj", "model": "gpt-5-codex"}),
        msg("user", "Review the diff"),
        env("event_msg", {"type": "thread_name_updated", "thread_name": "Diff review"}),
    )
    info = parse(tmp_path / "x.jsonl", data).parts[0].info
    assert info.session_id == SID
    assert info.parent_session_id == parent
    assert info.project == "/home/u/proj"  # first meta has no cwd: turn_context's
    assert info.metadata == {
        "forked_from": "0199a0b1-0000-7000-8000-00000000000f",
        "git_branch": "dev",
        "originator": "codex_exec",
        "model": "gpt-5-codex",
    }
    assert (info.title, info.title_rank) == ("Diff review", TITLE_AGENT)
    plain = lines(
        env("session_meta", {"id": SID, "source": {"subagent": "review"}}), msg("user", "Review")
    )
    assert parse(tmp_path / "y.jsonl", plain).parts[0].info.parent_session_id is None


def test_truncated_last_line_is_left_for_later(tmp_path: Path) -> None:
    path = tmp_path / NAME
    full = lines(META, msg("user", "first question"), msg("user", "second question"))
    cut = len(full) - 20
    parsed = CODEX.parse(path, full[:cut], 0, {})
    assert pairs(parsed) == [("user", "first question")]
    assert parsed.offset == line_ends(full)[1]
    assert parsed.skipped == {}
    rest = CODEX.parse(path, full[parsed.offset :], parsed.offset, parsed.state)
    assert pairs(rest) == [("user", "second question")]


@pytest.mark.parametrize(
    "data",
    [
        b"",
        b"\n\n",
        b"\x00\xff\xfe\xfd garbage \x80\n",
        os.urandom(4096),
        b'[1, 2]\n"s"\n',
        b'{"type": "response_item", "payload": [1]}\n',
        b'{"type": "response_item", "payload": {"type": "message", "role": "user",'
        b' "content": 7}}\n',
        b'{"type": ["x"], "payload": {}}\n{"type": "brand_new_thing"}\n',
        b'{"type": "event_msg", "payload": {"type": "user_message", "message": 5}}\n',
    ],
)
def test_garbage_never_raises(tmp_path: Path, data: bytes) -> None:
    parsed = CODEX.parse(tmp_path / NAME, data, 0, {})
    assert pairs(parsed) == []
    assert 0 <= parsed.offset <= len(data)


def test_bad_shapes_and_unknown_types_are_counted(tmp_path: Path) -> None:
    data = lines(
        '{"type": "response_item", "payload": [1]}',
        '{"type": "response_item", "payload": {"type": "message", "role": "user", "content": 7}}',
        '{"type": "brand_new_thing", "payload": {}}',
        '{"type": "world_state", "payload": {}}',
        '{"type": "compacted", "payload": {}}',
    )
    parsed = CODEX.parse(tmp_path / NAME, data, 0, {})
    assert parsed.skipped == {SKIP_BAD_SHAPE: 2, SKIP_UNKNOWN: 1}


def test_discover_and_default_roots(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    home = tmp_path / "codex-home"
    day = home / "sessions" / "2025" / "10" / "01"
    day.mkdir(parents=True)
    (day / NAME).write_text(META + "\n")
    (home / "archived_sessions").mkdir()
    (home / "archived_sessions" / "rollout-old.jsonl").write_text(META + "\n")
    (home / "history.jsonl").write_text('{"text":"prompt"}\n')
    (day / "notes.txt").write_text("x")
    assert list(CODEX.discover(home)) == [
        home / "archived_sessions" / "rollout-old.jsonl",
        day / NAME,
    ]
    assert list(CODEX.discover(home / "sessions")) == [day / NAME]
    assert list(CODEX.discover(tmp_path / "nowhere")) == []
    monkeypatch.setenv("CODEX_HOME", str(home))
    assert CODEX.default_roots() == [home / "sessions", home / "archived_sessions"]
    monkeypatch.delenv("CODEX_HOME")
    monkeypatch.setenv("HOME", str(tmp_path))
    assert CODEX.default_roots()[0] == tmp_path / ".codex" / "sessions"
