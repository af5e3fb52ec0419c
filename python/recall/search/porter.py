"""Porter's stemmer (1980), as the index's FTS5 `porter` tokenizer applies it.

The relevance bar judges which of a question's words a hit holds. BM25 finds a
hit by its stems ("promotion" for "promoted": both are "promot"), so a bar that
compared fewer forms judged such a hit as holding none of the rarest word and
sank it below hits BM25 ranked under it (docs/search-quality.md, "Stems as the
index has them"). `tests/search/test_porter.py` holds it to FTS5's own stemmer.
"""

from __future__ import annotations

from functools import lru_cache

_STEP2 = (
    ("ational", "ate"),
    ("tional", "tion"),
    ("enci", "ence"),
    ("anci", "ance"),
    ("izer", "ize"),
    ("bli", "ble"),
    ("alli", "al"),
    ("entli", "ent"),
    ("eli", "e"),
    ("ousli", "ous"),
    ("ization", "ize"),
    ("ation", "ate"),
    ("ator", "ate"),
    ("alism", "al"),
    ("iveness", "ive"),
    ("fulness", "ful"),
    ("ousness", "ous"),
    ("aliti", "al"),
    ("iviti", "ive"),
    ("biliti", "ble"),
    ("logi", "log"),
)
_STEP3 = (
    ("icate", "ic"),
    ("ative", ""),
    ("alize", "al"),
    ("iciti", "ic"),
    ("ical", "ic"),
    ("ful", ""),
    ("ness", ""),
)
_STEP4 = (
    "al",
    "ance",
    "ence",
    "er",
    "ic",
    "able",
    "ible",
    "ant",
    "ement",
    "ment",
    "ent",
    "ion",
    "ou",
    "ism",
    "ate",
    "iti",
    "ous",
    "ive",
    "ize",
)


def _by_last(rules: tuple[tuple[str, str], ...]) -> dict[str, tuple[tuple[str, str], ...]]:
    """Rules grouped by their suffix's last letter, in order: a word is checked only
    against the suffixes it could end with."""
    out: dict[str, list[tuple[str, str]]] = {}
    for rule in rules:
        out.setdefault(rule[0][-1], []).append(rule)
    return {k: tuple(v) for k, v in out.items()}


_STEP2_BY = _by_last(_STEP2)
_STEP3_BY = _by_last(_STEP3)
_STEP4_BY = _by_last(tuple((suffix, "") for suffix in _STEP4))


@lru_cache(maxsize=1 << 16)
def stem(word: str) -> str:
    """`word` (lower case) through the five steps (cached: a search stems the same words
    of many hits); what FTS5 would not stem is left as it is (`_stemmable`)."""
    w = word
    if not _stemmable(w):
        return w
    w = _step1(w)
    w = _suffixes(w, _STEP2_BY.get(w[-1], ()), 0)
    w = _suffixes(w, _STEP3_BY.get(w[-1], ()), 0)
    w = _step4(w)
    return _step5(w)


def step1(word: str) -> str:
    """Only the first step: plurals, -ed and -ing, a final y."""
    return _step1(word) if _stemmable(word) else word


def _stemmable(w: str) -> bool:
    """FTS5 stems ASCII letters and digits (a digit counts as a consonant), words of 3 to
    64 characters; anything else it leaves as it is."""
    return 2 < len(w) <= 64 and w.isascii() and w.isalnum()


def _step1(w: str) -> str:
    if w.endswith("sses") or w.endswith("ies"):
        w = w[:-2]
    elif w.endswith("s") and not w.endswith("ss"):
        w = w[:-1]
    if w.endswith("eed"):
        if _measure(w[:-3]) > 0:
            w = w[:-1]
    else:
        for suffix in ("ed", "ing"):
            if w.endswith(suffix) and _has_vowel(w[: -len(suffix)]):
                w = _after_ed_ing(w[: -len(suffix)])
                break
    if w.endswith("y") and _has_vowel(w[:-1]):
        w = w[:-1] + "i"
    return w


def _suffixes(w: str, rules: tuple[tuple[str, str], ...], above: int) -> str:
    """The first rule whose suffix ends `w` applies if the rest measures over `above`."""
    for suffix, replacement in rules:
        if w.endswith(suffix):
            root = w[: -len(suffix)]
            return root + replacement if _measure(root) > above else w
    return w


def _step4(w: str) -> str:
    for suffix, _ in _STEP4_BY.get(w[-1], ()):
        if w.endswith(suffix):
            root = w[: -len(suffix)]
            if suffix == "ion" and not root.endswith(("s", "t")):
                return w
            return root if _measure(root) > 1 else w
    return w


def _step5(w: str) -> str:
    if w.endswith("e"):
        root = w[:-1]
        m = _measure(root)
        if m > 1 or (m == 1 and not _cvc(root)):
            w = root
    if w.endswith("ll") and _measure(w) > 1:
        w = w[:-1]
    return w


def _kinds(w: str) -> str:
    """ "c" or "v" for each letter of `w`: y is a consonant at the start or after a vowel."""
    out: list[str] = []
    for ch in w:
        if ch in "aeiou":
            out.append("v")
        elif ch == "y":
            out.append("c" if not out or out[-1] == "v" else "v")
        else:
            out.append("c")
    return "".join(out)


def _has_vowel(w: str) -> bool:
    return "v" in _kinds(w)


def _measure(w: str) -> int:
    """Porter's m: how many vowel-consonant runs `w` holds."""
    return _kinds(w).count("vc")


def _cvc(w: str) -> bool:
    """Whether `w` ends consonant-vowel-consonant, the last not w, x or y (hop, not hoop)."""
    return len(w) >= 3 and _kinds(w).endswith("cvc") and w[-1] not in "wxy"


def _after_ed_ing(w: str) -> str:
    """A root left by -ed or -ing made whole again: conflat(ed) -> conflate, hopp(ing) ->
    hop, hop(ing) -> hope."""
    if w.endswith(("at", "bl", "iz")):
        return w + "e"
    if len(w) >= 2 and w[-1] == w[-2] and _kinds(w)[-1] == "c" and w[-1] not in "lsz":
        return w[:-1]
    if _measure(w) == 1 and _cvc(w):
        return w + "e"
    return w
