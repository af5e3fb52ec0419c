"""Parse with both cores and insist they agree (the parity tests' one comparison)."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from recall import _accel
from recall.types import Origin

TWIN = _accel.twin()
"""The pure-Python twin, shaped like `recall._core`."""

try:
    from recall import _core as RUST  # type: ignore[attr-defined]
except ImportError:  # the suite's CI always builds it
    RUST = None

needs_rust = pytest.mark.skipif(RUST is None, reason="Rust core not built (maturin develop)")


def both(agent: str, data: bytes, base: int, state: dict[str, Any], origin: Origin) -> Any:
    """The twin's result, after asserting the Rust core's is identical."""
    py = TWIN.parse_transcript(agent, data, base, copy.deepcopy(state), origin)
    rs = RUST.parse_transcript(agent, data, base, copy.deepcopy(state), origin)
    assert rs == py
    return py


def in_pieces(agent: str, data: bytes, cut: int, origin: Origin) -> None:
    """Parse `data[:cut]`, then the rest from where that parse stopped, on both cores."""
    if origin[3]:
        both(agent, data, 0, {}, origin)
        return
    _, offset, state, _, _ = both(agent, data[:cut], 0, {}, origin)
    both(agent, data[offset:], offset, state, origin)
