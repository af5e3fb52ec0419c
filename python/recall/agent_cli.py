"""Each agent's own command line, as recall hands sessions back to it.

`RESUME` is the command that reopens a session by id in the folder it ran in
(docs/agents.md, "Resuming", says where each was checked). It lives here,
below the adapters, so `search` can say how to resume without importing any
adapter; each adapter's `resume` reads its entry. An agent missing here has
no command that takes a session id: OpenClaw's `tui --session` takes a
gateway session key, Cline and Roo Code reopen tasks only from the editor's
history, Continue's `cn --resume` only the terminal's last session, Aider's
`--restore-chat-history` the folder's whole history file.
"""

from __future__ import annotations

RESUME: dict[str, tuple[str, ...]] = {
    "claude": ("claude", "--resume"),  # Claude Code: the session must be in the current folder
    "codex": ("codex", "resume"),
    "gemini": ("gemini", "--resume"),  # a full session UUID; sessions are per project
    "copilot": ("copilot", "--resume"),  # the hint Copilot CLI prints on /exit
    "cursor": ("cursor-agent", "--resume"),  # the Cursor CLI's chats (`cursor-agent ls`)
    "opencode": ("opencode", "--session"),  # `-s`: the `ses_…` id to continue
    "qwen": ("qwen", "--resume"),  # like Gemini CLI's, sessions per project
    "pi": ("pi", "--session"),  # a session file or (partial) UUID, looked up in the project
    "goose": ("goose", "session", "--resume", "--session-id"),
    "crush": ("crush", "--session"),  # `-s`: the session id, in the project's `.crush/`
    "antigravity": ("agy", "--conversation"),  # the conversation folder's id
}
