"""The contract of recall's core, implemented twice.

`recall._core` (Rust, built by maturin) and `recall._pycore` (pure Python)
expose exactly these names with exactly these semantics; `recall._accel`
picks one. Parity tests run every fixture through both.
"""

__all__ = ["__version__", "redact", "secret_spans", "strip_reminders"]

__version__: str

def strip_reminders(text: str) -> str:
    """Remove every `<system-reminder>…</system-reminder>` span and trim.

    Spans are matched non-greedily; an opening tag with no closing tag removes
    the rest of the text. The result is trimmed of the characters
    `str.strip()` removes. Each lone surrogate (half an emoji escaped in
    JSON) becomes U+FFFD first, since such text cannot be UTF-8.
    """

# --- issue 5: secret redaction ---

def redact(text: str) -> str:
    """Replace every secret the built-in rules find with `[REDACTED:label]`.

    The rules are `recall/redact_rules.txt`: each rule whose keywords occur
    in the text runs over it; a match whose secret (its first capture group
    that took part, else the whole match) passes the rule's checks is a span;
    overlapping spans merge, labelled by the earliest (then the rule listed
    first). Lone surrogates become U+FFFD first.
    """

def secret_spans(text: str) -> list[tuple[int, int, str]]:
    """Every accepted match as `(start, end, label)`, in character offsets.

    Ordered by start, then by the rule's place in the table; not merged, so
    a caller can drop some (an allow-list) before merging the rest.
    """

# --- end issue 5 ---
