"""The Claude Code adapter against the shared sample transcripts and hand-made edge cases.

Expected facts are read from the fixture files (see their PROVENANCE.md), never
from the adapter's own output.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

from recall.agents.base import SKIP_BAD_SHAPE, SKIP_BAD_UTF8, SKIP_NOT_OBJECT, SKIP_UNKNOWN
from recall.agents.claude import ClaudeAdapter
from recall.types import TITLE_AGENT, TITLE_USER_GIVEN, Parsed

ADAPTER = ClaudeAdapter()

FIXTURES = [
    "agent-sessions/large.jsonl",
    "agent-sessions/schema_drift.jsonl",
    "agent-sessions/small.jsonl",
    "agent-sessions/subagent/0a1b2c3d-4e5f-4061-8071-2a3b4c5d6e7f.jsonl",
    "agent-sessions/subagent/0a1b2c3d-4e5f-4061-8071-2a3b4c5d6e7f/subagents/"
    "agent-a0ad4f44468bdf20d.jsonl",
    "claude-code-log/edge_cases.jsonl",
    "claude-code-log/representative_messages.jsonl",
    "claude-code-log/system_reminder.jsonl",
    "claude-code-transcripts/sample_session.jsonl",
    "claude-code-viewer/sample-project/1af7fc5e-8455-4414-9ccd-011d40f70b2a.jsonl",
    "claude-code-viewer/sample-project/5c0375b4-57a5-4f26-b12d-d022ee4e51b7.jsonl",
    "claude-code-viewer/sample-project/agent-test-hash-123.jsonl",
]
PARENT_21 = "0a1b2c3d-4e5f-4061-8071-2a3b4c5d6e7f"
VIEWER = "5c0375b4-57a5-4f26-b12d-d022ee4e51b7"

Mirror = dict[str, dict[str, Any]]


# --- helpers ------------------------------------------------------------------


def apply(mirror: Mirror, parsed: Parsed) -> Mirror:
    """Fold a parse into `mirror` the way the store does (see recall.types)."""
    for part in parsed.parts:
        info = part.info
        assert info.agent == "claude"
        s = mirror.setdefault(
            info.session_id,
            {"project": None, "title": None, "rank": 0, "parent": None, "meta": {}, "msgs": {}},
        )
        if info.project is not None:
            s["project"] = info.project
        if info.title is not None and info.title_rank >= s["rank"]:
            s["title"], s["rank"] = info.title, info.title_rank
        if info.parent_session_id is not None:
            s["parent"] = info.parent_session_id
        s["meta"].update(info.metadata)
        for m in part.messages:
            s["msgs"][m.key] = (m.role, m.text, m.timestamp)
    return mirror


def read(path: Path) -> tuple[Parsed, Mirror]:
    parsed = ADAPTER.parse(path, path.read_bytes(), 0, {})
    return parsed, apply({}, parsed)


def read_pieces(path: Path, data: bytes, cuts: list[int]) -> tuple[Mirror, dict[str, int]]:
    """Parse `data` as a growing file read at each cut, state round-tripped as JSON."""
    mirror: Mirror = {}
    skipped: dict[str, int] = {}
    offset, state = 0, {}
    for cut in [*cuts, len(data)]:
        parsed = ADAPTER.parse(path, data[offset:cut], offset, state)
        assert 0 <= parsed.offset <= cut - offset
        offset += parsed.offset
        state = json.loads(json.dumps(parsed.state))
        apply(mirror, parsed)
        for reason, n in parsed.skipped.items():
            skipped[reason] = skipped.get(reason, 0) + n
    return mirror, skipped


def texts(mirror: Mirror, session: str | None = None, role: str | None = None) -> list[str]:
    return [
        text
        for sid, s in mirror.items()
        if session is None or sid == session
        for r, text, _ in s["msgs"].values()
        if role is None or r == role
    ]


def contains(mirror: Mirror, needle: str, session: str | None = None) -> bool:
    return any(needle in t for t in texts(mirror, session))


def objects(path: Path) -> list[dict[str, Any]]:
    out = []
    for raw in path.read_bytes().splitlines():
        try:
            obj = json.loads(raw)
        except ValueError:
            continue
        if isinstance(obj, dict):
            out.append(obj)
    return out


def block_texts(content: Any, kind: str) -> list[str]:
    """Texts of `kind` blocks (`text`, `thinking`, `tool_result`) found in a content value."""
    if isinstance(content, str):
        return [content] if kind == "text" else []
    found: list[str] = []
    for block in content if isinstance(content, list) else []:
        if isinstance(block, str) and kind == "text":
            found.append(block)
        if not isinstance(block, dict):
            continue
        if block.get("type") == kind == "text" and isinstance(block.get("text"), str):
            found.append(block["text"])
        elif block.get("type") == kind == "thinking" and isinstance(block.get("thinking"), str):
            found.append(block["thinking"])
        elif block.get("type") == kind == "tool_result":
            inner = block.get("content")
            found.extend([inner] if isinstance(inner, str) else block_texts(inner, "text"))
    return found


def contents(path: Path) -> list[Any]:
    return [
        o["message"].get("content")
        for o in objects(path)
        if o.get("type") in ("user", "assistant") and isinstance(o.get("message"), dict)
    ]


def newline_cuts(data: bytes) -> list[int]:
    return [i + 1 for i, b in enumerate(data) if b == 0x0A and i + 1 < len(data)]


def jsonl(*lines: dict[str, Any] | str) -> bytes:
    return b"".join(
        (ln if isinstance(ln, str) else json.dumps(ln)).encode() + b"\n" for ln in lines
    )


def user(text: Any, uuid: str, sid: str = "S", **extra: Any) -> dict[str, Any]:
    return {"type": "user", "sessionId": sid, "uuid": uuid, "cwd": "/w",
            "timestamp": "2026-01-01T00:00:00Z",
            "message": {"role": "user", "content": text}, **extra}  # fmt: skip


def assistant(text: Any, uuid: str, sid: str = "S", model: str = "m1", **extra: Any) -> Any:
    return {"type": "assistant", "sessionId": sid, "uuid": uuid, "cwd": "/w",
            "message": {"role": "assistant", "model": model, "content": text}, **extra}  # fmt: skip


def parse_bytes(data: bytes, name: str = "S.jsonl", tmp: Path | None = None) -> Mirror:
    path = (tmp or Path("/nonexistent")) / name
    return apply({}, ADAPTER.parse(path, data, 0, {}))


@pytest.fixture(scope="module")
def claude_dir(transcripts: Path) -> Path:
    return transcripts / "claude"


# --- every fixture ------------------------------------------------------------


def test_fixture_list_is_complete(claude_dir: Path) -> None:
    found = {p.relative_to(claude_dir).as_posix() for p in ADAPTER.discover(claude_dir)}
    assert found == set(FIXTURES)
    assert list(ADAPTER.discover(claude_dir)) == list(ADAPTER.discover(claude_dir))


@pytest.mark.parametrize("name", FIXTURES)
def test_no_tool_thinking_meta_or_scaffolding_text(claude_dir: Path, name: str) -> None:
    path = claude_dir / name
    parsed, mirror = read(path)
    kept = texts(mirror)
    assert kept, "every sample has some conversation"
    for text in kept:
        assert text == text.strip() and text
        for marker in ("<system-reminder>", "</system-reminder>", "<command-name>",
                       "<command-message>", "<local-command-stdout>",
                       "This session is being continued"):  # fmt: skip
            assert marker not in text
    for s in mirror.values():
        assert all(role in ("user", "assistant") for role, _, _ in s["msgs"].values())

    # Tool output and thinking never leak, unless the same words were also said in text.
    said = [t for c in contents(path) for t in block_texts(c, "text")]
    hidden = [t.strip() for c in contents(path)
              for kind in ("tool_result", "thinking") for t in block_texts(c, kind)]  # fmt: skip
    for secret in hidden:
        if len(secret) >= 6 and secret != "[trimmed for fixture]" and secret not in "".join(said):
            assert not any(secret in t for t in kept), secret

    # isMeta expansions and compaction summaries are not messages.
    objs = objects(path)
    uuids = [o.get("uuid") for o in objs]
    for o in objs:
        if (o.get("isMeta") or o.get("isCompactSummary")) and uuids.count(o.get("uuid")) == 1:
            assert all(o["uuid"] not in s["msgs"] for s in mirror.values())
            message = o.get("message")
            content = message.get("content") if isinstance(message, dict) else None
            for t in block_texts(content, "text"):
                if len(t.strip()) > 20:
                    assert not contains(mirror, t.strip()[:60])
    json.dumps(parsed.state)  # resumable state is plain JSON


@pytest.mark.parametrize("name", FIXTURES)
def test_any_newline_split_reads_the_same(claude_dir: Path, name: str) -> None:
    path = claude_dir / name
    data = path.read_bytes()
    whole, one_shot = read(path)
    cuts = newline_cuts(data)
    assert cuts
    for cut in cuts:
        assert read_pieces(path, data, [cut]) == (one_shot, whole.skipped), cut
    assert read_pieces(path, data, cuts) == (one_shot, whole.skipped)


# --- what each fixture says ---------------------------------------------------


def test_viewer_init_session(claude_dir: Path) -> None:
    sid = "1af7fc5e-8455-4414-9ccd-011d40f70b2a"
    parsed, mirror = read(claude_dir / "claude-code-viewer/sample-project" / f"{sid}.jsonl")
    assert list(mirror) == [sid]
    s = mirror[sid]
    assert s["project"] == "/path/to/Demo"
    assert s["meta"]["model"] == "claude-sonnet-4-20250514"
    assert s["meta"]["agent_version"] == "1.0.98"
    assert "git_branch" not in s["meta"]  # gitBranch is "" in this file
    reply = s["msgs"]["938cdc9a-55b5-4bc6-89f6-28f372826b5a"]
    assert reply[0] == "assistant" and reply[2] == "2025-09-03T00:47:41.107Z"
    assert reply[1].startswith("The directory appears to be empty.")
    # `/init` has no arguments: the wrapper line and its isMeta expansion are both gone.
    assert texts(mirror, role="user") == []
    assert not contains(mirror, "init is analyzing your codebase")
    assert not contains(mirror, "Please analyze this codebase and create a CLAUDE.md")
    assert not contains(mirror, "Todos have been modified successfully")
    assert parsed.skipped == {}


def test_viewer_slash_command_japanese_and_inline_sidechains(claude_dir: Path) -> None:
    path = claude_dir / "claude-code-viewer/sample-project" / f"{VIEWER}.jsonl"
    _, mirror = read(path)
    child = f"{VIEWER}:sidechain"
    assert set(mirror) == {VIEWER, child}
    assert mirror[child]["parent"] == VIEWER and mirror[VIEWER]["parent"] is None
    assert texts(mirror, VIEWER, "user") == ["@CLAUDE.md を最新の状態にアップデートしてください"]
    assert contains(mirror, "CLAUDE.mdファイルを最新の状態にアップデートしました", VIEWER)
    assert not contains(mirror, "Split complex tasks into independent subtasks")
    assert not contains(mirror, "Whenever you read a file, you should consider")
    side = {o["uuid"] for o in objects(path) if o.get("isSidechain") is True}
    assert set(mirror[child]["msgs"]) <= side and not set(mirror[VIEWER]["msgs"]) & side
    assert contains(mirror, "Examine the package.json file(s) in /path/to/Demo", child)
    assert contains(mirror, "## Package.json Analysis Summary", child)
    assert not contains(mirror, "Package.json Analysis Summary", VIEWER)  # only a tool result there


def test_viewer_2_0_agent_file_is_a_child(claude_dir: Path) -> None:
    _, mirror = read(claude_dir / "claude-code-viewer/sample-project/agent-test-hash-123.jsonl")
    child = f"{VIEWER}:agent-test-hash-123"
    assert list(mirror) == [child]
    assert mirror[child]["parent"] == VIEWER
    assert list(mirror[child]["msgs"].values()) == [
        ("user", "Run the test suite", "2025-09-03T00:47:19.293Z"),
        ("assistant", "I'll run the test suite for you.", "2025-09-03T00:47:21.540Z"),
    ]


def test_agent_sessions_2_1_subagent(claude_dir: Path) -> None:
    base = claude_dir / "agent-sessions/subagent"
    _, parent = read(base / f"{PARENT_21}.jsonl")
    assert texts(parent, PARENT_21) == [
        "Delegate a repo search to a subagent",
        "Spawning a subagent.",
    ]
    assert parent[PARENT_21]["parent"] is None
    path = base / PARENT_21 / "subagents/agent-a0ad4f44468bdf20d.jsonl"
    _, mirror = read(path)
    child = f"{PARENT_21}:agent-a0ad4f44468bdf20d"
    assert list(mirror) == [child]
    assert mirror[child]["parent"] == PARENT_21
    meta = json.loads(path.with_name("agent-a0ad4f44468bdf20d.meta.json").read_text())
    assert mirror[child]["meta"]["agent_type"] == meta["agentType"]
    assert texts(mirror) == ["Search the repo for TODO comments", "Searching."]


def test_agent_sessions_small_kitchen_sink(claude_dir: Path) -> None:
    parsed, mirror = read(claude_dir / "agent-sessions/small.jsonl")
    main, side = "ses_stage0_small", "ses_stage0_small:sidechain"
    assert set(mirror) == {main, side}
    # custom-title (from /rename) outranks the ai-title line of the same file; the summary
    # line names a leaf message that is not in the file, so it is only reported.
    assert mirror[main]["title"] == "Stage0 small fixture"
    assert mirror[main]["rank"] == TITLE_USER_GIVEN
    assert mirror[main]["project"] == "/tmp"
    assert mirror[main]["meta"]["model"] != "<synthetic>"
    assert mirror[side]["parent"] == main
    assert texts(mirror, side) == ["Hello", "I'll list files.", "Done.", "Partial reply"]
    assert mirror[main]["msgs"]["a-nested-1"][1] == "Listing the files."
    # The queued prompt typed mid-turn (an attachment in 2.1.x) is the user's.
    assert mirror[main]["msgs"]["att-nested-7"][0] == "user"
    for gone in ("Summary of prior context.", "Reasoning goes here.", "Refused for policy",
                 "doesn't want to proceed", "a.txt\nb.txt"):  # fmt: skip
        assert not contains(mirror, gone), gone
    assert parsed.summaries == [("leaf_stage0", "Claude Code: Context usage summary")]
    assert parsed.skipped == {}  # ~30 line types, all known


def test_agent_sessions_large_and_drift(claude_dir: Path) -> None:
    parsed, mirror = read(claude_dir / "agent-sessions/large.jsonl")
    s = mirror["ses_stage0_large"]
    assert [m[1] for m in s["msgs"].values()] == [
        "Start", "Ok, running.", "Continuing.", "Step 1", "Ok", "Step 2", "Ok", "Step 3", "Ok",
    ]  # fmt: skip
    assert "u2" not in s["msgs"]  # isMeta tool result
    assert s["project"] == "/tmp/large"
    assert s["meta"] == {"git_branch": "main", "agent_version": "2.1.80", "entrypoint": "cli"}
    parsed, mirror = read(claude_dir / "agent-sessions/schema_drift.jsonl")
    assert texts(mirror, "ses_stage0_drift") == [
        "Open README", "Read README and extracted the title.", "List files",
    ]  # fmt: skip
    assert mirror["ses_stage0_drift"]["project"] == "/tmp/project"
    assert parsed.skipped == {}  # top-level tool_use/tool_result lines are known, not errors


def test_claude_code_log_edge_cases(claude_dir: Path) -> None:
    path = claude_dir / "claude-code-log/edge_cases.jsonl"
    parsed, mirror = read(path)
    not_objects = 0
    for raw in path.read_bytes().splitlines():
        if raw.strip() and not isinstance(json.loads(raw), dict):
            not_objects += 1
    assert not_objects == 3 and parsed.skipped[SKIP_NOT_OBJECT] == not_objects
    # `contenst` typo, `"message": "error"`, and `{"silly": "this"}` without a type.
    assert parsed.skipped[SKIP_BAD_SHAPE] == 3
    s = mirror["edge_cases"]
    # The summary titles no part: it is reported with its leaf, a message of this file.
    assert s["title"] is None and [leaf for leaf, _ in parsed.summaries] == ["edge_011"]
    assert parsed.summaries[0][1].startswith("Tested various edge cases")
    assert s["msgs"]["edge_007"][1] == "--verbose --output /tmp/test.log"  # the command's args
    assert s["msgs"]["edge_010"][1] == "wow error"  # a bare string inside a content list
    assert "中文, العربية, русский, 🎉" in s["msgs"]["edge_011"][1]
    assert "edge_006" not in s["msgs"]  # "Caveat: The messages below were generated…"
    assert "edge_008" not in s["msgs"]  # <local-command-stdout>
    for gone in ("Running a test command", "This is the actual command content",
                 "Command output here", "Command not found"):  # fmt: skip
        assert not contains(mirror, gone), gone


def test_claude_code_log_representative_and_reminder(claude_dir: Path) -> None:
    parsed, mirror = read(claude_dir / "claude-code-log/representative_messages.jsonl")
    s = mirror["test_session"]
    [(leaf, summary)] = parsed.summaries
    assert summary.startswith("User learned about Python decorators") and leaf in s["msgs"]
    assert s["msgs"]["msg_001"] == (
        "user",
        "Hello Claude! Can you help me understand how Python decorators work?",
        "2025-06-14T10:00:00Z",
    )
    assert "msg_005" not in s["msgs"] and not contains(mirror, "File created successfully")
    _, mirror = read(claude_dir / "claude-code-log/system_reminder.jsonl")
    s = mirror["system_reminder"]
    first = s["msgs"]["sr_001"][1]
    assert first.startswith("Please review the change.")
    assert first.endswith("The tail content still renders as user text.")
    assert "cwd changed" not in first
    assert "sr_003" not in s["msgs"]  # nothing but a reminder
    assert s["msgs"]["sr_002"][0] == "assistant"


def test_claude_code_transcripts_sample(claude_dir: Path) -> None:
    parsed, mirror = read(claude_dir / "claude-code-transcripts/sample_session.jsonl")
    assert list(mirror) == ["test-session-id"]
    s = mirror["test-session-id"]
    # The summary line names a leaf no file holds: reported, titling nothing.
    assert parsed.summaries == [("test-leaf-uuid", "Test session for JSONL parsing")]
    assert s["title"] is None
    assert s["project"] == "/project" and s["meta"]["git_branch"] == "main"
    assert texts(mirror, "test-session-id", "user") == [
        "Create a hello world function", "Now add a goodbye function",
    ]  # fmt: skip
    assert not contains(mirror, "File written successfully")


# --- incremental reading ------------------------------------------------------


def test_half_written_last_line_waits(claude_dir: Path) -> None:
    path = claude_dir / "claude-code-viewer/sample-project" / f"{VIEWER}.jsonl"
    data = path.read_bytes()
    last_start = data.rstrip(b"\n").rfind(b"\n") + 1
    last_uuid = json.loads(data[last_start:])["uuid"]
    cut = last_start + (len(data) - last_start) // 2
    first = ADAPTER.parse(path, data[:cut], 0, {})
    assert first.offset == last_start and first.skipped == {}
    assert all(m.key != last_uuid for p in first.parts for m in p.messages)
    rest = ADAPTER.parse(path, data[first.offset :], first.offset, first.state)
    assert rest.offset == len(data) - first.offset
    assert apply(apply({}, first), rest) == read(path)[1]


def test_title_before_session_id_waits_in_state(tmp_path: Path) -> None:
    data = jsonl({"type": "ai-title", "aiTitle": "Old title"},
                 {"type": "file-history-snapshot", "messageId": "m"},
                 user("hi", "u1", sid="REAL"))  # fmt: skip
    path = tmp_path / "weird-name.jsonl"
    for cut in (0, *newline_cuts(data)):
        mirror, _ = read_pieces(path, data, [cut] if cut else [])
        assert list(mirror) == ["REAL"] and mirror["REAL"]["title"] == "Old title"


def test_keys_without_uuid_use_file_offsets(tmp_path: Path) -> None:
    a = {"type": "user", "sessionId": "S", "message": {"content": "first"}}
    b = {"type": "assistant", "sessionId": "S", "message": {"content": [{"type": "text", "text": "second"}]}}  # fmt: skip
    data = jsonl(a, b)
    path = tmp_path / "S.jsonl"
    mirror, _ = read_pieces(path, data, [data.index(b"\n") + 1])
    second_at = data.index(b"\n") + 1
    assert mirror["S"]["msgs"] == {"S@0": ("user", "first", None),
                                   f"S@{second_at}": ("assistant", "second", None)}  # fmt: skip


def test_first_cwd_is_the_project_even_across_reads(tmp_path: Path) -> None:
    data = jsonl(user("a", "u1", cwd="/repo"), user("b", "u2", cwd="/repo/sub"))
    path = tmp_path / "S.jsonl"
    for cuts in ([], newline_cuts(data)):
        assert read_pieces(path, data, cuts)[0]["S"]["project"] == "/repo"


# --- scaffolding --------------------------------------------------------------


@pytest.mark.parametrize(
    "content",
    [
        "<command-message>foo</command-message>\n<command-name>/foo</command-name>",
        "<command-name>/model</command-name>\n<command-message>model</command-message>\n"
        "<command-args></command-args>",
        "<local-command-stdout>Set model to opus</local-command-stdout>",
        "<local-command-stderr>boom</local-command-stderr>",
        "<local-command-caveat>Caveat: The messages below were generated by the user while "
        "running local commands. DO NOT respond</local-command-caveat>",
        "Caveat: The messages below were generated by the user while running local commands.",
        "<bash-input>git status</bash-input>",
        "<bash-stdout>On branch main</bash-stdout><bash-stderr></bash-stderr>",
        "[Request interrupted by user]",
        [{"type": "text", "text": "[Request interrupted by user for tool use]"}],
        "<system-reminder>only a reminder</system-reminder>",
        "<task-notification><task-id>b1</task-id><status>completed</status></task-notification>"
        "\nRead the output file to retrieve the result: /tmp/b1.output",
        [{"type": "tool_result", "tool_use_id": "t", "content": "tool says hi"}],
        [{"type": "image", "source": {"type": "base64", "data": "AAAA"}}],
        "   \n  ",
    ],
)
def test_scaffolding_is_not_a_turn(content: Any) -> None:
    mirror = parse_bytes(jsonl(user(content, "u1"), assistant("real answer", "a1")))
    assert list(mirror["S"]["msgs"]) == ["a1"]


def test_slash_command_keeps_its_arguments() -> None:
    line = ("<command-message>foo</command-message><command-name>/foo</command-name>"
            "<command-args>fix the bug</command-args>")  # fmt: skip
    mirror = parse_bytes(jsonl(user(line, "u1")))
    assert texts(mirror) == ["fix the bug"]


def test_prompts_that_mention_tags_are_kept() -> None:
    said = "Drop <bash-input>ls</bash-input> wrappers? And [Request interrupted by user] markers?"
    reminder = "Before <system-reminder>secret</system-reminder> after"
    mixed = ["bare", {"type": "text", "text": "block"}, 7, None]
    mirror = parse_bytes(jsonl(user(said, "u1"), user(reminder, "u2"), user(mixed, "u3")))
    assert texts(mirror) == [said, "Before  after", "bare\n\nblock"]


def test_claude_code_own_assistant_lines_are_dropped() -> None:
    mirror = parse_bytes(jsonl(
        assistant("No response requested.", "a1", model="<synthetic>"),
        assistant("API Error: 401", "a2", isApiErrorMessage=True),
        assistant([{"type": "thinking", "thinking": "hmm"}, {"type": "text", "text": "ok"}], "a3"),
    ))  # fmt: skip
    assert mirror["S"]["msgs"] == {"a3": ("assistant", "ok", None)}
    assert mirror["S"]["meta"]["model"] == "m1"


def test_queued_prompts_are_kept_task_news_is_not() -> None:
    def queued(uuid: str, **attachment: Any) -> dict[str, Any]:
        return {"type": "attachment", "sessionId": "S", "uuid": uuid,
                "attachment": {"type": "queued_command", **attachment}}  # fmt: skip

    mirror = parse_bytes(jsonl(
        queued("q1", prompt="no, use postgres", commandMode="prompt", origin={"kind": "human"}),
        queued("q2", prompt=[{"type": "text", "text": "with image"}], commandMode="prompt"),
        queued("q3", prompt="<task-notification>done</task-notification>",
               commandMode="task-notification"),
        queued("q4", prompt="from a peer", commandMode="prompt", origin={"kind": "peer"}),
        queued("q5", prompt="hidden", commandMode="prompt", isMeta=True),
        {"type": "attachment", "sessionId": "S", "attachment": {"type": "nested_memory"}},
    ))  # fmt: skip
    assert {k: v[1] for k, v in mirror["S"]["msgs"].items()} == {
        "q1": "no, use postgres", "q2": "with image", "q4": "from a peer",
    }  # fmt: skip


def test_titles_by_rank_then_last() -> None:
    data = jsonl({"type": "custom-title", "sessionId": "S", "customTitle": "Mine"},
                 {"type": "ai-title", "sessionId": "S", "aiTitle": "AI one"},
                 user("q", "u1"))  # fmt: skip
    assert parse_bytes(data)["S"]["title"] == "Mine"
    data = jsonl({"type": "ai-title", "sessionId": "S", "aiTitle": "AI one"},
                 {"type": "ai-title", "sessionId": "S", "aiTitle": "AI two"})  # fmt: skip
    assert (parse_bytes(data)["S"]["title"], parse_bytes(data)["S"]["rank"]) == (
        "AI two", TITLE_AGENT,
    )  # fmt: skip


# --- sub-agent layouts --------------------------------------------------------


def test_sub_agent_layouts(tmp_path: Path) -> None:
    line = user("task", "u1", sid="P", isSidechain=True)
    wf = tmp_path / "proj/P/subagents/workflows/wf1/agent-z9.jsonl"
    assert list(parse_bytes(jsonl(line), wf.name, wf.parent)) == ["P:agent-z9"]
    assert parse_bytes(jsonl(line), "agent-x1.jsonl", tmp_path)["P:agent-x1"]["parent"] == "P"
    orphan = parse_bytes(jsonl(user("task", "u1", sid="agent-x2")), "agent-x2.jsonl", tmp_path)
    assert list(orphan) == ["agent-x2"] and orphan["agent-x2"]["parent"] is None
    inline = parse_bytes(jsonl(user("main", "u0", sid="P"), user("t", "u1", sid="P",
                                isSidechain=True, agentId="abc")), "P.jsonl", tmp_path)  # fmt: skip
    assert inline["P:agent-abc"]["parent"] == "P" and texts(inline, "P") == ["main"]


def test_same_uuid_in_two_files_gives_the_same_key(tmp_path: Path) -> None:
    line = user("copied", "shared-uuid", sid="A")
    first = parse_bytes(jsonl(line), "A.jsonl", tmp_path)
    second = parse_bytes(jsonl({**line, "sessionId": "B"}, user("new", "u9", sid="B")), "B.jsonl")
    assert "shared-uuid" in first["A"]["msgs"] and "shared-uuid" in second["B"]["msgs"]


# --- bad input ----------------------------------------------------------------


@pytest.mark.parametrize(
    "data",
    [b"", b"\n\n\n", b"\x00\x01\x02", b'"a string"\n[1, 2]\n42\nnull\n', b"{not json\n",
     b'{"type": "user", "message": {"content": "half', b"\xff\xfe\xfd\n"],
)  # fmt: skip
def test_junk_gives_no_messages(data: bytes) -> None:
    parsed = ADAPTER.parse(Path("S.jsonl"), data, 0, {})
    assert not any(p.messages for p in parsed.parts)
    assert parsed.offset == data.rfind(b"\n") + 1


def test_random_bytes_never_raise() -> None:
    rng = random.Random(1234)
    for _ in range(200):
        data = bytes(rng.choice(b'{}[]":,\n\x00\xff\xc3abtype user') for _ in range(300))
        parsed = ADAPTER.parse(Path("S.jsonl"), data, 0, {"sid": 5, "pending": "x", "proj": 3})
        json.dumps(parsed.state)


def test_wrong_shapes_are_counted_not_raised() -> None:
    lines: list[dict[str, Any] | str] = [
        {"type": "user", "message": "text"},
        {"type": "user", "message": {"content": None}},
        {"type": 3},
        {"type": "brand-new-type", "sessionId": "S"},
        {"type": "user", "sessionId": 5, "uuid": 7, "timestamp": 8, "cwd": ["x"],
         "isSidechain": "yes",
         "message": {"model": 3, "content": [{"type": "text", "text": 5}, ["nested"], "ok"]}},
        {"type": "summary", "summary": {"not": "text"}},
        {"type": "attachment", "attachment": "x"},
    ]  # fmt: skip
    data = jsonl(*lines) + b"\xff\n"
    parsed = ADAPTER.parse(Path("S.jsonl"), data, 0, {})
    assert parsed.skipped == {SKIP_BAD_SHAPE: 3, SKIP_UNKNOWN: 1, SKIP_BAD_UTF8: 1}
    mirror = apply({}, parsed)
    assert texts(mirror) == ["ok"] and mirror["S"]["project"] is None


def test_lone_surrogates_become_replacement_characters() -> None:
    # JavaScript cut an emoji in half: valid JSON, but not encodable as UTF-8.
    raw = (b'{"type":"user","sessionId":"S","cwd":"/w\\udc80","uuid":"u1","message":'
           b'{"content":[{"type":"text","text":"half \\ud83d emoji"}, "<x>\\ud83d"]}}\n'
           b'{"type":"ai-title","sessionId":"S","aiTitle":"t\\udfff"}\n')  # fmt: skip
    mirror = apply({}, ADAPTER.parse(Path("S.jsonl"), raw, 0, {}))
    assert texts(mirror) == ["half \ufffd emoji\n\n<x>\ufffd"]
    assert (mirror["S"]["project"], mirror["S"]["title"]) == ("/w\ufffd", "t\ufffd")
    stem = Path("/tmp") / "bad-\udcff.jsonl"  # an undecodable file name
    assert list(apply({}, ADAPTER.parse(stem, jsonl(user("hi", "u1", sid=5)), 0, {}))) == [
        "bad-\ufffd"
    ]


def test_a_50_mb_tool_result_line() -> None:
    big = user([{"type": "tool_result", "tool_use_id": "t", "content": "x" * 50_000_000}], "u1")
    data = jsonl(user("run it", "u0"), big, assistant("it ran", "a1"))
    mirror = apply({}, ADAPTER.parse(Path("S.jsonl"), data, 0, {}))
    assert texts(mirror) == ["run it", "it ran"]


# --- discovery and ownership --------------------------------------------------


def test_discover(tmp_path: Path) -> None:
    files = ["p/S.jsonl", "p/S/subagents/agent-a.jsonl", "p/S/subagents/workflows/w/agent-b.jsonl",
             "p/agent-c.jsonl", "p/S/tool-results/big.jsonl", "p/S/subagents/agent-a.meta.json",
             "p/notes.txt"]  # fmt: skip
    for f in files:
        (tmp_path / f).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / f).write_text("{}\n")
    found = [p.relative_to(tmp_path).as_posix() for p in ADAPTER.discover(tmp_path)]
    # Sessions first, then sub-agents; each group in path order.
    assert found == ["p/S.jsonl", "p/S/subagents/agent-a.jsonl",
                     "p/S/subagents/workflows/w/agent-b.jsonl", "p/agent-c.jsonl"]  # fmt: skip
    assert list(ADAPTER.discover(tmp_path / "missing")) == []


def test_owns(tmp_path: Path, claude_dir: Path) -> None:
    for name in FIXTURES:
        assert ADAPTER.owns(claude_dir / name)
    claude = tmp_path / "c.jsonl"
    claude.write_text("\n" + json.dumps(user("hi", "u1")) + "\n")
    codex = tmp_path / "rollout.jsonl"
    codex.write_text('{"timestamp":"t","type":"session_meta","payload":{"id":"x"}}\n')
    gemini = tmp_path / "session.jsonl"
    gemini.write_text('{"sessionId":"s","projectHash":"h","startTime":"t"}\n'
                      '{"id":"1","type":"user","content":"hi"}\n')  # fmt: skip
    plain = tmp_path / "import.jsonl"
    plain.write_text('{"session":"s","role":"user","text":"hi"}\n')
    junk = tmp_path / "junk.jsonl"
    junk.write_bytes(b"\xff\x00garbage")
    assert ADAPTER.owns(claude)
    for other in (codex, gemini, plain, junk, tmp_path / "missing.jsonl", tmp_path):
        assert not ADAPTER.owns(other), other
    assert ADAPTER.owns(Path("/home/u/.claude/projects/-home-u-x/abc.jsonl"))
    assert not ADAPTER.owns(Path("/home/u/.claude/history.jsonl"))


def test_default_roots(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", f"{tmp_path}/a, {tmp_path}/b,")
    assert ADAPTER.default_roots() == [tmp_path / "a/projects", tmp_path / "b/projects"]
    monkeypatch.delenv("CLAUDE_CONFIG_DIR")
    monkeypatch.setenv("HOME", str(tmp_path))
    assert ADAPTER.default_roots() == [tmp_path / ".claude/projects",
                                       tmp_path / ".config/claude/projects"]  # fmt: skip
    assert ADAPTER.name == "claude" and ADAPTER.incremental is True
