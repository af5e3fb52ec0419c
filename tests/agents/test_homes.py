"""Setup writes hooks where the adapters read transcripts: one answer to "where is the agent".

`recall setup` installs hooks into an agent's home folder and `recall sync`
reads the transcripts under it; if the two read `$CLAUDE_CONFIG_DIR`
differently, hooks are installed for one folder and transcripts looked for in
another (recall.agent_homes).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from recall.agents import ADAPTERS
from recall.setup.where import claude_dir, claude_json, codex_dir, gemini_dir


@pytest.mark.parametrize(
    "configured",
    [None, "", "  ", "/cfg/a", "/cfg/a,/cfg/b", " ,/cfg/b", "/cfg/a , ,/cfg/b", "~/claude-x"],
)
def test_claude_hooks_go_where_its_transcripts_are_read(
    configured: str | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    if configured is not None:
        monkeypatch.setenv("CLAUDE_CONFIG_DIR", configured)
    home = Path.home()
    roots = ADAPTERS["claude"].default_roots()
    assert roots[0] == claude_dir(home) / "projects"  # the settings' home is read first
    assert all(root.name == "projects" for root in roots)
    assert claude_json(home).parent in (home, claude_dir(home))
    if configured and configured.strip(" ,"):
        named = [Path(p.strip()).expanduser() for p in configured.split(",") if p.strip()]
        assert [r.parent for r in roots] == named
        assert claude_json(home) == named[0] / ".claude.json"
    else:
        assert roots == [home / ".claude" / "projects", home / ".config" / "claude" / "projects"]


@pytest.mark.parametrize("configured", [None, "", "/x/codex", "~/cx"])
def test_codex_and_gemini_homes_agree(
    configured: str | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    if configured is not None:
        monkeypatch.setenv("CODEX_HOME", configured)
        monkeypatch.setenv("GEMINI_CLI_HOME", configured)
    home = Path.home()
    assert ADAPTERS["codex"].default_roots() == [
        codex_dir(home) / "sessions",
        codex_dir(home) / "archived_sessions",
    ]
    assert ADAPTERS["gemini"].default_roots() == [gemini_dir(home) / "tmp"]
    if configured:
        assert codex_dir(home) == Path(configured).expanduser()
        assert gemini_dir(home) == Path(configured).expanduser() / ".gemini"
