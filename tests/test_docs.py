"""What the code and the docs cite exists in this repository.

The design spec and the agents' format notes the project started from live
outside it (SPEC.md, FORMATS.md, AGENT-FORMATS.md); a citation of them in a
docstring or `--help` sends a reader to a document they do not have. The
repository's own docs say the same things and are kept true.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from clihelp import call
from paths import REPO

_SPEC = re.compile(r"\bSPEC\b\s*(?:§|:)|\bFORMATS(?:\.md|\s*§)")


def test_no_code_or_doc_cites_the_outside_spec() -> None:
    places = [REPO / "README.md", *(REPO / "docs").glob("*.md")]
    for folder in ("python", "fuzz", "rust", "tests", "packaging", "scripts"):
        places += [
            p for p in (REPO / folder).rglob("*") if p.suffix in (".py", ".pyi", ".rs", ".md")
        ]
    citing = sorted(
        str(p.relative_to(REPO))
        for p in places
        if p.is_file()
        and p != Path(__file__)
        and _SPEC.search(p.read_text(encoding="utf-8", errors="replace"))
    )
    assert citing == [], "point these at the repository's docs instead"


@pytest.mark.parametrize("command", ["search", "show", "memories", "serve", "peers"])
def test_help_cites_no_outside_document(command: str, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = call(capsys, command, "--help")
    assert code == 0 and "usage:" in out
    assert "SPEC" not in out


def test_the_architecture_map_names_every_package_and_module() -> None:
    doc = (REPO / "docs" / "architecture.md").read_text(encoding="utf-8")
    layout = doc[doc.index("## Layout") : doc.index("## Layers")]
    package = REPO / "python" / "recall"
    unnamed = sorted(
        p.name
        for p in package.iterdir()
        if not p.name.startswith(("__", "_core", "."))
        and p.name != "py.typed"
        and not re.search(rf"\b{re.escape(p.name if p.is_file() else p.name + '/')}", layout)
    )
    assert unnamed == [], "docs/architecture.md's Layout lacks these"
