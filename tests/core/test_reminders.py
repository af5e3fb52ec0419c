"""`<system-reminder>` stripping: both cores give the expected text, and each other's."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from fixtext import fixture_strings
from parity import RUST, TWIN, needs_rust

pytestmark = [pytest.mark.parity, needs_rust]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("hello", "hello"),
        ("  <system-reminder>a\nb</system-reminder>\nfix the bug\n", "fix the bug"),
        ("a<system-reminder>x</system-reminder>b<system-reminder>y</system-reminder>c", "abc"),
        ("ask <system-reminder>cut mid-reminder", "ask"),
        ("<system-reminder>only</system-reminder>", ""),
        ("keep </system-reminder> stray", "keep </system-reminder> stray"),
        ("\u3000日本語のテキスト\x1f", "日本語のテキスト"),
        ("<SYSTEM-REMINDER>case</SYSTEM-REMINDER>", "<SYSTEM-REMINDER>case</SYSTEM-REMINDER>"),
        ("cut emoji \ud83d here", "cut emoji \ufffd here"),
        ("\udc00\ud83d\ude00<system-reminder>\ud800</system-reminder>", "\ufffd😀"),
    ],
)
def test_strip_reminders(core: object, text: str, expected: str) -> None:
    assert core.strip_reminders(text) == expected  # type: ignore[attr-defined]


pieces = st.sampled_from(
    [
        "<system-reminder>",
        "</system-reminder>",
        "<system-",
        "reminder>",
        " ",
        "\n",
        "\x1f",
        "\u3000",
        "\u2028",
        "\x85",
        "text",
        "日本",
        "🙂",
        "<",
        ">",
    ]
)


@given(
    st.lists(
        st.one_of(pieces, st.text(max_size=8), st.text(st.characters(categories=["Cs"]))),
        max_size=30,
    ).map("".join)
)
def test_cores_agree_on_generated_text(text: str) -> None:
    assert RUST.strip_reminders(text) == TWIN.strip_reminders(text)


def test_cores_agree_on_every_fixture_string(transcripts: Path) -> None:
    """Every string inside every shared transcript strips identically in both cores."""
    strings = fixture_strings(transcripts)
    assert len(strings) > 1000
    assert any("<system-reminder>" in s for s in strings)
    for s in strings:
        assert RUST.strip_reminders(s) == TWIN.strip_reminders(s)


def test_core_version_matches_package() -> None:
    from recall import __version__

    assert RUST.__version__ == __version__
