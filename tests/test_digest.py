"""`recall.digest` gives hashlib's digests, whichever implementation it found."""

from __future__ import annotations

import hashlib

import pytest

from recall import digest


@pytest.mark.parametrize("data", [b"", b"abc", bytes(range(256)) * 40])
def test_digests_match_hashlib(data: bytes) -> None:
    assert digest.sha1_hex(data) == hashlib.sha1(data).hexdigest()
    assert digest.sha256_hex(data) == hashlib.sha256(data).hexdigest()


def test_falls_back_to_hashlib_when_the_builtin_modules_are_missing(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(digest, "_loaded", {})
    monkeypatch.setitem(digest._SOURCES, "sha1", (("_no_such_sha1", "sha1"), ("hashlib", "sha1")))
    assert digest.sha1_hex(b"abc") == hashlib.sha1(b"abc").hexdigest()
    assert digest._loaded["sha1"] is hashlib.sha1
