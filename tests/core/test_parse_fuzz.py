"""Both cores agree on generated hostile transcripts, whole and resumed at any byte.

`RECALL_PARITY_EXAMPLES` raises the number of cases per test (the acceptance
run uses 10000 per agent; see docs/rust-core.md).
"""

from __future__ import annotations

import os

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from parity import both, in_pieces, needs_rust
from transcript_strategies import AGENT_LINES, ORIGINS, gemini_document, transcript

pytestmark = [pytest.mark.parity, needs_rust]

EXAMPLES = int(os.environ.get("RECALL_PARITY_EXAMPLES", "150"))
fuzz = settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


@pytest.mark.parametrize("agent", sorted(AGENT_LINES))
def test_generated_transcripts_agree(agent: str) -> None:
    @fuzz
    @given(
        data=transcript(AGENT_LINES[agent]),
        origin=st.sampled_from(ORIGINS[agent]),
        cut=st.integers(0, 2**20),
    )
    def check(data: bytes, origin: tuple[str, str | None, str | None, bool], cut: int) -> None:
        both(agent, data, 0, {}, origin)
        in_pieces(agent, data, cut % (len(data) + 1), origin)

    check()


@fuzz
@given(doc=gemini_document, ascii_only=st.booleans())
def test_generated_gemini_documents_agree(doc: dict[str, object], ascii_only: bool) -> None:
    import json

    data = json.dumps(doc, ensure_ascii=ascii_only).encode("utf-8", "surrogatepass")
    both("gemini", data, 0, {}, ("session-old", None, None, True))


@pytest.mark.parametrize(
    "line",
    [
        b'{"type":"user","message":{"content":"a\\ud83d"},"sessionId":"s\\udc00"}',
        b'{"type":"user","message":{"content":"x"},"t":NaN,"u":-Infinity}',
        b'{"type":"user","message":{"content":"x"},"t":-NaN}',
        b'{"type":"user","message":{"content":"x"},"n":1e400,"m":123456789012345678901234567890}',
        b'{"type":"user","type":"assistant","message":{"content":"dup keys: last wins"}}',
        b'{"type":"user","message":{"content":"bad \xff byte"}}',
        b'{"type":"user","x":' + b"[" * 256 + b"]" * 256 + b"}",
        b'{"type":"user","x":' + b"[" * 255 + b"]" * 255 + b',"message":{"content":"ok"}}',
        b'{"type":"user","x":"' + b"[" * 5000 + b'","message":{"content":"brackets in a string"}}',
    ],
)
def test_json_edge_cases_agree(line: bytes) -> None:
    for agent, origins in ORIGINS.items():
        for end in (b"", b"\n"):
            both(agent, line + end, 0, {}, origins[0])


def test_gemini_epoch_timestamps_agree() -> None:
    for value in (
        "0",
        "1741518000123",
        "1741518000.0004995",
        "-1.5",
        "1e300",
        "10" * 160,
        "253402300799.9999999",
    ):
        data = b'{"id":"u1","type":"user","content":"hi","timestamp":%s}\n' % value.encode()
        parts, _, _, _, _ = both("gemini", data, 0, {}, ("s", None, None, False))
        assert parts and parts[0][8][0][2] == "hi"
