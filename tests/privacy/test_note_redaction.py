"""Notes (MEMORY.md, daily logs, guidance files) are redacted whole, and again by a rescan.

A note is cut into chunks of at most 4,000 characters, hard in the middle of a
long paragraph. Redacting each chunk on its own let a token cut by that boundary
through in two halves that no rule matches; and `redact --rescan`, which only
re-redacted the stored chunks, could never join them again.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from clihelp import call
from secretcorpus import db_bytes, write_config

GHP = "ghp_R8vK2mQ9xTfL4wZp7NcY3hBd6JsGa1Ue5Hoi"
HOST_TOKEN = "zorblax-q7w3e9r1t5y2u8i4o6p0a1s3"
"""A secret only the user's own rule (added after indexing) knows."""


def _straddling(secret: str, spaced: bool = True) -> str:
    """A note whose one long paragraph reaches 4,000 characters inside `secret`; not
    `spaced`, the paragraph has no space to cut at before it, so the cut is there."""
    pad = ("word " if spaced else "word-") * 797 + "abcd" + (" " if spaced else "=")
    text = f"{pad}{secret} and the walrus tail words"
    assert text.index(secret) < 4000 < text.index(secret) + len(secret)
    return f"# Notes\n\n{text}\n"


def _search(capsys: pytest.CaptureFixture[str], query: str) -> str:
    code, out, err = call(capsys, "search", query, "--json")
    assert code == 0, err
    return out


def test_a_token_cut_by_the_chunk_boundary_is_still_redacted(
    capsys: pytest.CaptureFixture[str], recall_home: Path
) -> None:
    recall_home.mkdir(parents=True, exist_ok=True)
    (recall_home / "MEMORY.md").write_text(_straddling(GHP))
    assert call(capsys, "sync", "-q", "--no-embed")[0] == 0
    out = _search(capsys, "walrus tail")
    assert json.loads(out)["found"] == 1 and "[REDACTED:github-token]" in out
    for part in (GHP, GHP[:12], GHP[-12:]):
        assert part not in out
        assert part.lower().encode() not in db_bytes(recall_home)


def _guidance_project(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> Path:
    project = tmp_path / "proj"
    project.mkdir()
    row = {"session": "g1", "role": "user", "text": "hello", "project": str(project)}
    src = tmp_path / "g1.jsonl"
    src.write_text(json.dumps({**row, "agent": "codex"}) + "\n")
    assert call(capsys, "ingest", "--format", "jsonl", str(src))[0] == 0
    return project


@pytest.mark.parametrize("kind", ["memory_md", "daily_log", "guidance"])
def test_a_rescan_reindexes_notes_under_the_new_rules(
    capsys: pytest.CaptureFixture[str], recall_home: Path, tmp_path: Path, kind: str
) -> None:
    """A rule added after indexing reaches the notes through `redact --rescan`, even a
    token the chunking cut in two."""
    recall_home.mkdir(parents=True, exist_ok=True)
    note = _straddling(HOST_TOKEN, spaced=False)
    if kind == "memory_md":
        (recall_home / "MEMORY.md").write_text(note)
    elif kind == "daily_log":
        (recall_home / "daily").mkdir()
        (recall_home / "daily" / "2026-01-05.md").write_text(note)
    else:
        (_guidance_project(capsys, tmp_path) / "AGENTS.md").write_text(note)
    assert call(capsys, "sync", "-q", "--no-embed")[0] == 0
    assert HOST_TOKEN[-12:] in _search(capsys, "walrus tail")  # indexed before the rule
    write_config(
        recall_home, '[[redact.extra]]\nname = "host-token"\npattern = "zorblax-[a-z0-9]{24}"\n'
    )
    code, out, err = call(capsys, "redact", "--rescan")
    assert code == 0 and "1 note files re-indexed" in out, err
    found = _search(capsys, "walrus tail")
    assert json.loads(found)["found"] == 1 and "host-token] and the walrus" in found
    data = db_bytes(recall_home)
    for part in (HOST_TOKEN, HOST_TOKEN[:12], HOST_TOKEN[-12:]):
        assert part not in found and part.encode() not in data
    assert call(capsys, "sync", "-q", "--no-embed")[0] == 0  # an unchanged file stays so
    assert HOST_TOKEN[-12:] not in _search(capsys, "walrus tail")


def test_a_rescan_drops_the_guidance_files_of_a_project_now_excluded(
    capsys: pytest.CaptureFixture[str], recall_home: Path, tmp_path: Path
) -> None:
    project = _guidance_project(capsys, tmp_path)
    (project / "AGENTS.md").write_text("# Rules\n\nthe gryphonfeather deploy runs at noon\n")
    assert call(capsys, "sync", "-q", "--no-embed")[0] == 0
    assert json.loads(_search(capsys, "gryphonfeather"))["found"] == 1
    write_config(recall_home, f"[privacy]\nexclude_projects = [{json.dumps(str(project))}]\n")
    code, out, err = call(capsys, "redact", "--rescan")
    assert code == 0 and "1 sessions removed by privacy settings" in out, err
    assert json.loads(_search(capsys, "gryphonfeather"))["found"] == 0
    assert b"gryphonfeather" not in db_bytes(recall_home)


def test_forgetting_a_project_drops_its_guidance_files(
    capsys: pytest.CaptureFixture[str], recall_home: Path, tmp_path: Path
) -> None:
    """They were indexed because the project was, and stayed searchable (and in the
    database file) after `forget --project` until the next `sync`."""
    project = _guidance_project(capsys, tmp_path)
    (project / "AGENTS.md").write_text("# Rules\n\nthe gryphonfeather deploy runs at noon\n")
    assert call(capsys, "sync", "-q", "--no-embed")[0] == 0
    assert json.loads(_search(capsys, "gryphonfeather"))["found"] == 1
    code, out, err = call(capsys, "forget", "--project", str(project))
    assert code == 0 and "forgot 1 sessions" in out, err
    assert json.loads(_search(capsys, "gryphonfeather"))["found"] == 0
    assert b"gryphonfeather" not in db_bytes(recall_home)
