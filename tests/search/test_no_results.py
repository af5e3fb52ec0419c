"""What "No results" says: the scope and filters in force, and the sync hint whenever
the sessions searched are not indexed yet."""

from __future__ import annotations

import pytest

from clihelp import call

HINT = "nothing is indexed yet: run `recall sync`"


def test_the_sync_hint_shows_while_no_session_is_indexed_though_memories_are(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert call(capsys, "remember", "x marks the spot")[0] == 0
    for scope in ("sessions", "all"):
        code, out, err = call(capsys, "search", "--scope", scope, "pnpm")
        assert code == 1 and out.startswith("No results"), out
        assert HINT in err
    code, _, err = call(capsys, "search", "--scope", "memories", "pnpm")
    assert code == 1 and HINT not in err


def test_no_results_names_the_scope_with_the_filters(capsys: pytest.CaptureFixture[str]) -> None:
    assert call(capsys, "remember", "x marks the spot")[0] == 0
    code, out, _ = call(capsys, "search", "--scope", "daily", "--agent", "claude", "pnpm")
    assert code == 1
    assert out.strip() == "No results for 'pnpm' with --scope daily, --agent claude."
    code, out, _ = call(capsys, "search", "pnpm")
    assert out.strip() == "No results for 'pnpm'."
