"""Both cores read exactly the JSON Python's `json` reads, no more and no less.

The Rust core checks each line with its own scanner (`rust/src/jsonscan.rs`);
the twin uses msgspec with the stdlib as fallback. The oracle here is the
stdlib alone: a value it reads makes the line a turn, one it refuses makes
the line "broken JSON", in both cores (as does nesting past 256).
"""

from __future__ import annotations

import json
import os

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from parity import TWIN, both, needs_rust

pytestmark = [pytest.mark.parity, needs_rust]

ORIGIN = ("s", None, None, False)
EXAMPLES = int(os.environ.get("RECALL_PARITY_EXAMPLES", "150"))
fuzz = settings(
    max_examples=EXAMPLES * 4,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)


MAX_DEPTH = 256  # the documented limit on nesting (docs/mirror.md)


def depth(value: object) -> int:
    if isinstance(value, dict):
        value = list(value.values())
    if not isinstance(value, list):
        return 0
    return 1 + max(map(depth, value), default=0)


def python_reads(value: bytes) -> bool:
    try:
        return depth(json.loads(value.decode("utf-8"))) <= MAX_DEPTH
    except (ValueError, RecursionError):
        return False


def envelope(value: bytes) -> bytes:
    """A Claude prompt line carrying `value` in a member no adapter reads."""
    return b'{"type":"user","message":{"content":"hello"},"x":' + value + b"}\n"


def check(value: bytes) -> None:
    """Both cores agree on the line, and keep the turn exactly when Python reads it."""
    line = envelope(value)
    both("claude", line, 0, {}, ORIGIN)
    parsed = TWIN.parse_transcript("claude", line, 0, {}, ORIGIN)
    kept = sum(len(part[8]) for part in parsed[0])
    assert (kept == 1) == python_reads(line), value


TRICKY = [
    b"{}",
    b" [ 1 , -0 , 0.5 , 1e5 , 2E-3 , 3e+0 ] ",
    b"NaN",
    b"Infinity",
    b"-Infinity",
    b"[NaN,-Infinity]",
    b'"\\ud800 lone \\udc00"',
    b'"\\u00e9\\"\\\\\\/\\b\\f\\n\\r\\t"',
    b'{"a":1,"a":2}',
    b'{"\\u0074ype":"assistant"}',
    b"123456789012345678901234567890",
    b"1e400",
    b"{",
    b'{"a":1,}',
    b"[1,]",
    b"[,1]",
    b'{"a" 1}',
    b"{a:1}",
    b"01",
    b"-01",
    b"1.",
    b".5",
    b"1e",
    b"1e+",
    b"-",
    b"+1",
    b"-NaN",
    b"nan",
    b"infinity",
    b"[1NaN]",
    b"tru",
    b"nul",
    b"truex",
    b'"tab\there"',
    b'"nul\x00byte"',
    b'"\\x41"',
    b'"\\u12"',
    b'"\\u12g4"',
    b'"open',
    b"1 2",
    b"\x0b1",
    b"\x0c1",
    b"\xc2\xa01",
    b"\xef\xbb\xbf1",
    b"[" * 254 + b"]" * 254,
    b"[" * 255 + b"]" * 255,
    b"[" * 256 + b"]" * 256,
]


@pytest.mark.parametrize("value", TRICKY)
def test_tricky_values(value: bytes) -> None:
    check(value)


def test_depth_limit_is_the_documented_one() -> None:
    # The envelope is one level, so 255 more fit and 256 do not.
    keep = TWIN.parse_transcript("claude", envelope(b"[" * 255 + b"]" * 255), 0, {}, ORIGIN)
    drop = TWIN.parse_transcript("claude", envelope(b"[" * 256 + b"]" * 256), 0, {}, ORIGIN)
    assert len(keep[0][0][8]) == 1
    assert dict(drop[3]) == {"broken JSON": 1}
    for line in (b"[" * 255 + b"]" * 255, b"[" * 256 + b"]" * 256):
        both("claude", envelope(line), 0, {}, ORIGIN)


TOKENS = [
    "{", "}", "[", "]", ",", ":", " ", "\t", "\r", "\x0b",
    '"k"', '"type"', '"\\u0041"', '"\\ud83d"', '"\\ude00\\ud83d"', '"\\x"', '"a\tb"', '"é"',
    "0", "-0", "1", "01", "1.", "1.5", "-2e3", "1e", "1E+9", "-", ".",
    "true", "false", "null", "tru", "NaN", "-NaN", "Infinity", "-Infinity",
]  # fmt: skip

soup = st.lists(st.sampled_from(TOKENS), max_size=14).map(lambda t: "".join(t).encode())


@fuzz
@given(value=soup)
def test_token_soup(value: bytes) -> None:
    check(value)


json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=4), inner, max_size=4)
    ),
    max_leaves=12,
)


@fuzz
@given(
    value=json_values,
    at=st.integers(0, 2**16),
    byte=st.sampled_from(list(b'{}[],:"\\ -.e0aN\t')),
    how=st.sampled_from(["insert", "replace", "delete"]),
)
def test_one_byte_away_from_valid(value: object, at: int, byte: int, how: str) -> None:
    text = bytearray(json.dumps(value).encode("utf-8", "surrogatepass"))
    i = at % (len(text) + 1)
    if how == "insert":
        text[i:i] = bytes([byte])
    elif i < len(text):
        text[i : i + 1] = b"" if how == "delete" else bytes([byte])
    if b"\n" not in text:
        check(bytes(text))
