"""A pure-Python wheel (and sdist) of recall, written with the standard library alone.

The wheel holds `python/recall/` as it is (sources, the rule table, model
manifests, demo transcripts), without any compiled core, tagged
`py3-none-any`, so pip installs it on any platform and Python >= 3.11. Its
metadata comes from pyproject.toml's `[project]` table, the same table
maturin reads for the native wheels, so both kinds describe one package.
"""

from __future__ import annotations

import base64
import hashlib
import io
import os
import tarfile
import tomllib
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

ROOT = Path.cwd()
"""PEP 517 runs the backend in the project's root directory."""
PACKAGE = ROOT / "python" / "recall"
SKIP_SUFFIXES = (".so", ".pyd", ".dylib", ".pyc")
SDIST_PARTS = (
    "pyproject.toml",
    "README.md",
    "Cargo.toml",
    "Cargo.lock",
    "rust",
    "python",
    "packaging",
)


def _project() -> dict[str, Any]:
    with open(ROOT / "pyproject.toml", "rb") as fh:
        return dict(tomllib.load(fh)["project"])


def _names(project: dict[str, Any]) -> tuple[str, str, str]:
    """The distribution name, its version, and the two as a wheel's file-name stem."""
    name, version = project["name"], project["version"]
    return name, version, f"{name.replace('-', '_')}-{version}"


def metadata_text(project: dict[str, Any]) -> str:
    """Core metadata 2.1 for `project`, README as the long description."""
    name, version, _ = _names(project)
    lines = [
        "Metadata-Version: 2.1",
        f"Name: {name}",
        f"Version: {version}",
        f"Summary: {project.get('description', '')}",
        f"Requires-Python: {project.get('requires-python', '>=3.11')}",
    ]
    licence = project.get("license", {})
    if isinstance(licence, dict) and "text" in licence:
        lines.append(f"License: {licence['text']}")
    lines += [f"Classifier: {c}" for c in project.get("classifiers", [])]
    lines += [f"Requires-Dist: {d}" for d in project.get("dependencies", [])]
    for extra, deps in project.get("optional-dependencies", {}).items():
        lines.append(f"Provides-Extra: {extra}")
        for dep in deps:
            spec, _, cond = dep.partition(";")
            marker = f'extra == "{extra}"'
            when = f"({cond.strip()}) and {marker}" if cond.strip() else marker
            lines.append(f"Requires-Dist: {spec.strip()}; {when}")
    readme = ROOT / str(project.get("readme", "README.md"))
    body = readme.read_text(encoding="utf-8") if readme.is_file() else ""
    lines.append("Description-Content-Type: text/markdown")
    return "\n".join(lines) + "\n\n" + body


def _entry_points(project: dict[str, Any]) -> str:
    scripts = project.get("scripts", {})
    return "[console_scripts]\n" + "".join(f"{k} = {v}\n" for k, v in scripts.items())


def _wheel_text(editable: bool) -> str:
    return (
        "Wheel-Version: 1.0\n"
        f"Generator: recall_build ({'editable' if editable else 'pure'})\n"
        "Root-Is-Purelib: true\nTag: py3-none-any\n"
    )


def write_metadata(metadata_directory: str) -> str:
    """The `.dist-info` folder pip asks for before building (PEP 517)."""
    project = _project()
    _, _, stem = _names(project)
    info = Path(metadata_directory) / f"{stem}.dist-info"
    info.mkdir(parents=True, exist_ok=True)
    (info / "METADATA").write_text(metadata_text(project), encoding="utf-8")
    (info / "entry_points.txt").write_text(_entry_points(project), encoding="utf-8")
    (info / "WHEEL").write_text(_wheel_text(False), encoding="utf-8")
    return info.name


def _package_files() -> Iterator[tuple[str, Path]]:
    for path in sorted(PACKAGE.rglob("*")):
        if path.is_file() and "__pycache__" not in path.parts and path.suffix not in SKIP_SUFFIXES:
            yield "recall/" + path.relative_to(PACKAGE).as_posix(), path


def _record_line(name: str, data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{name},sha256={digest},{len(data)}"


def build_wheel(wheel_directory: str, editable: bool = False) -> str:
    """Write the wheel; an editable one holds a .pth pointing at `python/` instead of copies."""
    project = _project()
    _, _, stem = _names(project)
    info = f"{stem}.dist-info"
    members: list[tuple[str, bytes]] = []
    if editable:
        members.append(("recall_sessions_editable.pth", f"{PACKAGE.parent}\n".encode()))
    else:
        members += [(name, path.read_bytes()) for name, path in _package_files()]
    members += [
        (f"{info}/METADATA", metadata_text(project).encode()),
        (f"{info}/entry_points.txt", _entry_points(project).encode()),
        (f"{info}/WHEEL", _wheel_text(editable).encode()),
    ]
    record = [_record_line(name, data) for name, data in members] + [f"{info}/RECORD,,"]
    members.append((f"{info}/RECORD", ("\n".join(record) + "\n").encode()))
    filename = f"{stem}-py3-none-any.whl"
    os.makedirs(wheel_directory, exist_ok=True)
    with zipfile.ZipFile(Path(wheel_directory) / filename, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, data in members:
            zf.writestr(zipfile.ZipInfo(name, date_time=(2026, 1, 1, 0, 0, 0)), data)
    return filename


def _sdist_files() -> Iterator[Path]:
    for part in SDIST_PARTS:
        path = ROOT / part
        if path.is_file():
            yield path
        elif path.is_dir():
            for item in sorted(path.rglob("*")):
                skip = "__pycache__" in item.parts or item.suffix in SKIP_SUFFIXES
                if item.is_file() and not skip:
                    yield item


def build_sdist(sdist_directory: str) -> str:
    """A source archive that builds either way (with cargo: native; without: pure)."""
    project = _project()
    _, _, stem = _names(project)
    filename = f"{stem}.tar.gz"
    os.makedirs(sdist_directory, exist_ok=True)
    with tarfile.open(Path(sdist_directory) / filename, "w:gz") as tar:
        pkg_info = metadata_text(project).encode()
        entry = tarfile.TarInfo(f"{stem}/PKG-INFO")
        entry.size = len(pkg_info)
        tar.addfile(entry, io.BytesIO(pkg_info))
        for path in _sdist_files():
            tar.add(path, arcname=f"{stem}/{path.relative_to(ROOT).as_posix()}", recursive=False)
    return filename
