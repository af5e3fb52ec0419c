"""Redaction as the user configured it: the core's built-in rules plus config.

The built-in rules run in the active core (`recall._accel.redact`). What the
config adds — an allow-list, rules switched off, extra patterns — runs here,
in Python `re`, whichever core is active: user patterns are written in
Python's regex syntax, and running them in one engine keeps both cores'
output identical. With no such settings the core's `redact` is the whole job.
"""

from __future__ import annotations

import json
import re
from typing import Any

from recall.config import RedactConfig
from recall.errors import ConfigError
from recall.privacy.pattern_check import why_unsafe
from recall.textutil import scrub

Span = tuple[int, int, str]


class Redactor:
    """Replaces secrets in text with `[REDACTED:label]`, honouring `[redact]` settings."""

    def __init__(self, settings: RedactConfig) -> None:
        self.enabled = settings.enabled
        self.allow = frozenset(settings.allow)
        self.disable = frozenset(settings.disable)
        for label, text in [
            *((f"[[redact.extra]] {x.name!r}", x.pattern) for x in settings.extra),
            *(("[redact] allow_patterns", p) for p in settings.allow_patterns),
        ]:
            why = why_unsafe(text)
            if why:
                raise ConfigError(
                    f"{label} pattern {text!r} refused: {why}; rewrite it without a"
                    " repeated group that repeats or branches inside"
                )
        try:
            self.allow_patterns = [re.compile(p) for p in settings.allow_patterns]
            self.extra = [(x.name, re.compile(x.pattern)) for x in settings.extra]
        except re.error as exc:
            raise ConfigError(f"bad pattern in [redact]: {exc}") from exc
        for name, pattern in self.extra:
            if pattern.search(""):
                raise ConfigError(f"[[redact.extra]] {name!r} matches empty text")
        self.plain = not (self.allow or self.disable or self.allow_patterns or self.extra)
        from recall import _accel

        self._builtin = _accel.redact  # bound once: sync calls `redact` per message

    def _allowed(self, secret: str) -> bool:
        return secret in self.allow or any(p.fullmatch(secret) for p in self.allow_patterns)

    def spans(self, text: str) -> list[Span]:
        """The merged spans this redactor replaces in `text` (already scrubbed)."""
        from recall import _accel
        from recall.spans import merge

        found = [
            s
            for s in _accel.secret_spans(text)
            if s[2] not in self.disable and not self._allowed(text[s[0] : s[1]])
        ]
        for name, pattern in self.extra:
            for m in pattern.finditer(text):
                group = next((g for g in range(1, pattern.groups + 1) if m.start(g) >= 0), 0)
                start, end = m.span(group)
                if start < end and not self._allowed(text[start:end]):
                    found.append((start, end, name))
        found.sort(key=lambda s: s[0])  # stable: built-in rules first on a tie
        return merge(found)

    def redact(self, text: str) -> str:
        text = scrub(text)
        if not self.enabled:
            return text
        if self.plain:
            return self._builtin(text)
        from recall.spans import render

        return render(text, self.spans(text))

    def redact_json(self, value: Any) -> Any:
        """`value` with every string inside it (not dict keys) redacted."""
        if isinstance(value, str):
            return self.redact(value)
        if isinstance(value, list):
            return [self.redact_json(v) for v in value]
        if isinstance(value, dict):
            return {k: self.redact_json(v) for k, v in value.items()}
        return value

    def redact_line(self, line: bytes) -> bytes:
        """One transcript line as it may leave recall (`show --raw`, the daemon).

        What is printed is redacted, not what a parser kept: every JSON key and
        value, the first of two duplicate keys as well as the second, escapes
        decoded (so `\\u0067hp_…` is seen as `ghp_…`). A line that is not JSON (a
        half-written last line) is checked as text and again with its escapes
        decoded. A line with nothing to redact comes back byte for byte.
        """
        text = line.decode("utf-8", errors="replace")
        end = "\n" if text.endswith("\n") else ""
        try:
            obj = json.loads(text, object_pairs_hook=_Pairs)
        except ValueError:
            clean = self.redact(text)
            decoded = _unescape(text)
            if decoded != text and self.redact(decoded) != decoded:
                clean = self.redact(decoded).rstrip("\n") + end
            return line if clean == text else clean.encode("utf-8")
        clean_obj, changed = self._redact_tree(obj)
        if not changed:
            return line
        return (_dump(clean_obj) + end).encode("utf-8")

    def _redact_tree(self, value: Any) -> tuple[Any, bool]:
        """`value` (from `json.loads` with `_Pairs`) with every key and string redacted."""
        if isinstance(value, str):
            clean = self.redact(value)
            return clean, clean != value
        if isinstance(value, _Pairs):
            pairs = _Pairs()
            changed = False
            for key, item in value:
                new_key, a = self._redact_tree(key)
                new_item, b = self._redact_tree(item)
                pairs.append((new_key, new_item))
                changed = changed or a or b
            return pairs, changed
        if isinstance(value, list):
            items = [self._redact_tree(v) for v in value]
            return [v for v, _ in items], any(c for _, c in items)
        return value, False


class _Pairs(list[tuple[str, Any]]):
    """A JSON object as its key/value pairs in order, duplicates kept."""


def _dump(value: Any) -> str:
    if isinstance(value, _Pairs):
        members = (json.dumps(k, ensure_ascii=False) + ":" + _dump(v) for k, v in value)
        return "{" + ",".join(members) + "}"
    if isinstance(value, list):
        return "[" + ",".join(_dump(v) for v in value) + "]"
    return json.dumps(value, ensure_ascii=False)


_ESCAPE = re.compile(r"\\(u[0-9a-fA-F]{4}|[\"\\/bfnrt])")
_SIMPLE = {"b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t", '"': '"', "\\": "\\", "/": "/"}


def _unescape(text: str) -> str:
    """`text` with JSON string escapes decoded (a lone surrogate becomes U+FFFD)."""

    def one(m: re.Match[str]) -> str:
        code = m.group(1)
        if code[0] == "u":
            return scrub(chr(int(code[1:], 16)))
        return _SIMPLE[code]

    return _ESCAPE.sub(one, text)


_CACHED: list[tuple[object, Redactor]] = []


def current() -> Redactor:
    """The redactor for the user's config, rebuilt only when the config object changes."""
    from recall.config import load_config

    settings = load_config().redact
    if not _CACHED or _CACHED[0][0] is not settings:
        _CACHED[:] = [(settings, Redactor(settings))]
    return _CACHED[0][1]


def redact_text(text: str) -> str:
    """Redact with the user's settings (built-in rules alone if the config is unreadable)."""
    try:
        redactor = current()
    except ConfigError:
        from recall import _accel

        return _accel.redact(scrub(text))
    return redactor.redact(text)
