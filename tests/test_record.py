"""`recall.record`: the plain records that replaced msgspec Structs on the hook path."""

from __future__ import annotations

import json
import re
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from recall.record import ConversionError, Record, asdict, convert, field, replace, to_builtins


class Point(Record, frozen=True):
    x: int
    y: int = 0


class Bag(Record):
    name: str
    items: list[str] = field(default_factory=list)
    where: Point | None = None


class Settings(Record):
    label: str | None = None
    ratio: float = 1.0
    on: bool = True
    tags: list[str] = field(default_factory=list)
    bags: dict[str, Bag] = field(default_factory=dict)


def test_construction_defaults_and_fresh_factories() -> None:
    a, b = Bag("a"), Bag(name="b", items=["x"])
    a.items.append("mine")
    assert Bag("c").items == [] and b.items == ["x"] and a.items == ["mine"]
    assert Point(1) == Point(1, 0) and Point(1) != Point(2)
    assert repr(Point(3, 4)) == "Point(x=3, y=4)"


def test_frozen_records_are_immutable_and_hashable() -> None:
    p = Point(1, 2)
    with pytest.raises(AttributeError):
        p.x = 5  # type: ignore[misc]
    assert {p: "here"}[Point(1, 2)] == "here"
    with pytest.raises(TypeError):
        hash(Bag("mutable"))


def test_replace_asdict_and_to_builtins() -> None:
    bag = Bag("a", ["x"], Point(1, 2))
    moved = replace(bag, where=Point(5))
    assert moved.where == Point(5, 0) and bag.where == Point(1, 2) and moved.items == ["x"]
    assert asdict(bag) == {"name": "a", "items": ["x"], "where": Point(1, 2)}
    assert to_builtins([bag]) == [{"name": "a", "items": ["x"], "where": {"x": 1, "y": 2}}]


def test_convert_builds_nested_records() -> None:
    got = convert(
        {"label": "l", "ratio": 2, "tags": ["t"], "bags": {"k": {"name": "n", "where": {"x": 1}}}},
        Settings,
    )
    assert got == Settings("l", 2.0, True, ["t"], {"k": Bag("n", [], Point(1, 0))})
    assert isinstance(got.ratio, float)
    assert convert({}, Settings) == Settings()


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"lable": "x"}, "unknown field `lable` - at `$`"),
        ({"label": 3}, "Expected `str`, got `int` - at `$.label`"),
        ({"ratio": True}, "Expected `float`, got `bool` - at `$.ratio`"),
        ({"on": 1}, "Expected `bool`, got `int` - at `$.on`"),
        ({"tags": "a,b"}, "Expected `array`, got `str` - at `$.tags`"),
        ({"tags": ["a", 2]}, "Expected `str`, got `int` - at `$.tags[1]`"),
        ({"bags": {"k": {}}}, "missing required field `name` - at `$.bags.k`"),
        ({"bags": {"k": {"name": "n", "where": {"x": "1"}}}}, "at `$.bags.k.where.x`"),
        ([], "Expected `object`, got `array` - at `$`"),
    ],
)
def test_convert_rejects_what_does_not_fit_and_says_where(data: object, message: str) -> None:
    with pytest.raises(ConversionError, match=re.escape(message)):
        convert(data, Settings)


def test_a_config_typo_is_a_clear_error(tmp_path: Path) -> None:
    from recall.config import _load
    from recall.errors import ConfigError

    path = tmp_path / "config.toml"
    path.write_text('[redact]\nalow = ["x"]\n', encoding="utf-8")
    with pytest.raises(ConfigError, match=r"bad config .*unknown field `alow` - at `\$.redact`"):
        _load(path)


def test_the_hook_path_imports_neither_msgspec_nor_inspect(
    tmp_path: Path, transcripts: Path
) -> None:
    """What makes a hook fast: msgspec costs a process ~22 ms to import, inspect ~8."""
    session = tmp_path / ".claude" / "projects" / "-home-dev-app" / "small.jsonl"
    session.parent.mkdir(parents=True)
    shutil.copy(transcripts / "claude" / "agent-sessions" / "small.jsonl", session)
    code = (
        "import sys; from recall.cli import main; main(['ingest', '--event', 'agent-stop']);"
        "print(sorted({'msgspec', 'inspect', 'argparse', 'dataclasses'} & set(sys.modules)))"
    )
    env = {"HOME": str(tmp_path), "RECALL_HOME": str(tmp_path / "data"), "PATH": "/usr/bin:/bin"}
    payload = json.dumps({"session_id": "small", "transcript_path": str(session)}).encode()
    out = subprocess.run(
        [sys.executable, "-c", code], input=payload, capture_output=True, env=env, check=True
    )
    assert out.stdout.decode().strip() == "[]"
    db = sqlite3.connect(tmp_path / "data" / "recall.db")
    assert db.execute("SELECT count(*) FROM messages").fetchone()[0] > 0  # it did the work
    db.close()


def test_json_output_has_no_nan_and_keeps_unicode() -> None:
    from recall.cli.render import to_json

    text = to_json({"score": float("nan"), "top": float("inf"), "p": Point(1), "t": "café"})
    assert text == '{"score":null,"top":null,"p":{"x":1,"y":0},"t":"café"}'
    with pytest.raises(TypeError):
        to_json({"path": Path("/x")})  # a type the contract lacks is a bug, not a string


def test_only_the_exact_hook_command_skips_argparse() -> None:
    from recall.cli.ingest import hook_event

    assert hook_event(["ingest", "--event", "agent-stop"]) == "agent-stop"
    assert hook_event(["ingest", "--event=session-closed"]) == "session-closed"
    assert hook_event(["ingest", "agent-stop"]) is None  # a file named so
    assert hook_event(["ingest", "--event=nope"]) is None
    assert hook_event(["ingest", "--event", "agent-stop", "--agent", "codex"]) is None
