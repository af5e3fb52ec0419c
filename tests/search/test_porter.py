"""The bar's stemmer agrees with the index's: FTS5's porter tokenizer is the oracle."""

from __future__ import annotations

import re
import sqlite3

from paths import TRANSCRIPTS
from recall.search import porter


def _fts5_stems(words: list[str]) -> dict[str, str]:
    db = sqlite3.connect(":memory:")
    db.execute("CREATE VIRTUAL TABLE t USING fts5(x, tokenize='porter unicode61')")
    db.execute("CREATE VIRTUAL TABLE v USING fts5vocab(t, instance)")
    db.executemany("INSERT INTO t(rowid, x) VALUES (?, ?)", enumerate(words, 1))
    found = {int(r[0]): str(r[1]) for r in db.execute("SELECT doc, term FROM v")}
    return {w: found[n] for n, w in enumerate(words, 1)}


def test_every_word_of_the_real_transcripts_stems_as_the_index_stems_it() -> None:
    words: set[str] = set()
    for path in sorted(TRANSCRIPTS.rglob("*")):
        if path.is_file():
            words.update(re.findall(r"[a-z0-9]{3,}", path.read_text(errors="ignore").lower()))
    words.add("x" * 64 + "ations")  # past 64 characters FTS5 leaves a token as it is
    assert len(words) > 2_000  # the fixtures hold a real vocabulary
    expected = _fts5_stems(sorted(words))
    differ = [
        (w, expected[w], porter.stem(w)) for w in sorted(words) if porter.stem(w) != expected[w]
    ]
    assert differ == []


def test_forms_of_one_word_share_a_stem_and_other_words_do_not() -> None:
    same = [("promoted", "promotion"), ("camped", "camping"), ("organization", "organizes")]
    assert all(porter.stem(a) == porter.stem(b) for a, b in same)
    apart = [("notes", "not"), ("caring", "car"), ("coding", "cod"), ("painter", "painted")]
    assert all(porter.stem(a) != porter.stem(b) for a, b in apart)
    assert porter.stem("café") == "café"  # FTS5 stems ASCII only
    assert porter.stem("k8s") == "k8" and porter.stem("1800s") == "1800"  # digits: consonants


def test_forms_of_a_word_begin_as_it_does() -> None:
    """`bar.holds` stems only the tokens that start as the question's word does (for a
    stem of three letters or more, the only ones it compares)."""
    words: set[str] = set()
    for path in sorted(TRANSCRIPTS.rglob("*")):
        if path.is_file():
            words.update(re.findall(r"[a-z]{3,25}", path.read_text(errors="ignore").lower()))
    for word in words:
        root = porter.stem(word)
        assert len(root) < 3 or root[:2] == word[:2], word
