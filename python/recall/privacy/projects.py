"""Which project directories a glob covers: for exclusions, rescans and `forget --project`."""

from __future__ import annotations

import os
from fnmatch import fnmatchcase
from pathlib import PurePath


def _expand(glob: str) -> str:
    return os.path.expanduser(glob).rstrip("/\\") or "/"


def project_matches(project: str, globs: list[str]) -> bool:
    """Whether `project` or a directory above it matches one of `globs`."""
    if not project or not globs:
        return False
    patterns = [_expand(g) for g in globs]
    path = PurePath(project)
    for candidate in (path, *path.parents):
        text = str(candidate)
        if any(fnmatchcase(text, p) for p in patterns):
            return True
    return False
