"""Every way text enters the index redacts it, once, where it enters.

Redaction runs in one place per entry (`ingest.redacted_part` for session parts,
the memory writers for memories and files); the store writer stores what it is
handed. Each path below carries secrets in its messages, title, project and
metadata, and the raw database file and WAL must hold none of them afterwards,
while holding the `[REDACTED:…]` text that proves the message was stored.
"""

from __future__ import annotations

import json
import os
import sqlite3
from collections.abc import Callable
from pathlib import Path

import pytest

from agentdbs import lay_out_opencode, opencode_data
from clihelp import call, run
from secretcorpus import agent_files, db_bytes, leaks, secrets, write_config

SECRETS = secrets()[:6]
TEXT = " ".join(s.text for s in SECRETS)


def _hook(tmp: Path, capsys: pytest.CaptureFixture[str]) -> None:
    files = agent_files(tmp / "agents", SECRETS)
    payload = json.dumps({"session_id": "x", "transcript_path": str(files["claude"])})
    proc = run("ingest", "--event", "agent-stop", stdin=payload.encode())
    assert proc.returncode == 0 and proc.stdout == b"", proc.stderr


def _sync(tmp: Path, capsys: pytest.CaptureFixture[str]) -> None:
    agent_files(Path.home(), SECRETS)
    code, _, err = call(capsys, "sync", "--no-embed")
    assert code == 0, err


def _import_lines() -> bytes:
    lines = [
        {"session": "imp-1", "role": role, "text": f"{role} says {TEXT}", "title": TEXT,
         "project": f"/work/{SECRETS[0].text}"}
        for role in ("user", "assistant")
    ]  # fmt: skip
    return "".join(json.dumps(line) + "\n" for line in lines).encode()


def _import_file(tmp: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src = tmp / "history.jsonl"
    src.write_bytes(_import_lines())
    code, _, err = call(capsys, "ingest", "--format", "jsonl", str(src))
    assert code == 0, err


def _import_stdin(tmp: Path, capsys: pytest.CaptureFixture[str]) -> None:
    proc = run("ingest", "--format", "jsonl", "-", stdin=_import_lines())
    assert proc.returncode == 0, proc.stderr


def _agent_database(tmp: Path, capsys: pytest.CaptureFixture[str]) -> None:
    lay_out_opencode(Path.home())
    db = sqlite3.connect(opencode_data(Path.home()) / "opencode.db")
    with db:
        db.execute("UPDATE session SET title = ?", (f"deploy {TEXT}",))
        db.execute(
            'UPDATE part SET data = ? WHERE data LIKE \'{"type":"text"%\'',
            (json.dumps({"type": "text", "text": f"use {TEXT}"}),),
        )
    db.close()
    code, _, err = call(capsys, "sync", "--no-embed", "--agent", "opencode")
    assert code == 0, err


def _memory(tmp: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = call(capsys, "remember", f"the deploy keys are {TEXT}")
    assert code == 0, err


def _memory_file(tmp: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A guidance file (Claude Code's project memory), indexed by sync."""
    agent_files(Path.home(), SECRETS[:1])
    memory = Path.home() / ".claude" / "projects" / "-work-app" / "memory" / "MEMORY.md"
    memory.parent.mkdir(parents=True)
    memory.write_text(f"# Deploying\n\nThe keys: {TEXT}\n", encoding="utf-8")
    code, _, err = call(capsys, "sync", "--no-embed")
    assert code == 0, err
    db = sqlite3.connect(Path(os.environ["RECALL_HOME"]) / "recall.db")
    chunks = [text for (text,) in db.execute("SELECT text FROM file_chunks")]
    db.close()
    assert any("The keys:" in t and "[REDACTED:" in t for t in chunks), chunks


PATHS: dict[str, Callable[[Path, pytest.CaptureFixture[str]], None]] = {
    "hook": _hook,
    "sync": _sync,
    "import-file": _import_file,
    "import-stdin": _import_stdin,
    "agent-database": _agent_database,
    "memory": _memory,
    "memory-file": _memory_file,
}


@pytest.mark.parametrize("path", PATHS)
def test_a_secret_is_redacted_on_every_entry_path(
    path: str, tmp_path: Path, recall_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    PATHS[path](tmp_path, capsys)
    data = db_bytes(recall_home)
    assert b"[redacted:" in data  # the text was stored, redacted
    assert leaks(data, SECRETS) == []


def test_the_secrets_are_ones_the_check_would_see(
    recall_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """With redaction off the same import leaves every secret in the file: the byte
    check above can fail."""
    write_config(recall_home, "[redact]\nenabled = false\n")
    proc = run("ingest", "--format", "jsonl", "-", stdin=_import_lines())
    assert proc.returncode == 0, proc.stderr
    kinds: list[str] = [s.kind for s in SECRETS]
    assert leaks(db_bytes(recall_home), SECRETS) == kinds
