"""Each Rust file opens with a `//!` block that says what it owns, names its Python twin
in its first line, as docs/rust-core.md's table says, and cites only what exists.

A reader of either side finds the other from the first line; the table is
where the pairs are decided, so the two must agree. A header that names a
moved module or function misleads the next reader, so every citation is checked.
"""

from __future__ import annotations

import importlib
import re
from pathlib import Path

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


RUST = REPO / "rust" / "src"


def _header(rs: Path) -> list[str]:
    """The file's opening `//!` block, the markers stripped."""
    lines = []
    for line in rs.read_text(encoding="utf-8").splitlines():
        if not line.startswith("//!"):
            break
        lines.append(line[3:].strip())
    return lines


def _table_files() -> set[str]:
    table = (REPO / "docs" / "rust-core.md").read_text(encoding="utf-8")
    return {
        rs
        for line in table.splitlines()
        if line.startswith("|")
        for rs in re.findall(r"`(\w+\.rs)`", line.split("|")[1])
    }


def test_every_rust_file_opens_with_what_it_owns_and_is_in_the_table() -> None:
    files = sorted(RUST.glob("*.rs"))
    assert len(files) >= 20
    bare = [rs.name for rs in files if len(" ".join(_header(rs))) < 40]
    assert bare == [], "files with no `//!` block saying what they own"
    assert {rs.name for rs in files} - _table_files() == set(), "docs/rust-core.md lacks a row"


def _resolves(dotted: str) -> bool:
    """`dotted` names a module, or an attribute of the module that defines it
    (not one that merely imports it: a header should send the reader to the source)."""
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            found: object = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        owner = ".".join(parts[:cut])
        for attr in parts[cut:]:
            if not hasattr(found, attr):
                return False
            found = getattr(found, attr)
        home = getattr(found, "__module__", None)
        return not isinstance(home, str) or cut == len(parts) or home == owner
    return False


def _defined(name: str, source: str) -> bool:
    """`name` is an item of the file or imported by one of its `use` lines."""
    item = rf"\b(?:fn|struct|enum|const|static|type|trait|mod)\s+{re.escape(name)}\b"
    used = rf"^\s*(?:pub\s+)?use\s+[^;]*\b{re.escape(name)}\b[^;]*;"
    return bool(re.search(item, source) or re.search(used, source, re.M | re.S))


def _stale(rs: Path) -> list[str]:
    """What the `//!` block cites that does not exist: `recall.…` names, repository
    paths, `crate::` modules and intra-doc links to this file's items."""
    text = " ".join(_header(rs))
    source = rs.read_text(encoding="utf-8")
    wrong = []
    for cited in re.findall(r"`([^`]+)`", text):
        link = f"[`{cited}`]" in text
        if re.fullmatch(r"recall(?:\.\w+)+", cited) and not _resolves(cited):
            wrong.append(cited)
        elif re.fullmatch(r"[\w/.]+\.(?:py|pyi|rs|txt|md)", cited):
            roots = (REPO, REPO / "python", RUST, REPO / "python" / "recall", REPO / "docs")
            if not any((root / cited).exists() for root in roots):
                wrong.append(cited)
        elif re.fullmatch(r"crate(?:::\w+)+", cited):
            if not (RUST / f"{cited.split('::')[1]}.rs").exists():
                wrong.append(cited)
        elif link and re.fullmatch(r"\w+", cited) and not _defined(cited, source):
            wrong.append(cited)
    return wrong


def test_what_every_rust_file_header_cites_exists() -> None:
    stale = {rs.name: _stale(rs) for rs in sorted(RUST.glob("*.rs")) if _stale(rs)}
    assert stale == {}


def test_a_stale_citation_is_caught(tmp_path: Path) -> None:
    rs = tmp_path / "x.rs"
    rs.write_text(
        "//! Mirrors `recall.agents.base.iter_json_lines` (twin: `recall/_twin/gone.py`);\n"
        "//! see [`crate::nowhere`] and [`Shape`], but `recall.jsonlines.iter_json_lines`\n"
        "//! and [`Here`] exist.\n\npub struct Here;\n",
        encoding="utf-8",
    )
    assert _stale(rs) == [
        "recall.agents.base.iter_json_lines",
        "recall/_twin/gone.py",
        "crate::nowhere",
        "Shape",
    ]
