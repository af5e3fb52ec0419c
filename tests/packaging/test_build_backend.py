"""recall's build backend: a complete pure wheel without Rust, maturin only with cargo."""

from __future__ import annotations

import base64
import hashlib
import os
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

from paths import REPO

PACKAGE = REPO / "python" / "recall"


def _backend(call: str, out: Path, env: dict[str, str]) -> str:
    code = f"import recall_build, sys; print(recall_build.{call}({str(out)!r}))"
    done = subprocess.run(
        [sys.executable, "-c", code],
        cwd=REPO,
        env={**os.environ, "PYTHONPATH": str(REPO / "packaging"), **env},
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    return done.stdout.strip().splitlines()[-1]


def test_without_cargo_the_wheel_is_pure_and_complete(tmp_path: Path) -> None:
    name = _backend("build_wheel", tmp_path, {"PATH": "/usr/bin:/bin"})
    assert name == "recall_sessions-0.1.0-py3-none-any.whl"
    with zipfile.ZipFile(tmp_path / name) as zf:
        names = set(zf.namelist())
        meta = zf.read("recall_sessions-0.1.0.dist-info/METADATA").decode()
        record = zf.read("recall_sessions-0.1.0.dist-info/RECORD").decode()
        entry = zf.read("recall_sessions-0.1.0.dist-info/entry_points.txt").decode()
        for line in record.splitlines():
            member, digest, _ = line.split(",")
            if digest:
                raw = hashlib.sha256(zf.read(member)).digest()
                assert digest == "sha256=" + base64.urlsafe_b64encode(raw).rstrip(b"=").decode()
    wanted = {
        "recall/" + p.relative_to(PACKAGE).as_posix()
        for p in PACKAGE.rglob("*")
        if p.is_file() and "__pycache__" not in p.parts and p.suffix not in (".so", ".pyc")
    }
    assert wanted <= names
    assert {"recall/redact_rules.txt", "recall/models/all-MiniLM-L6-v2.json"} <= names
    assert not [n for n in names if n.endswith((".so", ".pyd"))]
    assert "Name: recall-sessions" in meta and "Requires-Dist: numpy" in meta
    assert "recall = recall.cli:cli" in entry


def test_recall_pure_forces_the_pure_wheel_even_with_cargo(tmp_path: Path) -> None:
    name = _backend("build_wheel", tmp_path, {"RECALL_PURE": "1"})
    assert name.endswith("-py3-none-any.whl")


def test_maturin_is_asked_for_only_when_it_will_build(tmp_path: Path) -> None:
    code = "import recall_build; print(recall_build.get_requires_for_build_wheel())"
    env = {**os.environ, "PYTHONPATH": str(REPO / "packaging")}
    bare = subprocess.run(
        [sys.executable, "-c", code],
        cwd=REPO,
        env={**env, "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        check=True,
    )
    assert bare.stdout.strip() == "[]"


def test_the_sdist_carries_what_either_build_needs(tmp_path: Path) -> None:
    name = _backend("build_sdist", tmp_path, {"PATH": "/usr/bin:/bin"})
    with tarfile.open(tmp_path / name) as tar:
        names = set(tar.getnames())
    root = name.removesuffix(".tar.gz")
    for needed in (
        "pyproject.toml",
        "Cargo.toml",
        "rust/src/lib.rs",
        "packaging/recall_build/pure.py",
        "python/recall/cli/__init__.py",
        "PKG-INFO",
    ):
        assert f"{root}/{needed}" in names, needed


def test_a_rust_build_says_what_it_is_doing_and_when_it_is_done(tmp_path: Path) -> None:
    """pip hides a backend's output: the Rust build announces itself, ticks, and ends."""
    fake = tmp_path / "fake"
    fake.mkdir()
    (fake / "cargo").write_text("#!/bin/sh\nexit 0\n")
    (fake / "cargo").chmod(0o755)
    (fake / "maturin.py").write_text(
        "import time\n"
        "def build_wheel(directory, settings=None, metadata=None):\n"
        "    time.sleep(0.5)\n"
        "    return 'recall_sessions-0-cp311-abi3-linux_x86_64.whl'\n"
    )
    code = (
        "import recall_build, recall_build.progress as p\n"
        "p_tick = p.ticking\n"
        "recall_build.ticking = lambda what: p_tick(what, every=0.1)\n"
        f"print(recall_build.build_wheel({str(tmp_path)!r}))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        cwd=REPO,
        env={
            **os.environ,
            "PYTHONPATH": os.pathsep.join([str(REPO / "packaging"), str(fake)]),
            "PATH": os.pathsep.join([str(fake), "/usr/bin", "/bin"]),
            "RECALL_PURE": "",
        },
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    assert done.stdout.strip().endswith("abi3-linux_x86_64.whl")
    said = done.stderr.splitlines()
    assert said[0].startswith("recall: building the Rust core with cargo")
    assert any("s so far" in line for line in said[1:-1]), said
    assert said[-1].startswith("recall: building the Rust core: done in")
