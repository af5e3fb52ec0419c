"""The same question through every surface gets the same answer (issue 20).

`recall search`, the MCP tool `search_history`, the daemon's search route and
`recall context` build one `SearchRequest` each and call one engine: a date
means the same (`--until DAY` and `date_to` include that whole day, `--since
yesterday --until yesterday` is yesterday), a project is normalised alike, and
the results are the same results.
"""

from __future__ import annotations

import json
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from clihelp import call, call_json
from recall.mcp.history import search_history
from recall.peers.protocol import parse_search, search_params
from recall.search.request import SearchRequest, when
from recall.serve import routes


def _local(day: datetime, hour: int, minute: int = 0) -> str:
    """An ISO time at `hour:minute` on `day` in this computer's zone (what a user's day is)."""
    return day.replace(hour=hour, minute=minute, second=0, microsecond=0).astimezone().isoformat()


@pytest.fixture
def dated(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> dict[str, str]:
    """Four sessions about the ledger: late on 2026-01-31, on 2026-02-01, late yesterday,
    and today, all in one project. Returns their session ids by name."""
    yesterday = datetime.now() - timedelta(days=1)
    when_ = {
        "jan31": _local(datetime(2026, 1, 31), 23, 30),
        "feb01": _local(datetime(2026, 2, 1), 0, 30),
        "yesterday": _local(yesterday, 23, 50),
        "today": _local(datetime.now(), 0, 5),
    }
    project = str(tmp_path / "ledgerapp")
    lines = [
        json.dumps(
            {
                "session": name,
                "role": "user",
                "text": f"ledger rounding fix ({name})",
                "timestamp": stamp,
                "project": project,
            }
        )
        for name, stamp in when_.items()
    ]
    src = tmp_path / "dated.jsonl"
    src.write_text("\n".join(lines) + "\n", encoding="utf-8")
    assert call(capsys, "ingest", "--format", "jsonl", str(src))[0] == 0
    return {**{n: n for n in when_}, "project": project}


def _ids(results: list[dict[str, Any]]) -> list[str]:
    return [r["session_id"] for r in results]


def _cli(capsys: pytest.CaptureFixture[str], *flags: str) -> list[str]:
    return _ids(call_json(capsys, "search", "ledger rounding", "--json", *flags)["results"])


def _route(**params: str) -> list[str]:
    data = routes.search({"q": ["ledger rounding"], **{k: [v] for k, v in params.items()}})
    return _ids(data["results"])


def test_until_a_day_includes_that_day_on_every_surface(
    dated: dict[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    cli = _cli(capsys, "--until", "2026-01-31", "--messages")
    assert cli == ["jan31"]  # 23:30 on the 31st is on the 31st
    mcp = _ids(search_history({"query": "ledger rounding", "until": "2026-01-31"})["results"])
    assert mcp == cli
    assert _route(until="2026-01-31", messages="1") == cli  # a day on the wire
    sent = parse_search(
        dict_of(search_params(SearchRequest(text="x", until=when("2026-01-31", end=True))))
    )
    assert _route(until=repr(sent.until), messages="1") == cli  # what a recall sends
    since = _cli(capsys, "--since", "2026-02-01", "--until", "2026-02-01", "--messages")
    assert since == ["feb01"]
    mcp = search_history({"query": "ledger rounding", "since": "2026-02-01", "until": "2026-02-01"})
    assert _ids(mcp["results"]) == since == _route(since="2026-02-01", until="2026-02-01")


def test_since_yesterday_until_yesterday_finds_yesterday(
    dated: dict[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert _cli(capsys, "--since", "yesterday", "--until", "yesterday") == ["yesterday"]
    day = (datetime.now() - timedelta(days=1)).strftime("%Y-%m-%d")
    mcp = search_history({"query": "ledger rounding", "since": day, "until": day})
    assert _ids(mcp["results"]) == ["yesterday"]
    assert _route(since="yesterday", until="yesterday") == ["yesterday"]
    assert _cli(capsys, "--since", "today") == ["today"]


def test_one_project_normaliser_for_every_surface(
    dated: dict[str, str], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    project = Path(dated["project"])
    project.mkdir()
    monkeypatch.chdir(project)
    everything = sorted(_cli(capsys))
    assert len(everything) == 4
    assert sorted(_cli(capsys, "--project", ".")) == everything
    assert sorted(_cli(capsys, "--project", f"{project}/")) == everything  # trailing slash
    mcp = search_history({"query": "ledger rounding", "project": "."})
    assert sorted(_ids(mcp["results"])) == everything
    mcp = search_history({"query": "ledger rounding", "project": f"{project}/"})
    assert sorted(_ids(mcp["results"])) == everything
    assert sorted(_route(project=f"{project}/")) == everything
    monkeypatch.chdir(project.parent)
    assert _cli(capsys, "--project", "./nowhere") == []
    assert _ids(search_history({"query": "ledger", "project": "./nowhere"})["results"]) == []


def test_the_same_question_gets_the_same_results_everywhere(
    dated: dict[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    from recall.context.gather import matching

    call(capsys, "remember", "ledger rounding uses banker's rounding", "-i", "6")
    cli = call_json(capsys, "search", "ledger rounding", "--json", "--messages", "-n", "10")
    mcp = search_history({"query": "ledger rounding", "limit": 10})
    route = routes.search({"q": ["ledger rounding"], "messages": ["1"]})
    assert mcp["results"] == cli["results"] == route["results"]
    # context asks the prompt's words, keyword only, by message: the same ranking
    by_words = call_json(
        capsys, "search", "ledger rounding", "--json", "--messages", "--mode", "keyword"
    )
    facts = matching("ledger rounding", 4, None)
    assert len(facts.excerpts) == 4
    wanted = by_words["results"][:4]
    for line, r in zip(facts.excerpts, wanted, strict=True):
        assert (r["session_id"] or r.get("memory_id") or "x") in line or "remembered" in line


def dict_of(params: list[tuple[str, str]]) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for name, value in params:
        out.setdefault(name, []).append(value)
    return out


def test_a_request_round_trips_the_wire() -> None:
    request = SearchRequest(
        text="ledger -draft",
        scope="memories",
        mode="keyword",
        fusion="weighted",
        decay=0.01,
        agents=["claude"],
        project="/srv/app",
        since=when("2026-01-01"),
        until=when("2026-01-31", end=True),
        limit=7,
        messages=True,
    )
    assert parse_search(dict_of(search_params(request))) == request
    assert request.until is not None and request.since is not None
    assert request.until - when("2026-01-31") == pytest.approx(86400 - 0.001, abs=3600)
