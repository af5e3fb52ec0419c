"""Which texts are worth a vector: only those with enough words to mean something.

A model embeds "``", "." or "ct(U-U, U+V)." somewhere, and such vectors sit
close to any query the model cannot place (gibberish, a lone identifier), so
they surfaced as semantic matches for nonsense. A text (or a window-cut piece
of one) gets a vector only if it holds `MIN_WORDS` words; everything stays
keyword-searchable. The same rule is applied to stored vectors at query time,
so chunks embedded before it existed stop surfacing without a re-embed.
"""

from __future__ import annotations

import re

MIN_WORDS = 3
"""Words a text needs before it is embedded (docs/semantic.md has the measurements)."""
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af\uf900-\ufaff]")
_WORD = re.compile(r"[^\W\d_]{2,}")
"""A word: two or more letters (digits, punctuation and one-letter tokens are not)."""


def word_count(text: str, enough: int = MIN_WORDS) -> int:
    """Words in `text`, counted up to `enough`: runs of two or more letters, and each
    CJK character (CJK is written without spaces; one character is about a word)."""
    n = 0
    for _ in _CJK.finditer(text):
        n += 1
        if n >= enough:
            return n
    for _ in _WORD.finditer(_CJK.sub(" ", text) if n else text):
        n += 1
        if n >= enough:
            return n
    return n


def worth_embedding(text: str) -> bool:
    """Whether `text` holds enough words for its vector to mean something."""
    return word_count(text) >= MIN_WORDS


def model_knows(encoder: object, text: str) -> bool:
    """Whether the model's vocabulary holds a word of `text` whole (not as word pieces).

    A query the model knows no word of ("zzzqqqxx", "asdkjhqwe zzxq") is
    gibberish to it, and its nearest chunks are noise at cosines as high as
    real matches reach (docs/semantic.md). An encoder without a vocabulary
    (a remote endpoint) is taken to know every word.
    """
    knows = getattr(encoder, "knows", None)
    if knows is None:
        return True
    return any(knows(w) for w in _WORD.findall(text.lower()))
