"""The contract of recall's core, implemented twice.

`recall._core` (Rust, built by maturin) and `recall._pycore` (pure Python)
expose exactly these names with exactly these semantics; `recall._accel`
picks one. Parity tests run every fixture through both.
"""

__all__ = ["__version__", "strip_reminders"]

__version__: str

def strip_reminders(text: str) -> str:
    """Remove every `<system-reminder>…</system-reminder>` span and trim.

    Spans are matched non-greedily; an opening tag with no closing tag removes
    the rest of the text. The result is trimmed of the characters
    `str.strip()` removes. Each lone surrogate (half an emoji escaped in
    JSON) becomes U+FFFD first, since such text cannot be UTF-8.
    """
