"""SHA digests without OpenSSL's load time, which a hook pays on every turn.

`hashlib` loads OpenSSL (`_hashlib`, ~2.5 ms a process); CPython's own
`_sha1` and `_sha256` (`_sha2` from 3.12) modules give the same digests and
load in a fraction of that. `hashlib` is the fallback where they are missing.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

Hasher = Callable[[bytes], Any]


def _pick(*candidates: tuple[str, str]) -> Hasher:
    import importlib

    for module, name in candidates:
        try:
            return getattr(importlib.import_module(module), name)  # type: ignore[no-any-return]
        except (ImportError, AttributeError):
            continue
    raise ImportError(f"no {candidates[-1][1]} implementation")


_SOURCES = {
    "sha1": (("_sha1", "sha1"), ("hashlib", "sha1")),
    "sha256": (("_sha2", "sha256"), ("_sha256", "sha256"), ("hashlib", "sha256")),
}
_loaded: dict[str, Hasher] = {}


def _hex(name: str, data: bytes) -> str:
    hasher = _loaded.get(name) or _loaded.setdefault(name, _pick(*_SOURCES[name]))
    return str(hasher(data).hexdigest())


def sha1_hex(data: bytes) -> str:
    return _hex("sha1", data)


def sha256_hex(data: bytes) -> str:
    return _hex("sha256", data)
