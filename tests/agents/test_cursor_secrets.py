"""Cursor's `state.vscdb` holds auth tokens, secret storage and encryption keys beside its
chats. recall reads only the chat rows: the fixture's fake secrets appear nowhere, not in
the index (any table, the WAL), the log, or the output of any command."""

from __future__ import annotations

import os
from pathlib import Path

from agentdbs import cursor_user, lay_out_cursor
from clihelp import run

SECRETS = (
    "FAKE-CURSOR-ACCESS-TOKEN",
    "FAKE-CURSOR-REFRESH-TOKEN",
    "FAKE-SECRET-STORAGE-VALUE",
    "FAKE-BLOB-ENCRYPTION-KEY",
    "FAKE-SPECULATIVE-KEY",
    "fake.user@example.invalid",
)


def test_the_fake_secrets_reach_nothing(recall_home: Path, transcripts: Path) -> None:
    lay_out_cursor(Path.home(), transcripts)
    db = cursor_user(Path.home()) / "globalStorage" / "state.vscdb"
    assert all(s.encode() in db.read_bytes() for s in SECRETS)  # the fixture holds them
    outputs = []
    for argv in (
        ("sync", "--no-embed"),
        ("status",),
        ("status", "--json"),
        ("search", "uploader", "--agent", "cursor", "--json"),
        ("search", "FAKE", "--json"),
        ("show", "c-main", "--agent", "cursor", "--json"),
        ("show", "c-main", "--agent", "cursor", "--raw"),
        ("show", "c-main", "--agent", "cursor"),
    ):
        done = run(*argv)
        outputs.append(done.stdout + done.stderr)
    assert b"Add retry to the uploader" in outputs[3]  # the chats themselves are there
    files = [p for p in recall_home.rglob("*") if p.is_file()]
    assert any(p.name == "recall.db" for p in files)
    blobs = [p.read_bytes() for p in files] + outputs
    for secret in SECRETS:
        assert not any(secret.encode() in blob for blob in blobs), secret
    assert os.environ["RECALL_HOME"] == str(recall_home)
