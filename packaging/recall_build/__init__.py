"""recall's build backend (PEP 517): the Rust core when cargo is here, pure Python otherwise.

maturin builds the wheel with the native core `recall._core`. Without
`cargo` on PATH, maturin would download a Rust toolchain (~670 MB) behind
pip's "still running…", and fail on a machine without internet. This
backend never lets it: with no cargo, or with `RECALL_PURE=1`, it builds a
pure-Python wheel (`py3-none-any`) itself, and recall runs on its twin.
`recall status` then says the Rust core is not built. The choice is said on
the terminal, with the Rust build's progress, since pip hides build output.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Mapping
from typing import Any

from recall_build import pure
from recall_build.progress import announce, ticking

Settings = Mapping[str, Any] | None


def use_rust() -> bool:
    """Build the native core: cargo is on PATH and the user did not ask for pure Python."""
    if os.environ.get("RECALL_PURE", "").strip() not in ("", "0"):
        return False
    return shutil.which("cargo") is not None


def _why_pure() -> str:
    if os.environ.get("RECALL_PURE", "").strip() not in ("", "0"):
        return "RECALL_PURE is set"
    return "no cargo on PATH"


def get_requires_for_build_wheel(config_settings: Settings = None) -> list[str]:
    return ["maturin>=1.5,<2"] if use_rust() else []


def get_requires_for_build_editable(config_settings: Settings = None) -> list[str]:
    return get_requires_for_build_wheel(config_settings)


def get_requires_for_build_sdist(config_settings: Settings = None) -> list[str]:
    return []


def prepare_metadata_for_build_wheel(
    metadata_directory: str, config_settings: Settings = None
) -> str:
    if use_rust():
        import maturin

        return str(maturin.prepare_metadata_for_build_wheel(metadata_directory, config_settings))
    return pure.write_metadata(metadata_directory)


def prepare_metadata_for_build_editable(
    metadata_directory: str, config_settings: Settings = None
) -> str:
    return prepare_metadata_for_build_wheel(metadata_directory, config_settings)


def build_wheel(
    wheel_directory: str, config_settings: Settings = None, metadata_directory: str | None = None
) -> str:
    return _build(wheel_directory, config_settings, metadata_directory, editable=False)


def build_editable(
    wheel_directory: str, config_settings: Settings = None, metadata_directory: str | None = None
) -> str:
    return _build(wheel_directory, config_settings, metadata_directory, editable=True)


def _build(
    wheel_directory: str, config_settings: Settings, metadata_directory: str | None, editable: bool
) -> str:
    if use_rust():
        import maturin

        build = maturin.build_editable if editable else maturin.build_wheel
        announce("building the Rust core with cargo (1-3 minutes; RECALL_PURE=1 skips it)")
        with ticking("building the Rust core"):
            return str(build(wheel_directory, config_settings, metadata_directory))
    announce(f"installing without the Rust core ({_why_pure()}): recall runs on pure Python")
    return pure.build_wheel(wheel_directory, editable=editable)


def build_sdist(sdist_directory: str, config_settings: Settings = None) -> str:
    return pure.build_sdist(sdist_directory)
