"""Setup writes only over the text it read: an edit made meanwhile is never clobbered.

Claude Code rewrites `~/.claude.json` all the time, and a user may save
`settings.json` while setup runs. Setup read the file, computed its edit, and
renamed the result over whatever was there by then: the other writer's change
was lost without a word.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from clihelp import call

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX paths")
BASE = {"model": "opus"}


def _settings() -> Path:
    path = Path.home() / ".claude" / "settings.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(BASE, indent=2) + "\n")
    return path


@pytest.mark.parametrize("when", ["after_planning", "after_the_backup"])
@pytest.mark.parametrize("action", ["install", "uninstall"])
def test_an_edit_made_meanwhile_is_kept(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, when: str, action: str
) -> None:
    from recall.setup import apply, state

    path = _settings()
    if action == "uninstall":
        assert call(capsys, "hooks", "install", "--agent", "claude")[0] == 0
    edited = (json.dumps({**json.loads(path.read_text()), "theme": "dark"}, indent=2)).encode()
    target, real = (apply, apply.plan) if when == "after_planning" else (state, state.backup)
    name = "plan" if when == "after_planning" else "backup"

    def then_edit(*args: object, **kwargs: object) -> object:
        done = real(*args, **kwargs)  # type: ignore[operator]
        path.write_bytes(edited)  # the user (or the agent) saves the file now
        return done

    monkeypatch.setattr(target, name, then_edit)
    code, _, err = call(capsys, "hooks", action, "--agent", "claude")
    assert code == 1
    assert f"{path} changed while recall was changing it" in err and "Traceback" not in err
    assert path.read_bytes() == edited
    assert [p.name for p in path.parent.iterdir() if ".recall-" in p.name] == []
    monkeypatch.setattr(target, name, real)
    code, _, err = call(capsys, "hooks", action, "--agent", "claude")  # again: it is done
    assert code == 0, err
    assert json.loads(path.read_text())["theme"] == "dark"
