"""Each Rust file names its Python twin in its first line, as docs/rust-core.md's table says.

A reader of either side finds the other from the first line; the table is
where the pairs are decided, so the two must agree.
"""

from __future__ import annotations

import re

from paths import REPO


def _pairs() -> list[tuple[str, str]]:
    """(Rust file, twin path) for every table row whose twin is a Python file."""
    table = (REPO / "docs" / "rust-core.md").read_text(encoding="utf-8")
    pairs = []
    for line in table.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) != 3:
            continue
        twin = re.search(r"`((?:_twin/|recall/)[\w/]+\.py)`", cells[1])
        if twin is None:
            continue
        path = twin.group(1)
        path = path if path.startswith("recall/") else f"recall/{path}"
        pairs.extend((rs, path) for rs in re.findall(r"`(\w+\.rs)`", cells[0]))
    return pairs


def test_every_rust_file_with_a_twin_names_it_in_its_first_line() -> None:
    pairs = _pairs()
    assert len(pairs) >= 15  # the table was read, not skipped
    wrong = []
    for rs, twin in pairs:
        first = (REPO / "rust" / "src" / rs).read_text(encoding="utf-8").splitlines()[0]
        if not first.startswith("//!") or twin not in first:
            wrong.append(f"{rs}: {first}")
    assert wrong == [], f"first lines that do not name the twin: {wrong}"
