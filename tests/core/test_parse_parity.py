"""Both cores parse transcripts identically: every shared fixture, whole and in pieces.

The Rust `parse_transcript` and the twin's are called directly with the same
origin, data, offset and state; their plain results (parts, offset, state,
skipped, summaries) must be equal, including when a file is read in two pieces split at
any byte, the second resuming from the first's offset and state.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from parity import both, in_pieces
from paths import REPO, require_fixtures
from recall import _accel
from recall.agents import ADAPTERS, adapter_for

HOME = REPO / "tests" / "fixtures" / "home"
"""recall's own fixtures for the agents the shared samples lack, laid out as a home folder."""
CURSOR = REPO / "tests" / "fixtures" / "agents" / "cursor" / "transcripts"
"""recall's own Cursor agent transcripts (every layout, and a hostile one)."""

pytestmark = pytest.mark.parity


def fixture_files(documents: bool = True) -> list[Any]:
    """Every transcript fixture as `(agent, path)`; a missing fixture folder is an error.

    `documents=False` leaves out whole-file JSON documents (Gemini's legacy
    `.json`), which have no lines to resume between.
    """
    root = require_fixtures()
    out = []
    for agent in ("claude", "codex", "gemini", "copilot", "cursor", "antigravity"):
        for path in sorted((root / agent).rglob("*.json*")):
            if path.name.endswith(".meta.json"):
                continue
            if not documents and ADAPTERS[agent].origin(path)[3]:
                continue
            out.append(pytest.param(agent, path, id=f"{agent}/{path.relative_to(root / agent)}"))
    for path in sorted(CURSOR.rglob("*.jsonl")):
        out.append(pytest.param("cursor", path, id=f"cursor/{path.relative_to(CURSOR)}"))
    for path in sorted(HOME.rglob("*.jsonl")):
        adapter = adapter_for(path)
        assert adapter is not None, f"no adapter owns {path}"
        out.append(pytest.param(adapter.name, path, id=f"home/{path.relative_to(HOME)}"))
    assert out, f"no transcript fixtures under {root}"
    return out


@pytest.mark.parametrize(("agent", "path"), fixture_files())
def test_fixture_parses_identically(agent: str, path: Path) -> None:
    origin = ADAPTERS[agent].origin(path)
    data = path.read_bytes()
    _, offset, _, _, _ = both(agent, data, 0, {}, origin)
    assert offset <= len(data)
    step = max(1, len(data) // 23)
    for cut in range(0, len(data) + 1, step):
        in_pieces(agent, data, cut, origin)


@pytest.mark.parametrize(("agent", "path"), fixture_files(documents=False))
def test_fixture_line_by_line(agent: str, path: Path) -> None:
    """Resuming after every line (as a hook does while a session runs) agrees too."""
    origin = ADAPTERS[agent].origin(path)
    data = path.read_bytes()
    offset, state = 0, {}
    ends = [i + 1 for i, b in enumerate(data) if b == 0x0A] + [len(data)]
    for end in ends:
        _, used, state, _, _ = both(agent, data[offset:end], offset, state, origin)
        offset += used


def test_unknown_agent_is_refused_by_both(rust: Any) -> None:
    for core in (_accel.twin(), rust):
        with pytest.raises(ValueError, match="no transcript parser"):
            core.parse_transcript("aider", b"", 0, {}, ("x", None, None, False))
