"""`recall mcp` driven by the official MCP SDK's stdio client, as an agent drives it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from mcphelp import SERVER, server_env

mcp = pytest.importorskip("mcp", reason="the MCP SDK comes with recall's dev extra")
anyio = pytest.importorskip("anyio")

from mcp import ClientSession, StdioServerParameters  # noqa: E402
from mcp.client.stdio import stdio_client  # noqa: E402


def _session(calls: list[tuple[str, dict[str, Any]]]) -> tuple[Any, Any, list[Any]]:
    """Initialize, list the tools, make each call in turn: (init result, tools, results)."""

    async def go() -> tuple[Any, Any, list[Any]]:
        params = StdioServerParameters(command=SERVER[0], args=SERVER[1:], env=server_env())
        with open(Path.home() / "mcp-stderr.log", "w") as errlog:
            async with (
                stdio_client(params, errlog=errlog) as (read, write),
                ClientSession(read, write) as session,
            ):
                init = await session.initialize()
                tools = await session.list_tools()
                results = [await session.call_tool(name, args) for name, args in calls]
        return init, tools, results

    return anyio.run(go)


def _json(result: Any) -> Any:
    assert not result.is_error, result.content[0].text
    return json.loads(result.content[0].text)


def test_initialize_and_list_the_tools(indexed: Path) -> None:
    init, tools, _ = _session([])
    assert init.server_info.name == "recall"
    assert init.protocol_version == "2025-11-25"  # the SDK's newest handshake version
    names = [t.name for t in tools.tools]
    assert names == ["search_history", "show_session", "remember", "search_memories"]
    search = next(t for t in tools.tools if t.name == "search_history")
    assert search.input_schema["required"] == ["query"]
    assert list(search.input_schema["properties"]) == [
        "query", "scope", "mode", "since", "until", "limit", "agent", "project", "team",
    ]  # the CLI's names  # fmt: skip
    assert search.input_schema["properties"]["scope"]["enum"] == [
        "all", "sessions", "memories", "daily", "files",
    ]  # fmt: skip
    for task in ("what did we decide", "find the earlier session where", "past transcripts"):
        assert task in search.description
    show = next(t for t in tools.tools if t.name == "show_session")
    assert show.input_schema["required"] == ["session_id"]  # the name search_history returns


def test_search_history_returns_messages_as_the_cli_does(
    indexed: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from clihelp import call

    _, _, (found, only_gemini, dated) = _session(
        [
            ("search_history", {"query": "retry", "limit": 5}),
            ("search_history", {"query": "retry", "agent": "gemini"}),
            ("search_history", {"query": "retry", "since": "2026-04-01", "until": "2026-04-20"}),
        ]
    )
    got = _json(found)
    code, out, _ = call(capsys, "search", "retry", "--messages", "--limit", "5", "--json")
    assert code == 0
    assert got == json.loads(out)  # the same results, the same encoding
    assert {r["session_id"] for r in got["results"]} == {"pay-1", "web-2"}
    assert all(isinstance(r["message_index"], int) and r["date"] for r in got["results"])
    assert found.structured_content == got
    assert {r["agent"] for r in _json(only_gemini)["results"]} == {"gemini"}
    assert [r["session_id"] for r in _json(dated)["results"]] == ["web-2"]  # date_to is inclusive


def test_show_session_pages_a_long_session(indexed: Path) -> None:
    pages: list[dict[str, Any]] = []
    start: int | None = 0
    while start is not None and len(pages) < 50:
        _, _, (page,) = _session([("show_session", {"session_id": "long-3", "start": start})])
        assert len(page.content[0].text) <= 12_000  # ~3k tokens, far under the ~25k cap
        pages.append(_json(page))
        start = pages[-1]["next_start"]
    assert len(pages) > 3
    indexes = [m["message_index"] for p in pages for m in p["messages"]]
    assert indexes == list(range(240))  # every message once, in order
    assert pages[0]["message_count"] == 240 and pages[-1]["next_start"] is None


def test_validation_errors_are_tool_errors_in_the_seeds_words(indexed: Path) -> None:
    _, _, results = _session(
        [
            ("search_history", {"query": "  "}),
            ("search_history", {"query": "retry", "scope": "everything"}),
            ("search_history", {"query": "retry", "date_from": "01/02/2026"}),
            ("search_history", {"query": "retry", "date_to": "2026-13-45"}),
            ("search_history", {"query": "retry", "agent": "windsurf"}),
            ("show_session", {"session_id": "nope"}),
            ("search_history", {"query": "retry", "max_results": 500}),
        ]
    )
    texts = [r.content[0].text for r in results[:6]]
    assert all(r.is_error for r in results[:6])
    assert texts[0] == "Parameter 'query' is required and cannot be empty"
    assert texts[1] == (
        "Invalid scope 'everything'. Must be one of: all, sessions, memories, daily, files"
    )
    assert texts[2] == (
        "Parameter 'since' must be a date (YYYY-MM-DD), today, yesterday or an age such as 7d:"
        " 01/02/2026"
    )
    assert texts[3] == "Invalid date: 2026-13-45"
    assert "unknown agent 'windsurf'" in texts[4]
    assert texts[5] == "no session matches 'nope'"
    assert not results[6].is_error  # max_results is clamped to 50, as seed 000 does


def test_remember_then_search_finds_it_in_the_next_call(indexed: Path) -> None:
    _, _, results = _session(
        [
            ("remember", {"text": "User prefers kafka retries capped at six", "importance": 8}),
            ("search_memories", {"query": "kafka retries"}),
            ("search_history", {"query": "kafka retry", "scope": "memories"}),
            ("search_history", {"query": "kafka retry", "scope": "sessions"}),
            ("search_memories", {"query": "kafka", "category": "gossip"}),
            ("remember", {"text": "x", "importance": 11}),
        ]
    )
    kept = _json(results[0])
    assert kept["category"] == "fact" and kept["importance"] == 8 and not kept["merged"]
    found = _json(results[1])
    assert found["found"] == 1
    assert found["memories"][0]["content"] == "User prefers kafka retries capped at six"
    assert found["memories"][0]["id"] == kept["id"]
    assert [r["source"] for r in _json(results[2])["results"]] == ["memory"]
    assert {r["source"] for r in _json(results[3])["results"]} == {"session"}
    assert results[4].is_error and "Invalid category 'gossip'" in results[4].content[0].text
    assert results[5].is_error and "importance must be 1 to 10" in results[5].content[0].text


def test_an_agent_reads_around_a_result_with_the_names_search_returns(indexed: Path) -> None:
    """search_history → show_session with the result's own keys: the matched message and a
    few neighbours, small; whole pages only when start is passed."""
    _, _, (found,) = _session([("search_history", {"query": "ledger migration", "limit": 1})])
    hit = _json(found)["results"][0]
    assert hit["session_id"] == "long-3"
    _, _, (around, wide, legacy, printed, paged) = _session(
        [
            ("show_session", {"session_id": "long-3", "message_index": 120}),
            ("show_session", {"session_id": "long-3", "message_index": 120, "window": 50}),
            ("show_session", {"session": "long-3", "message_index": 120}),  # the old name
            ("show_session", {"session_id": "long-3 #120"}),  # as `search --messages` prints
            ("show_session", {"session_id": "long-3", "start": 0}),
        ]
    )
    got = _json(around)
    assert [m["message_index"] for m in got["messages"]] == list(range(117, 124))
    assert got["message_index"] == 120 and got["next_start"] == 124
    assert got["messages"][3]["text"].startswith("step 120: ")
    assert len(around.content[0].text) <= 12_000
    big = _json(wide)  # at most 20 on each side, cut to fit a few thousand tokens
    assert [m["message_index"] for m in big["messages"]] == list(range(100, 141))
    assert len(wide.content[0].text) <= 12_000
    assert "more characters" in big["messages"][0]["text"]
    assert big["messages"][20]["text"] == got["messages"][3]["text"]  # the match kept whole
    assert _json(legacy) == got and _json(printed) == got
    page = _json(paged)
    assert page["start"] == 0 and page["messages"][0]["message_index"] == 0
    assert len(page["messages"]) > 7 and "more characters" not in page["messages"][0]["text"]


def test_unknown_arguments_are_tool_errors_listing_the_valid_ones(indexed: Path) -> None:
    _, _, results = _session(
        [
            ("search_history", {"query": "retry", "max_result": 2}),
            ("show_session", {"session_id": "pay-1", "page": 2}),
            ("search_memories", {"query": "x", "scope": "all"}),
            ("search_history", {"query": "retry", "limit": 2, "max_results": 3}),
        ]
    )
    assert all(r.is_error for r in results)
    assert results[0].content[0].text == (
        "Unknown parameter 'max_result' for search_history. Valid parameters: query, scope,"
        " mode, since, until, limit, agent, project, team"
    )
    assert results[1].content[0].text == (
        "Unknown parameter 'page' for show_session. Valid parameters: session_id,"
        " message_index, window, start, agent, computer"
    )
    assert "Valid parameters: query, category, limit" in results[2].content[0].text
    assert "given twice" in results[3].content[0].text


def test_limits_dates_and_the_older_names_are_honoured(indexed: Path) -> None:
    """limit changes how many come back (it was once silently ignored); seed 000's names
    (max_results, date_from, date_to, memory, daily_log) still work."""
    _, _, (one, five, old, since, old_scope) = _session(
        [
            ("search_history", {"query": "migration ledger", "limit": 1}),
            ("search_history", {"query": "migration ledger", "limit": 5}),
            (
                "search_history",
                {
                    "query": "retry",
                    "max_results": 1,
                    "date_from": "2026-04-01",
                    "date_to": "2026-04-20",
                },
            ),
            ("search_history", {"query": "retry", "since": "2026-04-21"}),
            ("search_history", {"query": "retry", "scope": "daily_log"}),
        ]
    )
    assert len(_json(one)["results"]) == 1 and len(_json(five)["results"]) == 5
    assert len(one.content[0].text) < len(five.content[0].text) < 9_000
    assert [r["session_id"] for r in _json(old)["results"]] == ["web-2"]
    assert _json(since)["results"] == []
    assert not old_scope.is_error
