"""docs/openapi.json describes the running daemon: its routes, parameters, statuses and bodies."""

from __future__ import annotations

import json
from typing import Any

import pytest

from daemons import Daemon, get, serve_one
from paths import REPO
from recall.peers.protocol import HEALTH, MIRRORS, SEARCH, SEARCH_PARAMS

SPEC = json.loads((REPO / "docs" / "openapi.json").read_text(encoding="utf-8"))
TYPES: dict[str, Any] = {
    "object": dict,
    "array": list,
    "string": str,
    "boolean": bool,
    "null": type(None),
    "integer": int,
    "number": (int, float),
}


def _resolve(node: dict[str, Any]) -> dict[str, Any]:
    while "$ref" in node:
        target: Any = SPEC
        for part in node["$ref"].removeprefix("#/").split("/"):
            target = target[part]
        node = target
    return node


def conforms(value: Any, schema: dict[str, Any], where: str = "$") -> None:
    """The subset of JSON Schema the spec uses: type, required, properties, items, enum."""
    schema = _resolve(schema)
    kinds = schema.get("type")
    if kinds is not None:
        kinds = [kinds] if isinstance(kinds, str) else kinds
        ok = any(
            isinstance(value, TYPES[k])
            and not (k in ("integer", "number") and isinstance(value, bool))
            for k in kinds
        )
        assert ok, f"{where}: {value!r} is not {kinds}"
    if "enum" in schema:
        assert value in schema["enum"], f"{where}: {value!r} not in {schema['enum']}"
    if isinstance(value, dict):
        for name in schema.get("required", []):
            assert name in value, f"{where}: missing {name}"
        for name, sub in schema.get("properties", {}).items():
            if name in value:
                conforms(value[name], sub, f"{where}.{name}")
        undocumented = set(value) - set(schema.get("properties", value))
        assert not undocumented, f"{where}: undocumented fields {sorted(undocumented)}"
    if isinstance(value, list) and "items" in schema:
        for n, item in enumerate(value):
            conforms(item, schema["items"], f"{where}[{n}]")


@pytest.fixture(scope="module")
def daemon(tmp_path_factory: pytest.TempPathFactory) -> Any:
    root = tmp_path_factory.mktemp("openapi")
    records = [
        {
            "session": "s1",
            "role": "user",
            "text": "hello openapi",
            "timestamp": "2026-03-01T10:00:00+00:00",
        },
        {"session": "s1", "role": "assistant", "text": "hello back"},
    ]
    d = serve_one(root, "box", records)
    yield d
    d.stop()


@pytest.mark.core_free
def test_the_spec_names_exactly_the_routes_and_search_parameters() -> None:
    assert set(SPEC["paths"]) == {
        HEALTH,
        SEARCH,
        MIRRORS + "{session_id}",
        MIRRORS + "{session_id}/transcript",
    }
    params = {p["name"] for p in SPEC["paths"][SEARCH]["get"]["parameters"]}
    assert params == SEARCH_PARAMS
    assert all(list(item) == ["get"] for item in SPEC["paths"].values())
    from recall.search.request import FUSIONS, MODES, SCOPES

    listed = {p["name"]: p for p in SPEC["paths"][SEARCH]["get"]["parameters"]}
    assert tuple(listed["scope"]["schema"]["enum"]) == SCOPES
    assert tuple(listed["mode"]["schema"]["enum"]) == MODES
    assert tuple(listed["fusion"]["schema"]["enum"]) == FUSIONS


def _check(d: Daemon, route: str, path: str, token: str | None, **headers: str) -> int:
    status, reply = get(d.port, path, token, headers)
    assert status is not None
    documented = SPEC["paths"][route]["get"]["responses"]
    assert str(status) in documented, (path, status)
    head, _, body = reply.partition(b"\r\n\r\n")
    assert b"\r\nRecall-API: 1\r\n" in head
    content = documented[str(status)].get("content", {})
    if "application/json" in content:
        assert b"Content-Type: application/json" in head
        conforms(json.loads(body), content["application/json"]["schema"])
    elif content:
        assert b"Content-Type: application/octet-stream" in head and body
    return status


def test_every_answer_of_the_running_daemon_fits_the_spec(daemon: Daemon) -> None:
    t = daemon.token
    assert _check(daemon, HEALTH, HEALTH, None) == 200
    assert _check(daemon, HEALTH, HEALTH, t) == 200
    assert _check(daemon, SEARCH, SEARCH + "?q=hello", t) == 200
    assert (
        _check(daemon, SEARCH, SEARCH + "?q=hello&messages=1&marks=1&limit=3&mode=keyword", t)
        == 200
    )
    assert _check(daemon, SEARCH, SEARCH + "?q=hello&agent=import&since=0&decay=0.01", t) == 200
    assert _check(daemon, SEARCH, SEARCH + "?q=hello&scope=sessions", t) == 200
    assert _check(daemon, SEARCH, SEARCH + "?q=hello&scope=everything", t) == 400
    mirror, transcript = MIRRORS + "{session_id}", MIRRORS + "{session_id}/transcript"
    assert _check(daemon, mirror, MIRRORS + "s1", t) == 200
    assert _check(daemon, transcript, MIRRORS + "s1/transcript", t) == 200
    for route, path in (
        (SEARCH, SEARCH + "?q=x"),
        (mirror, MIRRORS + "s1"),
        (transcript, MIRRORS + "s1/transcript"),
    ):
        assert _check(daemon, route, path, None) == 401
        assert _check(daemon, route, path, t, Origin="http://evil") == 403
    assert _check(daemon, SEARCH, SEARCH + "?q=x&bogus=1", t) == 400
    assert _check(daemon, mirror, MIRRORS + "nosuch", t) == 404
    assert _check(daemon, transcript, MIRRORS + "nosuch/transcript", t) == 404
    assert _check(daemon, mirror, MIRRORS + "s1", t, **{"Recall-API": "7"}) == 400
