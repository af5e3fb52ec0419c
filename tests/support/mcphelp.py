"""Starting `recall mcp` the way an agent does, for the MCP tests."""

from __future__ import annotations

import os
import sys


def server_env() -> dict[str, str]:
    """What the server process needs of the test's environment (the SDK passes only a
    safe subset of ours)."""
    keep = ("RECALL_HOME", "RECALL_COMPUTER", "RECALL_IMPL", "HOME", "PYTHONPATH", "PATH")
    return {k: os.environ[k] for k in keep if k in os.environ}


SERVER = [sys.executable, "-m", "recall", "mcp"]
