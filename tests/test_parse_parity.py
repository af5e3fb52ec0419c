"""Both cores parse transcripts identically: every shared fixture, whole and in pieces.

The Rust `parse_transcript` and the twin's are called directly with the same
origin, data, offset and state; their plain results (parts, offset, state,
skipped) must be equal, including when a file is read in two pieces split at
any byte, the second resuming from the first's offset and state.
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest

from conftest import TRANSCRIPTS
from recall import _accel
from recall.agents import ADAPTERS

TWIN = _accel.twin()

try:
    from recall import _core  # type: ignore[attr-defined]
except ImportError:  # pragma: no cover - the CI always builds it
    _core = None

pytestmark = pytest.mark.skipif(_core is None, reason="Rust core not built")

Origin = tuple[str, str | None, str | None, bool]


def both(agent: str, data: bytes, base: int, state: dict[str, Any], origin: Origin) -> Any:
    """The twin's result, after asserting the Rust core's is identical."""
    py = TWIN.parse_transcript(agent, data, base, copy.deepcopy(state), origin)
    rs = _core.parse_transcript(agent, data, base, copy.deepcopy(state), origin)
    assert rs == py
    return py


def in_pieces(agent: str, data: bytes, cut: int, origin: Origin) -> None:
    """Parse `data[:cut]`, then the rest from where that parse stopped, on both cores."""
    if origin[3]:
        both(agent, data, 0, {}, origin)
        return
    _, offset, state, _ = both(agent, data[:cut], 0, {}, origin)
    both(agent, data[offset:], offset, state, origin)


def fixture_files() -> list[Any]:
    out = []
    for agent in ("claude", "codex", "gemini"):
        for path in sorted((TRANSCRIPTS / agent).rglob("*.json*")):
            if path.name.endswith(".meta.json"):
                continue
            out.append(
                pytest.param(agent, path, id=f"{agent}/{path.relative_to(TRANSCRIPTS / agent)}")
            )
    return out


@pytest.mark.parametrize(("agent", "path"), fixture_files())
def test_fixture_parses_identically(agent: str, path: Path) -> None:
    adapter = ADAPTERS[agent]
    origin = adapter.origin(path)  # type: ignore[attr-defined]
    data = path.read_bytes()
    _, offset, _, _ = both(agent, data, 0, {}, origin)
    assert offset <= len(data)
    step = max(1, len(data) // 23)
    for cut in range(0, len(data) + 1, step):
        in_pieces(agent, data, cut, origin)


@pytest.mark.parametrize(("agent", "path"), fixture_files())
def test_fixture_line_by_line(agent: str, path: Path) -> None:
    """Resuming after every line (as a hook does while a session runs) agrees too."""
    adapter = ADAPTERS[agent]
    origin = adapter.origin(path)  # type: ignore[attr-defined]
    if origin[3]:
        return
    data = path.read_bytes()
    offset, state = 0, {}
    ends = [i + 1 for i, b in enumerate(data) if b == 0x0A] + [len(data)]
    for end in ends:
        _, used, state, _ = both(agent, data[offset:end], offset, state, origin)
        offset += used


def test_unknown_agent_is_refused_by_both() -> None:
    for core in (TWIN, _core):
        with pytest.raises(ValueError, match="no transcript parser"):
            core.parse_transcript("aider", b"", 0, {}, ("x", None, None, False))
