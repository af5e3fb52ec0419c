"""Pure-Python twin of the Rust core's secret redaction (`rust/src/redact.rs`).

Both read the same rule table (`redact_rules.txt`) and apply it the same way:
each rule whose keywords occur in the text runs over the whole text; every
match whose secret passes the rule's checks becomes a span; spans are ordered
by start (earlier rules first on a tie) and overlapping spans are merged, so
every character any rule matched is replaced. Rules are compiled on first use:
a hook that sees no `sk-` never pays for compiling the OpenAI rule.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator
from pathlib import Path

from recall.spans import merge, render
from recall.textutil import scrub

RULES_FILE = Path(__file__).parent.parent / "redact_rules.txt"

_PLACEHOLDER_PREFIXES = ("$", "<", "{", "[", "%(", "%s", "#{")
_PLACEHOLDER_CHARS = frozenset("*xX.-_#•")
_PLACEHOLDER_WORDS = (
    "your",
    "example",
    "placeholder",
    "redacted",
    "xxxx",
    "****",
    "...",
    "changeme",
    "replace_me",
    "replace-me",
)
_PLACEHOLDER_EXACT = frozenset(
    {
        *("password", "passwd", "pass", "secret", "token", "bearer", "basic", "digest"),
        *("negotiate", "none", "null", "nil", "true", "false", "undefined", "string"),
        *("required", "hidden", "empty", "unset", "default"),
    }
)
_NUMERIC = frozenset("0123456789.,:_ +-")
_ASCII_LETTERS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")
_ASCII_DIGITS = frozenset("0123456789")
_ALNUM = _ASCII_LETTERS | _ASCII_DIGITS
_WORDISH = _ASCII_LETTERS | frozenset("_.-")
_IDENT_START = _ASCII_LETTERS | frozenset("_$")
_IDENT = _IDENT_START | _ASCII_DIGITS
_HEX = frozenset("0123456789abcdefABCDEF")


def entropy(text: str) -> float:
    """Shannon entropy in bits per character; characters summed in code-point order."""
    n = len(text)
    if n == 0:
        return 0.0
    counts: dict[str, int] = {}
    for ch in text:
        counts[ch] = counts.get(ch, 0) + 1
    h = 0.0
    for ch in sorted(counts):
        p = counts[ch] / n
        h -= p * math.log2(p)
    return h


def is_placeholder(value: str) -> bool:
    if value.startswith(_PLACEHOLDER_PREFIXES) or all(c in _PLACEHOLDER_CHARS for c in value):
        return True
    lower = _ascii_lower(value)
    return lower in _PLACEHOLDER_EXACT or any(w in lower for w in _PLACEHOLDER_WORDS)


def _is_code_path(value: str) -> bool:
    """`a.b.c` (optionally ending in `!` or `?`): a reference in code, not a value."""
    parts = value.rstrip("!?").split(".")
    return len(parts) >= 2 and all(
        p and p[0] in _IDENT_START and all(c in _IDENT for c in p) for p in parts
    )


def looks_like_value(value: str) -> bool:
    """An assignment's value that could be a secret rather than code, a number or a path."""
    if len(value) < 6 or is_placeholder(value):
        return False
    if all(c in _NUMERIC for c in value) or "://" in value:
        return False
    if value.startswith(("/", "~", "./", "../")) or value[1:3] == ":\\":
        return False
    if _is_code_path(value):
        return False
    if all(c in _WORDISH for c in value):
        return len(value) >= 20 and "_" not in value and "." not in value
    return True


def is_uuid(value: str) -> bool:
    parts = value.split("-")
    return [len(p) for p in parts] == [8, 4, 4, 4, 12] and all(c in _HEX for p in parts for c in p)


def _ascii_lower(text: str) -> str:
    """`text` with A-Z lowered and nothing else changed, so indices still line up
    (`str.lower` alone can change a non-ASCII text's length: `İ` becomes two)."""
    return text.lower() if text.isascii() else text.translate(_LOWER)


_LOWER = {c: c + 32 for c in range(ord("A"), ord("Z") + 1)}


class Rule:
    """One line of the rule table."""

    def __init__(self, index: int, line: str) -> None:
        fields = line.split("\t")
        if len(fields) != 5:
            raise ValueError(f"bad redaction rule line: {line!r}")
        self.index = index
        self.id, self.label, checks, keywords, self.pattern = fields
        self.keywords = () if keywords == "-" else tuple(keywords.split(","))
        self.boundary = self.mixed = self.no_uuid = self.placeholder = self.value = False
        self.min_entropy: float | None = None
        for check in checks.split():
            if check == "B":
                self.boundary = True
            elif check == "M":
                self.mixed = True
            elif check == "U":
                self.no_uuid = True
            elif check == "P":
                self.placeholder = True
            elif check == "V":
                self.value = True
            elif check.startswith("E"):
                self.min_entropy = float(check[1:])
            elif check != "-":
                raise ValueError(f"unknown check {check!r} in rule {self.id}")
        self._regex: re.Pattern[str] | None = None
        lead = _LEAD.match(self.pattern)
        self.lead = tuple(w.lower() for w in lead.group(1).split("|")) if lead else None
        """When the pattern opens with `(?i:word|word…)`, those words: a match can only
        start where one occurs, so only those places are tried (sre cannot skip ahead
        to a case-insensitive alternation by itself, and scans position by position)."""

    @property
    def regex(self) -> re.Pattern[str]:
        if self._regex is None:
            self._regex = re.compile(self.pattern, re.ASCII)
        return self._regex

    def accepts(self, text: str, start: int, end: int) -> bool:
        secret = text[start:end]
        if self.boundary and (
            (start > 0 and text[start - 1] in _ALNUM) or (end < len(text) and text[end] in _ALNUM)
        ):
            return False
        if self.placeholder and is_placeholder(secret):
            return False
        if self.value and not looks_like_value(secret):
            return False
        if self.mixed and not (
            any(c in _ASCII_DIGITS for c in secret) and any(c in _ASCII_LETTERS for c in secret)
        ):
            return False
        if self.no_uuid and is_uuid(secret):
            return False
        return self.min_entropy is None or entropy(secret) >= self.min_entropy

    def matches(self, text: str, lower: str) -> Iterator[re.Match[str]]:
        """The same matches as `regex.finditer(text)`, found faster when the rule has a lead."""
        if self.lead is None:
            yield from self.regex.finditer(text)
            return
        starts: set[int] = set()
        for word in self.lead:
            at = lower.find(word)
            while at >= 0:
                starts.add(at)
                at = lower.find(word, at + 1)
        end = 0
        for at in sorted(starts):
            if at < end:
                continue
            m = self.regex.match(text, at)
            if m is not None:
                yield m
                end = m.end()


_LEAD = re.compile(r"\(\?i:([A-Za-z0-9_-]+(?:\|[A-Za-z0-9_-]+)*)\)")


def load_rules(text: str) -> list[Rule]:
    lines = [ln for ln in text.splitlines() if ln.strip() and not ln.startswith("#")]
    return [Rule(i, ln) for i, ln in enumerate(lines)]


_RULES: list[Rule] | None = None


def rules() -> list[Rule]:
    global _RULES
    if _RULES is None:
        _RULES = load_rules(RULES_FILE.read_text(encoding="utf-8"))
    return _RULES


def secret_spans(text: str) -> list[tuple[int, int, str]]:
    text = scrub(text)
    lower = _ascii_lower(text)
    found: list[tuple[int, int, int]] = []
    for rule in rules():
        if rule.keywords and not any(k in lower for k in rule.keywords):
            continue
        for m in rule.matches(text, lower):
            group = next((g for g in range(1, rule.regex.groups + 1) if m.start(g) >= 0), 0)
            start, end = m.span(group)
            if start < end and rule.accepts(text, start, end):
                found.append((start, end, rule.index))
    found.sort(key=lambda f: (f[0], f[2]))
    table = rules()
    return [(s, e, table[i].label) for s, e, i in found]


def redact(text: str) -> str:
    text = scrub(text)
    return render(text, merge(secret_spans(text)))
