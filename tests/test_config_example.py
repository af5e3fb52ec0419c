"""The shipped `config.example.toml` shows every setting, commented out, at its default.

A user learns what can be configured from the example: a setting missing from
it is invisible, and an example value that is not the default misleads (they
uncomment it thinking nothing changes). The test walks every field of
`recall.config.Config`, into every nested record, and finds each in the
example with the default's value; a field with no default (None) must show an
example and say "default" on its line.
"""

from __future__ import annotations

import re
import tomllib
import typing
from typing import Any

import pytest

from paths import REPO
from recall.config import Config
from recall.record import ConversionError, Record, convert

EXAMPLE = REPO / "config.example.toml"
_KEY = re.compile(r"^# ([\w-]+) = ")
_TABLE = re.compile(r"^# (\[\[?[\w.-]+\]\]?)\s*(?:#.*)?$")


def _uncommented(text: str) -> str:
    """The example with its settings uncommented (prose comments stay comments)."""
    return "\n".join(
        line[2:] if _KEY.match(line) or _TABLE.match(line) else line for line in text.splitlines()
    )


def _notes(text: str) -> dict[tuple[str, str], str]:
    """(table, key) -> the key's line and the prose comment lines just above it."""
    notes: dict[tuple[str, str], str] = {}
    table, prose = "", ""
    for line in text.splitlines():
        if m := _TABLE.match(line):
            table, prose = m.group(1).strip("[]"), ""
        elif m := _KEY.match(line):
            notes[(table, m.group(1))] = prose + line
            prose = ""
        elif line.startswith("#"):
            prose += line + "\n"
        else:
            prose = ""
    return notes


def _record_type(hint: Any) -> type[Record] | None:
    return hint if isinstance(hint, type) and issubclass(hint, Record) else None


_REQUIRED = object()


def _default(cls: type[Record], name: str) -> Any:
    """The field's default (a factory's value), or `_REQUIRED`."""
    default = cls._record_defaults.get(name, _REQUIRED)
    make = getattr(default, "make", None)
    return make() if make is not None else default


def _effective_default(path: str, default: Any) -> Any:
    """An empty mapping that stands for built-in values shows those values."""
    if path == "search.weights":
        from recall.search.sources import WEIGHTS

        return dict(WEIGHTS)
    return default


def _walk(
    cls: type[Record], shown: dict[str, Any], table: str, notes: dict, out: list[str]
) -> None:
    hints = typing.get_type_hints(cls)
    for name in cls._record_fields:
        path = f"{table}.{name}" if table else name
        if name not in shown:
            out.append(f"{path}: not shown")
            continue
        hint, value = hints[name], shown[name]
        origin, args = typing.get_origin(hint), typing.get_args(hint)
        default = _default(cls, name)
        if (inner := _record_type(hint)) is not None:
            _walk(inner, value, path, notes, out)
        elif origin is dict and (inner := _record_type(args[1])) is not None:
            for key, item in value.items():
                _walk(inner, item, f"{path}.{key}", notes, out)
        elif origin is list and (inner := _record_type(args[0])) is not None:
            if not value:
                out.append(f"{path}: no example entry")
            for item in value:
                _walk(inner, item, path, notes, out)
        elif default is None:
            note = notes.get((table, name), "")
            if "default" not in note:
                out.append(f"{path}: has no default but its example does not say so")
        elif default is not _REQUIRED and value != _effective_default(path, default):
            out.append(f"{path}: shows {value!r}, the default is {default!r}")


def _problems(text: str) -> list[str]:
    shown = tomllib.loads(_uncommented(text))
    convert(shown, Config)  # every key shown is a setting
    problems: list[str] = []
    _walk(Config, shown, "", _notes(text), problems)
    return problems


def test_the_example_sets_nothing_as_shipped() -> None:
    assert tomllib.loads(EXAMPLE.read_text(encoding="utf-8")) == {}


def test_every_setting_is_shown_commented_at_its_default() -> None:
    assert _problems(EXAMPLE.read_text(encoding="utf-8")) == []


def test_the_walk_reaches_every_nested_record() -> None:
    walked: list[str] = []

    def fields(cls: type[Record], prefix: str) -> None:
        for name, hint in typing.get_type_hints(cls).items():
            if name.startswith("_"):
                continue
            walked.append(prefix + name)
            for arg in (hint, *typing.get_args(hint)):
                if (inner := _record_type(arg)) is not None:
                    fields(inner, f"{prefix}{name}.")

    fields(Config, "")
    for path in ("serve.sync_minutes", "peers.ca_file", "redact.extra.pattern", "agents.roots"):
        assert path in walked


@pytest.mark.parametrize(
    ("edit", "problem"),
    [
        (("# [serve]\n", "# [serve_gone]\n"), None),  # an unknown table is refused
        (("# port = 8765", "# port = 9000"), "serve.port: shows 9000, the default is 8765"),
        (("# sync_minutes = 5.0", "# (gone)"), "serve.sync_minutes: not shown"),
        (("default: unset (plain HTTP)", "plain HTTP"), "serve.tls_cert: has no default"),
        (("# [[peers]]", "# [[peer_list]]"), None),
    ],
)
def test_a_missing_key_or_a_changed_default_is_caught(
    edit: tuple[str, str], problem: str | None
) -> None:
    text = EXAMPLE.read_text(encoding="utf-8")
    assert edit[0] in text
    changed = text.replace(edit[0], edit[1])
    if problem is None:
        with pytest.raises(ConversionError, match=r"serve_gone|peer_list"):
            _problems(changed)
    else:
        assert any(p.startswith(problem) for p in _problems(changed)), _problems(changed)


def test_without_serve_and_peers_the_walk_says_so() -> None:
    text = EXAMPLE.read_text(encoding="utf-8")
    cut = text[: text.index("# --- Across computers")]
    problems = _problems(cut)
    assert "serve: not shown" in problems and "peers: not shown" in problems
