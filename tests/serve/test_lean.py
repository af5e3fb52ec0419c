"""A search with no daemon to ask, and the hook, load none of the network code."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from clihelp import call

NETWORK = ("http.client", "ssl", "socketserver", "recall.peers.client", "recall.serve.server")


def _loaded(argv: list[str], stdin: bytes = b"") -> set[str]:
    probe = (
        "import sys, runpy\n"
        "sys.argv = ['recall', *sys.argv[1:]]\n"
        "try:\n    runpy.run_module('recall', run_name='__main__')\n"
        "except SystemExit:\n    pass\n"
        "sys.stderr.write(' '.join(sorted(sys.modules)))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe, *argv],
        input=stdin,
        capture_output=True,
        env=dict(os.environ),
        timeout=120,
        check=False,
    )
    return set(done.stderr.decode().split())


def test_searching_without_a_daemon_and_the_hook_load_no_network_code(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    src = tmp_path / "chat.jsonl"
    src.write_text('{"session": "s1", "role": "user", "text": "kafka retry budget"}\n')
    assert call(capsys, "ingest", "--format", "jsonl", str(src))[0] == 0
    for argv in (["search", "kafka", "--mode", "keyword"], ["search", "kafka"]):
        loaded = _loaded(argv)
        assert "recall.search.keyword" in loaded  # the probe saw a real search
        assert not loaded & set(NETWORK), sorted(loaded & set(NETWORK))
    loaded = _loaded(["ingest", "--event", "agent-stop"], b"{}")
    assert not [m for m in loaded if m.startswith(("recall.serve", "recall.peers"))]
    assert not loaded & set(NETWORK)
