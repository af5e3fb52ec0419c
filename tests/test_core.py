"""Both cores agree: the Rust `_core` and the pure-Python twin give identical results."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from fixtext import fixture_strings
from recall import _accel

TWIN = _accel.twin()

try:
    from recall import _core  # type: ignore[attr-defined]
except ImportError:  # pragma: no cover - the CI always builds it
    _core = None

needs_rust = pytest.mark.skipif(_core is None, reason="Rust core not built")
CORES = [pytest.param(TWIN, id="python"), pytest.param(_core, id="rust", marks=needs_rust)]


@pytest.mark.parametrize("core", CORES)
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


@needs_rust
@given(
    st.lists(
        st.one_of(pieces, st.text(max_size=8), st.text(st.characters(categories=["Cs"]))),
        max_size=30,
    ).map("".join)
)
def test_cores_agree_on_generated_text(text: str) -> None:
    assert _core.strip_reminders(text) == TWIN.strip_reminders(text)


@needs_rust
def test_cores_agree_on_every_fixture_string(transcripts: Path) -> None:
    """Every string inside every shared transcript strips identically in both cores."""
    strings = fixture_strings(transcripts)
    assert len(strings) > 1000
    assert any("<system-reminder>" in s for s in strings)
    for s in strings:
        assert _core.strip_reminders(s) == TWIN.strip_reminders(s)


@needs_rust
def test_core_version_matches_package() -> None:
    from recall import __version__

    assert _core.__version__ == __version__


def test_selector_reports_its_choice() -> None:
    assert _accel.IMPL in ("rust", "python")
    assert _accel.IMPL_REASON
    assert _accel.strip_reminders is _accel.core.strip_reminders


def test_selector_rejects_unknown_impl(monkeypatch: pytest.MonkeyPatch) -> None:
    from recall.errors import ConfigError

    monkeypatch.setenv("RECALL_IMPL", "fortran")
    with pytest.raises(ConfigError, match="RECALL_IMPL"):
        _accel._select()


def test_selector_python_forced(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RECALL_IMPL", "python")
    module, name, reason = _accel._select()
    assert module is TWIN and name == "python" and "RECALL_IMPL" in reason
