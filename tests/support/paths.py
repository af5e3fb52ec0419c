"""Where the repository and the shared fixtures are (`RECALL_SHARED` overrides the latter)."""

from __future__ import annotations

import os
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SHARED = Path(os.environ.get("RECALL_SHARED", REPO.parent / "shared")).resolve()
TRANSCRIPTS = SHARED / "fixtures" / "transcripts"
HOOKS = SHARED / "fixtures" / "hooks"


def require_fixtures() -> Path:
    """The transcript fixtures, or a collection error naming where they were looked for."""
    if not TRANSCRIPTS.is_dir():
        raise FileNotFoundError(
            f"shared fixtures not found at {TRANSCRIPTS}: put shared/ beside the repository"
            " or set RECALL_SHARED"
        )
    return TRANSCRIPTS
