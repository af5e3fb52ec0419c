"""BERT WordPiece in pure Python, for embedding an ASCII query without `tokenizers`.

A cold search paid ~25 ms of CPU to import `tokenizers` and parse its 466 kB
`tokenizer.json` to tokenize a few words. For a BERT tokenizer.json
(BertNormalizer, BertPreTokenizer, WordPiece) and an ASCII query this gives
exactly the ids `tokenizers` gives: on ASCII every step is plain (control
characters dropped, whitespace split, each punctuation mark a word, lower
case, greedy longest-match pieces; special tokens matched in the raw text).
Beyond ASCII, Unicode tables of different versions (Python's and the Rust
crate's) could disagree, so such a query goes to `tokenizers`, as do other
kinds of tokenizer. The vocabulary is kept as plain text in recall's model
cache (~3 ms to read). `tests/semantic/test_wordpiece.py` checks the ids
against `tokenizers` on real and hostile text.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

FORMAT = 1
_DROP: dict[int, None] = {
    c: None for c in (*range(0x00, 0x09), 0x0B, 0x0C, *range(0x0E, 0x20), 0x7F)
}
"""ASCII control characters other than tab, newline and return: removed (clean_text)."""
_WORDS = re.compile(r"[A-Za-z0-9]+|[!-/:-@\[-`{-~]")
"""A run of letters and digits, or one punctuation mark (BertPreTokenizer on ASCII)."""


class WordPiece:
    """Token ids of an ASCII text, without [CLS]/[SEP], as `tokenizers` gives them."""

    def __init__(
        self, vocab: dict[str, int], unk: str, prefix: str, max_chars: int, specials: list[str]
    ) -> None:
        self.vocab = vocab
        self.unk = vocab[unk]
        self.prefix = prefix
        self.max_chars = max_chars
        longest_first = sorted(specials, key=len, reverse=True)
        self._specials = re.compile("(" + "|".join(map(re.escape, longest_first)) + ")")

    def encode(self, text: str) -> list[int] | None:
        """The ids, or None when `text` is not ASCII (then `tokenizers` must do it)."""
        if not text.isascii():
            return None
        ids: list[int] = []
        for n, part in enumerate(self._specials.split(text)):
            if n % 2:
                ids.append(self.vocab[part])
                continue
            for word in _WORDS.findall(part.translate(_DROP).lower()):
                ids.extend(self._pieces(word))
        return ids

    def _pieces(self, word: str) -> list[int]:
        if len(word) > self.max_chars:
            return [self.unk]
        out, start = [], 0
        while start < len(word):
            end = len(word)
            while end > start:
                piece = word[start:end] if start == 0 else self.prefix + word[start:end]
                found = self.vocab.get(piece)
                if found is not None:
                    out.append(found)
                    break
                end -= 1
            else:
                return [self.unk]
            start = end
        return out


def _supported(spec: dict[str, Any]) -> bool:
    norm = spec.get("normalizer") or {}
    pre = spec.get("pre_tokenizer") or {}
    model = spec.get("model") or {}
    return (
        norm.get("type") == "BertNormalizer"
        and norm.get("clean_text") is True
        and norm.get("lowercase") is True
        and pre.get("type") == "BertPreTokenizer"
        and model.get("type") == "WordPiece"
        and isinstance(model.get("vocab"), dict)
        and all(t.get("special") and not t.get("normalized") for t in spec.get("added_tokens", []))
    )


def _stamp(path: Path) -> list[Any]:
    st = path.stat()
    return [str(path), st.st_size, st.st_mtime_ns, FORMAT]


def load(tokenizer_json: Path, cache: Path) -> WordPiece | None:
    """A WordPiece for `tokenizer_json` (its vocabulary kept in `cache`), or None."""
    try:
        head, _, body = cache.read_text(encoding="utf-8").partition("\n")
        meta = json.loads(head)
        if meta["stamp"] == _stamp(tokenizer_json):
            tokens = body.split("\n")
            return WordPiece(dict(zip(tokens, range(len(tokens)), strict=True)), *meta["model"])
    except (OSError, ValueError, KeyError, TypeError):
        pass
    return _build(tokenizer_json, cache)


def _build(tokenizer_json: Path, cache: Path) -> WordPiece | None:
    try:
        stamp = _stamp(tokenizer_json)
        spec = json.loads(tokenizer_json.read_bytes())
    except (OSError, ValueError):
        return None
    if not isinstance(spec, dict) or not _supported(spec):
        return None
    model = spec["model"]
    vocab: dict[str, int] = model["vocab"]
    tokens = sorted(vocab, key=vocab.__getitem__)
    dense = [vocab[t] for t in tokens] == list(range(len(tokens)))
    unk = str(model.get("unk_token", "[UNK]"))
    specials = [str(t["content"]) for t in spec.get("added_tokens", [])]
    if not dense or unk not in vocab or any("\n" in t or "\r" in t for t in tokens):
        return None  # not a dense list of one-line tokens: `tokenizers` does it
    if any(vocab.get(s) != t["id"] for s, t in zip(specials, spec["added_tokens"], strict=True)):
        return None
    args = [
        unk,
        str(model.get("continuing_subword_prefix", "##")),
        int(model.get("max_input_chars_per_word", 100)),
        specials,
    ]
    try:
        cache.parent.mkdir(parents=True, exist_ok=True)
        tmp = cache.with_name(cache.name + ".tmp")
        tmp.write_text(
            json.dumps({"stamp": stamp, "model": args}) + "\n" + "\n".join(tokens), encoding="utf-8"
        )
        tmp.replace(cache)
    except OSError:
        pass  # only a cache: this process has what it needs
    return WordPiece(vocab, *args)  # type: ignore[arg-type]
