"""The query tokenizer gives `tokenizers`' ids on ASCII text, and hands the rest back."""

from __future__ import annotations

import gzip
import json
import random
from pathlib import Path
from typing import Any

import pytest

from fixtext import fixture_strings
from paths import SHARED, TRANSCRIPTS
from semhelp import model_files

HOSTILE = [
    "",
    "   ",
    "Hello, World!",
    "what's the CSV->parquet path? (pandas==2.1; see PAY-1234)",
    "a\x00b\x01c\x7fd\x0be\x0cf\x1fg",  # control characters are dropped, not spaces
    "tab\there\nnew\rline",
    "[CLS] [MASK]ed [SEP][PAD]x[UNK]",  # special tokens match in the raw text
    "[mask] lower-case is not special",
    "x" * 150 + " " + "y" * 100,  # a word over 100 characters is [UNK]
    "supercalifragilisticexpialidocious antidisestablishmentarianism",
    "`~!@#$%^&*()_+-={}|[]\\:\";'<>?,./",
    "ids 0x1F 3.14159 1e-9 2026-11-24T10:00:00Z",
]


def _tokenizer_files() -> tuple[Any, Path]:
    files = model_files()
    return files, files.paths["tokenizer.json"]


def _ascii_texts() -> list[str]:
    texts = [t for t in fixture_strings(TRANSCRIPTS) if t.isascii()]
    data = SHARED / "eval" / "longmemeval" / "longmemeval_s_dev100.jsonl.gz"
    if data.exists():
        with gzip.open(data, "rt", encoding="utf-8") as fh:
            for n, line in enumerate(fh):
                q = json.loads(line)
                texts.append(q["question"])
                turns = [t["content"] for s in q["haystack_sessions"][:3] for t in s]
                texts.extend(t[:2000] for t in turns if t.isascii())
                if n >= 20:
                    break
    rng = random.Random(11)
    alphabet = "".join(chr(c) for c in range(128))
    texts += ["".join(rng.choice(alphabet) for _ in range(rng.randint(1, 80))) for _ in range(300)]
    return texts + HOSTILE


@pytest.mark.needs_model
@pytest.mark.core_free
def test_ascii_queries_get_the_ids_tokenizers_gives(tmp_path: Path) -> None:
    from tokenizers import Tokenizer

    from recall.semantic.wordpiece import load

    _files, source = _tokenizer_files()
    ours = load(source, tmp_path / "wordpiece.txt")
    assert ours is not None
    theirs = Tokenizer.from_file(str(source))
    theirs.no_padding()  # as the encoder sets it up
    theirs.no_truncation()
    texts = _ascii_texts()
    assert len(texts) > 500
    for text in texts:
        want = theirs.encode(text, add_special_tokens=False).ids
        assert ours.encode(text) == want, text
    again = load(source, tmp_path / "wordpiece.txt")  # from the kept vocabulary this time
    assert again is not None and again.encode(HOSTILE[3]) == ours.encode(HOSTILE[3])


@pytest.mark.needs_model
@pytest.mark.core_free
def test_text_beyond_ascii_and_other_tokenizers_go_to_tokenizers(tmp_path: Path) -> None:
    from recall.semantic.wordpiece import load

    _files, source = _tokenizer_files()
    ours = load(source, tmp_path / "wordpiece.txt")
    assert ours is not None and ours.encode("café au lait") is None
    spec = json.loads(source.read_text(encoding="utf-8"))
    spec["model"]["type"] = "BPE"
    other = tmp_path / "tokenizer.json"
    other.write_text(json.dumps(spec), encoding="utf-8")
    assert load(other, tmp_path / "other.txt") is None
    (tmp_path / "wordpiece.txt").write_text("{not json\n")  # a damaged copy is rebuilt
    rebuilt = load(source, tmp_path / "wordpiece.txt")
    assert rebuilt is not None and rebuilt.encode("hello") == ours.encode("hello")


@pytest.mark.needs_model
@pytest.mark.core_free
def test_a_query_encoder_matches_the_full_one_on_any_text() -> None:
    import numpy as np

    from recall.semantic.encoder import OnnxEncoder

    files, _source = _tokenizer_files()
    query, full = OnnxEncoder(files, threads=1, query=True), OnnxEncoder(files)
    texts = ["payment retry backoff", "naïve café", "[MASK] of the CSV", "x"]
    assert np.abs(query.embed(texts) - full.embed(texts)).max() < 1e-5
    assert query._tokenizer is not None  # the accented text needed `tokenizers`
    only_ascii = OnnxEncoder(files, threads=1, query=True)
    only_ascii.embed(texts[:1])
    assert only_ascii._tokenizer is None  # an ASCII query never loads it
