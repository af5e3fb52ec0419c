"""BM25 and Jaccard dedup over candidate texts: the twin of `rust/src/{tokenize,bm25,dedup}.rs`.

The word tokenizer is driven by the three tables below, copied from
`tokenize.rs` (an exhaustive test over every code point checks the cores
agree); the contract is in `_core.pyi`. Arithmetic follows the Rust code step
by step in f64 so scores are bit-identical.
"""

from __future__ import annotations

import functools
import math
import re
from collections import Counter
from collections.abc import Sequence

from recall.textutil import scrub

# Inclusive ranges of chars that separate words (`SEPARATORS` in tokenize.rs).
# fmt: off
SEPARATORS: tuple[tuple[int, int], ...] = (
    (0x0000, 0x002F), (0x003A, 0x0040), (0x005B, 0x005E), (0x0060, 0x0060), (0x007B, 0x00A9),
    (0x00AB, 0x00B1), (0x00B4, 0x00B4), (0x00B6, 0x00B8), (0x00BB, 0x00BB), (0x00BF, 0x00BF),
    (0x00D7, 0x00D7), (0x00F7, 0x00F7), (0x037E, 0x037E), (0x0387, 0x0387), (0x055A, 0x055F),
    (0x0589, 0x058A), (0x05BE, 0x05BE), (0x05C0, 0x05C0), (0x05C3, 0x05C3), (0x05C6, 0x05C6),
    (0x05F3, 0x05F4), (0x0609, 0x060D), (0x061B, 0x061F), (0x066A, 0x066D), (0x06D4, 0x06D4),
    (0x0964, 0x0965), (0x0E4F, 0x0E4F), (0x0E5A, 0x0E5B), (0x104A, 0x104F), (0x10FB, 0x10FB),
    (0x1360, 0x1368), (0x166D, 0x166E), (0x1680, 0x1680), (0x1800, 0x180A), (0x2000, 0x206F),
    (0x20A0, 0x20CF), (0x2190, 0x245F), (0x2500, 0x2BFF), (0x2E00, 0x2E7F), (0x3000, 0x3004),
    (0x3008, 0x3020), (0x3030, 0x3030), (0x303D, 0x303F), (0x30A0, 0x30A0), (0x30FB, 0x30FB),
    (0xFD3E, 0xFD3F), (0xFE00, 0xFE1F), (0xFE30, 0xFE6F), (0xFEFF, 0xFEFF), (0xFF01, 0xFF0F),
    (0xFF1A, 0xFF20), (0xFF3B, 0xFF3E), (0xFF40, 0xFF40), (0xFF5B, 0xFF65), (0xFFE0, 0xFFFF),
    (0x1F000, 0x1FBFF), (0xE0000, 0xE007F), (0xE0100, 0xE01EF),
)

# Inclusive ranges of chars that are each a word of their own (`CJK`).
CJK: tuple[tuple[int, int], ...] = (
    (0x1100, 0x11FF), (0x2E80, 0x2FDF), (0x3005, 0x3007), (0x3021, 0x3029), (0x3031, 0x3035),
    (0x3038, 0x303C), (0x3041, 0x309F), (0x30A1, 0x30FA), (0x30FC, 0x30FF), (0x3105, 0x4DBF),
    (0x4E00, 0x9FFF), (0xA960, 0xA97F), (0xAC00, 0xD7FF), (0xF900, 0xFAFF), (0xFF66, 0xFFDC),
    (0x1AFF0, 0x1B16F), (0x20000, 0x3FFFF),
)

# (first, last, delta, step): Unicode 14.0 simple lowercase mapping, U+0130 -> i (`LOWER`).
LOWER: tuple[tuple[int, int, int, int], ...] = (
    (0x0041, 0x005A, 32, 1), (0x00C0, 0x00D6, 32, 1), (0x00D8, 0x00DE, 32, 1),
    (0x0100, 0x012E, 1, 2), (0x0130, 0x0130, -199, 1), (0x0132, 0x0136, 1, 2),
    (0x0139, 0x0147, 1, 2), (0x014A, 0x0176, 1, 2), (0x0178, 0x0178, -121, 1),
    (0x0179, 0x017D, 1, 2), (0x0181, 0x0181, 210, 1), (0x0182, 0x0184, 1, 2),
    (0x0186, 0x0186, 206, 1), (0x0187, 0x0187, 1, 1), (0x0189, 0x018A, 205, 1),
    (0x018B, 0x018B, 1, 1), (0x018E, 0x018E, 79, 1), (0x018F, 0x018F, 202, 1),
    (0x0190, 0x0190, 203, 1), (0x0191, 0x0191, 1, 1), (0x0193, 0x0193, 205, 1),
    (0x0194, 0x0194, 207, 1), (0x0196, 0x0196, 211, 1), (0x0197, 0x0197, 209, 1),
    (0x0198, 0x0198, 1, 1), (0x019C, 0x019C, 211, 1), (0x019D, 0x019D, 213, 1),
    (0x019F, 0x019F, 214, 1), (0x01A0, 0x01A4, 1, 2), (0x01A6, 0x01A6, 218, 1),
    (0x01A7, 0x01A7, 1, 1), (0x01A9, 0x01A9, 218, 1), (0x01AC, 0x01AC, 1, 1),
    (0x01AE, 0x01AE, 218, 1), (0x01AF, 0x01AF, 1, 1), (0x01B1, 0x01B2, 217, 1),
    (0x01B3, 0x01B5, 1, 2), (0x01B7, 0x01B7, 219, 1), (0x01B8, 0x01B8, 1, 1),
    (0x01BC, 0x01BC, 1, 1), (0x01C4, 0x01C4, 2, 1), (0x01C5, 0x01C5, 1, 1),
    (0x01C7, 0x01C7, 2, 1), (0x01C8, 0x01C8, 1, 1), (0x01CA, 0x01CA, 2, 1),
    (0x01CB, 0x01DB, 1, 2), (0x01DE, 0x01EE, 1, 2), (0x01F1, 0x01F1, 2, 1),
    (0x01F2, 0x01F4, 1, 2), (0x01F6, 0x01F6, -97, 1), (0x01F7, 0x01F7, -56, 1),
    (0x01F8, 0x021E, 1, 2), (0x0220, 0x0220, -130, 1), (0x0222, 0x0232, 1, 2),
    (0x023A, 0x023A, 10795, 1), (0x023B, 0x023B, 1, 1), (0x023D, 0x023D, -163, 1),
    (0x023E, 0x023E, 10792, 1), (0x0241, 0x0241, 1, 1), (0x0243, 0x0243, -195, 1),
    (0x0244, 0x0244, 69, 1), (0x0245, 0x0245, 71, 1), (0x0246, 0x024E, 1, 2),
    (0x0370, 0x0372, 1, 2), (0x0376, 0x0376, 1, 1), (0x037F, 0x037F, 116, 1),
    (0x0386, 0x0386, 38, 1), (0x0388, 0x038A, 37, 1), (0x038C, 0x038C, 64, 1),
    (0x038E, 0x038F, 63, 1), (0x0391, 0x03A1, 32, 1), (0x03A3, 0x03AB, 32, 1),
    (0x03CF, 0x03CF, 8, 1), (0x03D8, 0x03EE, 1, 2), (0x03F4, 0x03F4, -60, 1),
    (0x03F7, 0x03F7, 1, 1), (0x03F9, 0x03F9, -7, 1), (0x03FA, 0x03FA, 1, 1),
    (0x03FD, 0x03FF, -130, 1), (0x0400, 0x040F, 80, 1), (0x0410, 0x042F, 32, 1),
    (0x0460, 0x0480, 1, 2), (0x048A, 0x04BE, 1, 2), (0x04C0, 0x04C0, 15, 1),
    (0x04C1, 0x04CD, 1, 2), (0x04D0, 0x052E, 1, 2), (0x0531, 0x0556, 48, 1),
    (0x10A0, 0x10C5, 7264, 1), (0x10C7, 0x10C7, 7264, 1), (0x10CD, 0x10CD, 7264, 1),
    (0x13A0, 0x13EF, 38864, 1), (0x13F0, 0x13F5, 8, 1), (0x1C90, 0x1CBA, -3008, 1),
    (0x1CBD, 0x1CBF, -3008, 1), (0x1E00, 0x1E94, 1, 2), (0x1E9E, 0x1E9E, -7615, 1),
    (0x1EA0, 0x1EFE, 1, 2), (0x1F08, 0x1F0F, -8, 1), (0x1F18, 0x1F1D, -8, 1),
    (0x1F28, 0x1F2F, -8, 1), (0x1F38, 0x1F3F, -8, 1), (0x1F48, 0x1F4D, -8, 1),
    (0x1F59, 0x1F5F, -8, 2), (0x1F68, 0x1F6F, -8, 1), (0x1F88, 0x1F8F, -8, 1),
    (0x1F98, 0x1F9F, -8, 1), (0x1FA8, 0x1FAF, -8, 1), (0x1FB8, 0x1FB9, -8, 1),
    (0x1FBA, 0x1FBB, -74, 1), (0x1FBC, 0x1FBC, -9, 1), (0x1FC8, 0x1FCB, -86, 1),
    (0x1FCC, 0x1FCC, -9, 1), (0x1FD8, 0x1FD9, -8, 1), (0x1FDA, 0x1FDB, -100, 1),
    (0x1FE8, 0x1FE9, -8, 1), (0x1FEA, 0x1FEB, -112, 1), (0x1FEC, 0x1FEC, -7, 1),
    (0x1FF8, 0x1FF9, -128, 1), (0x1FFA, 0x1FFB, -126, 1), (0x1FFC, 0x1FFC, -9, 1),
    (0x2126, 0x2126, -7517, 1), (0x212A, 0x212A, -8383, 1), (0x212B, 0x212B, -8262, 1),
    (0x2132, 0x2132, 28, 1), (0x2160, 0x216F, 16, 1), (0x2183, 0x2183, 1, 1),
    (0x24B6, 0x24CF, 26, 1), (0x2C00, 0x2C2F, 48, 1), (0x2C60, 0x2C60, 1, 1),
    (0x2C62, 0x2C62, -10743, 1), (0x2C63, 0x2C63, -3814, 1), (0x2C64, 0x2C64, -10727, 1),
    (0x2C67, 0x2C6B, 1, 2), (0x2C6D, 0x2C6D, -10780, 1), (0x2C6E, 0x2C6E, -10749, 1),
    (0x2C6F, 0x2C6F, -10783, 1), (0x2C70, 0x2C70, -10782, 1), (0x2C72, 0x2C72, 1, 1),
    (0x2C75, 0x2C75, 1, 1), (0x2C7E, 0x2C7F, -10815, 1), (0x2C80, 0x2CE2, 1, 2),
    (0x2CEB, 0x2CED, 1, 2), (0x2CF2, 0x2CF2, 1, 1), (0xA640, 0xA66C, 1, 2),
    (0xA680, 0xA69A, 1, 2), (0xA722, 0xA72E, 1, 2), (0xA732, 0xA76E, 1, 2),
    (0xA779, 0xA77B, 1, 2), (0xA77D, 0xA77D, -35332, 1), (0xA77E, 0xA786, 1, 2),
    (0xA78B, 0xA78B, 1, 1), (0xA78D, 0xA78D, -42280, 1), (0xA790, 0xA792, 1, 2),
    (0xA796, 0xA7A8, 1, 2), (0xA7AA, 0xA7AA, -42308, 1), (0xA7AB, 0xA7AB, -42319, 1),
    (0xA7AC, 0xA7AC, -42315, 1), (0xA7AD, 0xA7AD, -42305, 1), (0xA7AE, 0xA7AE, -42308, 1),
    (0xA7B0, 0xA7B0, -42258, 1), (0xA7B1, 0xA7B1, -42282, 1), (0xA7B2, 0xA7B2, -42261, 1),
    (0xA7B3, 0xA7B3, 928, 1), (0xA7B4, 0xA7C2, 1, 2), (0xA7C4, 0xA7C4, -48, 1),
    (0xA7C5, 0xA7C5, -42307, 1), (0xA7C6, 0xA7C6, -35384, 1), (0xA7C7, 0xA7C9, 1, 2),
    (0xA7D0, 0xA7D0, 1, 1), (0xA7D6, 0xA7D8, 1, 2), (0xA7F5, 0xA7F5, 1, 1),
    (0xFF21, 0xFF3A, 32, 1), (0x10400, 0x10427, 40, 1), (0x104B0, 0x104D3, 40, 1),
    (0x10570, 0x1057A, 39, 1), (0x1057C, 0x1058A, 39, 1), (0x1058C, 0x10592, 39, 1),
    (0x10594, 0x10595, 39, 1), (0x10C80, 0x10CB2, 64, 1), (0x118A0, 0x118BF, 32, 1),
    (0x16E40, 0x16E5F, 32, 1), (0x1E900, 0x1E921, 34, 1),
)
# fmt: on


def _char_set(ranges: tuple[tuple[int, int], ...]) -> str:
    return "".join(f"\\U{first:08x}-\\U{last:08x}" for first, last in ranges)


# Built on first use, not at import: `_pycore` is on the hook path, and
# compiling these costs milliseconds a hook does not need to spend.
@functools.cache
def _words() -> re.Pattern[str]:
    """A CJK char alone, or a run of chars in neither table: one findall is the Rust loop."""
    return re.compile(f"[{_char_set(CJK)}]|[^{_char_set(SEPARATORS)}{_char_set(CJK)}]+")


@functools.cache
def _lower_map() -> dict[int, int]:
    return {c: c + d for first, last, d, step in LOWER for c in range(first, last + 1, step)}


def _lowercase(text: str) -> str:
    # On ASCII, str.lower() is exactly the table; elsewhere it is not (final
    # sigma, U+0130, letters newer than Unicode 14), so translate by the table.
    return text.lower() if text.isascii() else text.translate(_lower_map())


def tokenize(text: str) -> list[str]:
    if not isinstance(text, str):  # scrub would fail with AttributeError; Rust says TypeError
        raise TypeError(f"expected str, not {type(text).__name__}")
    return _words().findall(_lowercase(scrub(text)))


def _strings(items: Sequence[str], name: str) -> Sequence[str]:
    if isinstance(items, str):  # the Rust core refuses a str for a list, so must we
        raise TypeError(f"{name} must be a list of str, not str")
    return items


def _number(value: float, name: str) -> float:
    # float() would parse a str; the Rust core takes only numbers, so must we.
    if isinstance(value, str | bytes | bytearray):
        raise TypeError(f"{name} must be a number, not {type(value).__name__}")
    return float(value)


def bm25_scores(query: str, docs: Sequence[str], k1: float = 1.2, b: float = 0.75) -> list[float]:
    k1, b = _number(k1, "k1"), _number(b, "b")
    if not (math.isfinite(k1) and k1 >= 0.0):
        raise ValueError("k1 must be a finite number >= 0")
    if not 0.0 <= b <= 1.0:
        raise ValueError("b must be between 0 and 1")
    index = {t: i for i, t in enumerate(dict.fromkeys(tokenize(query)))}
    # Per doc, the query terms it contains as (term index, count), in term
    # order: the order both cores sum in. Work grows with the words, not
    # with docs x query terms.
    matches: list[list[tuple[int, int]]] = []
    lengths: list[int] = []
    df = [0] * len(index)
    for doc in _strings(docs, "docs"):
        words = tokenize(doc)
        lengths.append(len(words))
        found = sorted((index[w], f) for w, f in Counter(words).items() if w in index)
        for t, _ in found:
            df[t] += 1
        matches.append(found)
    n_docs = len(lengths)
    total = sum(lengths)
    if total == 0:
        return [0.0] * n_docs
    avgdl = float(total) / float(n_docs)
    idf = [math.log1p((float(n_docs - n) + 0.5) / (float(n) + 0.5)) for n in df]
    scores: list[float] = []
    for found, length in zip(matches, lengths, strict=True):
        norm = k1 * (1.0 - b + b * float(length) / avgdl)
        score = 0.0
        for t, f in found:
            score += idf[t] * (float(f) * (k1 + 1.0) / (float(f) + norm))
        scores.append(score)
    return scores


def _duplicate(a: frozenset[str], by_size: dict[int, list[frozenset[str]]], t: float) -> bool:
    """Whether `a` is a near-duplicate of a kept set (kept sets grouped by size)."""
    la = len(a)
    for size, group in by_size.items():
        small, big = (la, size) if la <= size else (size, la)
        if big == 0:
            return True
        # Similarity cannot exceed small / big (see dedup.rs): skip a whole size at once.
        if small / big < t:
            continue
        for b in group:
            common = len(a & b)
            if common / (la + size - common) >= t:
                return True
    return False


def dedup(texts: Sequence[str], threshold: float = 0.8) -> list[int]:
    threshold = _number(threshold, "threshold")
    if not 0.0 <= threshold <= 1.0:
        raise ValueError("threshold must be between 0 and 1")
    kept: list[int] = []
    by_size: dict[int, list[frozenset[str]]] = {}
    for i, text in enumerate(_strings(texts, "texts")):
        words = frozenset(tokenize(text))
        if not _duplicate(words, by_size, threshold):
            kept.append(i)
            by_size.setdefault(len(words), []).append(words)
    return kept
