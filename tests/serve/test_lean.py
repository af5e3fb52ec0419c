"""A search with no daemon to ask, and the hook, load none of the network code."""

from __future__ import annotations

from pathlib import Path

import pytest

from clihelp import call
from daemons import modules_after

NETWORK = ("http.client", "ssl", "socketserver", "recall.peers.client", "recall.serve.server")


def test_searching_without_a_daemon_and_the_hook_load_no_network_code(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    src = tmp_path / "chat.jsonl"
    src.write_text('{"session": "s1", "role": "user", "text": "kafka retry budget"}\n')
    assert call(capsys, "ingest", "--format", "jsonl", str(src))[0] == 0
    for argv in (["search", "kafka", "--mode", "keyword"], ["search", "kafka"]):
        loaded = modules_after(argv)
        assert "recall.search.keyword" in loaded  # the probe saw a real search
        assert not loaded & set(NETWORK), sorted(loaded & set(NETWORK))
    loaded = modules_after(["ingest", "--event", "agent-stop"], b"{}")
    assert not [m for m in loaded if m.startswith(("recall.serve", "recall.peers"))]
    assert not loaded & set(NETWORK)
