"""A stub summariser for digest tests, and importing a day's conversation.

`STUB_MODE` chooses what it does: `echo` (default) puts every conversation
line into the summary and each `fact:` phrase into the facts, as a real
summariser would carry a session's text; `file` prints `STUB_ANSWER`'s text;
`flood` prints `STUB_MB` megabytes (with terminal escapes on stderr);
`hang` sleeps, as does a helper it starts; `linger` answers and exits, leaving
a helper in a session of its own holding its stdout (pid in `STUB_PIDFILE`); `fail` writes `STUB_STDERR` and
exits 3. `STUB_FORGET` (session ids, comma-separated) runs `recall forget` on
each before answering, as a user might while a digest runs.
"""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path

DAY = "2026-01-05"
STUB = r"""
import os, sys
prompt = sys.stdin.read()
mode = os.environ.get("STUB_MODE", "echo")
if mode == "flood":
    sys.stderr.write("\x1b]52;c;ZXZpbA==\x07\x1b]0;pwned\x07\x1b[2J flooding\n")
    chunk = ("x" * 1023 + "\n") * 1024
    for _ in range(int(os.environ.get("STUB_MB", "64"))):
        sys.stdout.write(chunk)
    sys.exit(0)
if mode == "file":
    sys.stdout.write(open(os.environ["STUB_ANSWER"], encoding="utf-8").read())
    sys.exit(0)
if mode == "hang":  # a helper it started keeps its stdout open
    import subprocess, time
    subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    time.sleep(60)
if os.environ.get("STUB_FORGET"):  # the user forgets a session while this one runs
    import subprocess
    for name in os.environ["STUB_FORGET"].split(","):
        subprocess.run([sys.executable, "-m", "recall", "forget", name], check=True,
                       capture_output=True)
if mode == "linger":  # answers and exits, leaving a helper (own session) on its stdout
    import subprocess
    helper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(40)"],
                              start_new_session=True)
    open(os.environ["STUB_PIDFILE"], "w").write(str(helper.pid))
    print("## Daily Summary\n- the lingering helper day\n")
    sys.exit(0)
if mode == "fail":
    sys.stderr.write(os.environ.get("STUB_STDERR", ""))
    sys.exit(3)
convo = prompt.split("Conversations of", 1)[1].splitlines()
lines = [x for x in convo if x.startswith(("User:", "Assistant:"))]
facts = [x.split("fact:", 1)[1].strip() for x in lines if "fact:" in x]
print("## Daily Summary")
for x in lines:
    print("- " + x)
print()
print("## Long-term Facts")
print("\n".join("- " + f for f in facts) or "None")
"""


def configure(tmp_path: Path, recall_home: Path, extra: str = "") -> None:
    """Make the stub the configured summariser (`extra`: more `[digest]` lines)."""
    from recall.config import _load

    script = tmp_path / "stub_summariser.py"
    script.write_text(STUB, encoding="utf-8")
    recall_home.mkdir(parents=True, exist_ok=True)
    command = f"{shlex.quote(sys.executable)} {shlex.quote(str(script))}"
    (recall_home / "config.toml").write_text(
        f"[digest]\ncommand = {json.dumps(command)}\n{extra}", encoding="utf-8"
    )
    _load.cache_clear()


def chat_file(tmp_path: Path, name: str, turns: list[tuple[str, str]], day: str = DAY) -> Path:
    """Session `name`'s messages in recall's import format, on `day` from noon UTC."""
    src = tmp_path / f"{name}-{len(turns)}.jsonl"
    lines = [
        {"session": name, "role": role, "text": text, "timestamp": f"{day}T12:{n:02d}:00Z"}
        for n, (role, text) in enumerate(turns)
    ]
    src.write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")
    return src
