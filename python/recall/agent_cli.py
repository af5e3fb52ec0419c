"""Each agent's own command line, as recall hands sessions back to it.

`RESUME` is the command that reopens a session by id in the folder it ran in
(docs/agents.md, "Resuming"). It lives here, below the adapters, so `search`
can say how to resume without importing any adapter; each adapter's `resume`
reads its entry.
"""

from __future__ import annotations

RESUME: dict[str, tuple[str, ...]] = {
    "claude": ("claude", "--resume"),  # Claude Code: the session must be in the current folder
    "codex": ("codex", "resume"),
    "gemini": ("gemini", "--resume"),  # a full session UUID; sessions are per project
}
