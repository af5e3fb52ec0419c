"""BM25, dedup and their tokenizer: what they do for a user, and the same bits from both cores."""

from __future__ import annotations

import random
from pathlib import Path
from types import ModuleType

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fixtext import fixture_strings
from parity import RUST, TWIN, needs_rust
from recall.agents import ADAPTERS

pytestmark = [pytest.mark.parity, needs_rust]


def bits(scores: list[float]) -> list[str]:
    """Floats compared bit for bit (`==` would let 0.0 equal -0.0)."""
    return [s.hex() for s in scores]


def same_scores(query: str, docs: list[str], k1: float = 1.2, b: float = 0.75) -> None:
    rust, python = RUST.bm25_scores(query, docs, k1, b), TWIN.bm25_scores(query, docs, k1, b)
    assert bits(rust) == bits(python), (query, docs, k1, b)


def same_kept(docs: list[str], t: float = 0.8) -> None:
    assert RUST.dedup(docs, t) == TWIN.dedup(docs, t), (docs, t)


def agree(query: str, docs: list[str], k1: float = 1.2, b: float = 0.75, t: float = 0.8) -> None:
    same_scores(query, docs, k1, b)
    same_kept(docs, t)


# --- behaviour, on each core ------------------------------------------------------------


def test_tokenize_finds_identifiers_and_cjk(core: ModuleType) -> None:
    words = core.tokenize("Fix PAY-1234 in 日本語🚀 --no-verify src/main.rs foo_bar")
    assert " ".join(words) == "fix pay 1234 in 日 本 語 no verify src main rs foo_bar"
    assert core.tokenize("ΟΔΟΣ İstanbul") == ["οδοσ", "istanbul"]
    assert core.tokenize("cut \ud83d emoji") == ["cut", "emoji"]
    assert core.tokenize("") == [] and core.tokenize(" …🙂\u3000") == []


def test_a_doc_with_the_query_words_outranks_one_without(core: ModuleType) -> None:
    docs = [
        "we talked about lunch",
        "the retry backoff for the payment queue is exponential",
        "payment page colours",
    ]
    scores = core.bm25_scores("payment retry backoff", docs)
    assert scores[0] == 0.0
    assert scores[1] > scores[2] > 0.0


def test_rarer_words_weigh_more(core: ModuleType) -> None:
    docs = ["deploy kafka", "deploy nats", "deploy redis", "deploy postgres"]
    scores = core.bm25_scores("deploy kafka", docs)
    # Every doc has "deploy"; only one has "kafka": that one wins, the rest tie.
    assert scores[0] > scores[1] == scores[2] == scores[3] > 0.0
    one_each = core.bm25_scores("deploy", docs[:1] + ["kafka"] * 3)
    common = core.bm25_scores("kafka", docs[:1] + ["kafka"] * 3)
    assert one_each[0] > common[1]


def test_query_repeats_and_case_do_not_change_scores(core: ModuleType) -> None:
    docs = ["Retry the JOB", "job done", "nothing"]
    assert core.bm25_scores("retry job", docs) == core.bm25_scores("RETRY retry Job!", docs)


def test_longer_docs_are_normalised_unless_b_is_zero(core: ModuleType) -> None:
    docs = ["kafka", "kafka " + "filler " * 20, "other"]
    short, long, _ = core.bm25_scores("kafka", docs)
    assert short > long
    flat = core.bm25_scores("kafka", docs, b=0.0)
    assert flat[0] == flat[1]


def test_bm25_empty_inputs(core: ModuleType) -> None:
    assert core.bm25_scores("anything", []) == []
    assert core.bm25_scores("", ["a", "b"]) == [0.0, 0.0]
    assert core.bm25_scores("🙂", ["a 🙂"]) == [0.0]
    assert core.bm25_scores("a", ["", "…"]) == [0.0, 0.0]


def test_near_identical_texts_are_dropped_at_the_default_threshold(core: ModuleType) -> None:
    pasted = "Use NATS JetStream for the order queue; Kafka is too heavy for one box."
    texts = [
        pasted,
        "We compared Postgres and SQLite for the local index.",
        "use nats jetstream for the order queue - kafka is too heavy for one box!",
        pasted + " Agreed.",
        "Use NATS for the queue.",
    ]
    # 2 differs only in case and punctuation; 3 adds one word of 13 (12/13 >= 0.8).
    assert core.dedup(texts) == [0, 1, 4]
    assert core.dedup(texts, 1.0) == [0, 1, 3, 4]


def test_dedup_threshold_is_inclusive_and_first_occurrence_wins(core: ModuleType) -> None:
    assert core.dedup(["a b c d e", "a b c d"]) == [0]  # 4/5 == 0.8
    assert core.dedup(["a b c d", "a b c d e"]) == [0]
    assert core.dedup(["a b c d e", "a b c d x"]) == [0, 1]  # 4/6
    assert core.dedup(["x", "y", "z"], 0.0) == [0]


def test_dedup_empty_inputs(core: ModuleType) -> None:
    assert core.dedup([]) == []
    assert core.dedup(["", "…", "x", " "]) == [0, 2]
    assert core.dedup(["only"]) == [0]


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda c: c.bm25_scores("a", ["a"], k1=-0.5), "k1"),
        (lambda c: c.bm25_scores("a", ["a"], k1=float("inf")), "k1"),
        (lambda c: c.bm25_scores("a", ["a"], k1=float("nan")), "k1"),
        (lambda c: c.bm25_scores("a", ["a"], b=1.5), "b must"),
        (lambda c: c.bm25_scores("a", ["a"], b=-0.1), "b must"),
        (lambda c: c.bm25_scores("a", ["a"], b=float("nan")), "b must"),
        (lambda c: c.dedup(["a"], 1.01), "threshold"),
        (lambda c: c.dedup(["a"], -0.01), "threshold"),
        (lambda c: c.dedup(["a"], float("nan")), "threshold"),
    ],
)
def test_bad_parameters_are_value_errors(core: ModuleType, call: object, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        call(core)  # type: ignore[operator]


def test_wrong_types_are_type_errors(core: ModuleType) -> None:
    for bad in (
        lambda: core.dedup("a text, not a list"),
        lambda: core.dedup(["a", 3]),
        lambda: core.bm25_scores("q", "a text, not a list"),
        lambda: core.bm25_scores(None, ["a"]),
        lambda: core.bm25_scores("q", ["a"], k1="1.2"),
        lambda: core.dedup(["a"], "0.8"),
        lambda: core.tokenize(b"bytes"),
    ):
        with pytest.raises(TypeError):
            bad()


# --- parity: fixtures, every code point, generated cases ---------------------------------


def fixture_texts(transcripts: Path) -> list[list[str]]:
    """Message texts per transcript file, as the adapters read them."""
    out: list[list[str]] = []
    for name, adapter in sorted(ADAPTERS.items()):
        for path in sorted(adapter.discover(transcripts / name)):
            parsed = adapter.parse(path, path.read_bytes(), 0, {})
            out.append([m.text for part in parsed.parts for m in part.messages])
    return out


def test_cores_agree_on_every_fixture_message(transcripts: Path) -> None:
    per_file = fixture_texts(transcripts)
    every = [t for texts in per_file for t in texts]
    assert len(per_file) >= 15 and len(every) >= 50
    assert any("日本語" in t or "の" in t for t in every)
    for texts in [*per_file, every]:
        for t in texts:
            assert RUST.tokenize(t) == TWIN.tokenize(t)
        for query in [*texts[:8], "error fix test", "日本語"]:
            same_scores(query, texts)
        for t in (0.0, 0.5, 0.8, 1.0):
            same_kept(texts, t)


def test_cores_agree_on_every_fixture_string(transcripts: Path) -> None:
    strings = fixture_strings(transcripts, errors="surrogateescape")
    assert len(strings) > 1000
    for s in strings:
        assert RUST.tokenize(s) == TWIN.tokenize(s)
    rng = random.Random(7)
    short = [s for s in strings if len(s) <= 80]  # queries are short; long ones only cost time
    for query in rng.sample(short, 40):
        same_scores(query, strings)
    for t in (0.5, 0.8, 1.0):
        same_kept(strings, t)


def test_cores_split_and_lowercase_every_code_point_alike() -> None:
    """The tables are the contract: each code point, after a letter and doubled."""
    after_letter = "".join(f"a{chr(c)} " for c in range(0x110000))
    doubled = "".join(f"{chr(c)}{chr(c)} " for c in range(0x110000))
    for text in (after_letter, doubled):
        assert RUST.tokenize(text) == TWIN.tokenize(text)


WORDS = [
    "retry", "Retry", "RETRY", "backoff", "PAY-1234", "--no-verify", "src/main.rs", "foo_bar",
    "42", "3.14", "ΟΔΟΣ", "οδός", "İstanbul", "straße", "STRASSE", "Ǆemal", "ǅ", "日本語",
    "のテスト", "한국어", "🚀", "👍🏽", "naïve", "nai\u0308ve", "a\u00adb", "x\u200dy", "\ufeff",
    "\ud83d", "\udc00", "\u3000", "\t", "\n", " ", ",", "。", "…", "ｆｕｌｌ", "Ⅻ", "ß",
    "\U00010400", "\U0001e900", "ꞵ", "ᏸ",
]  # fmt: skip


def generated_case(rng: random.Random) -> tuple[str, list[str], float, float, float]:
    """One case: a query, docs sharing words (with case/punctuation variants and near-copies)."""
    vocab = rng.sample(WORDS, rng.randint(2, 12))

    def text() -> str:
        n = rng.randint(0, 12)
        return "".join(rng.choice(vocab) + rng.choice(" ,. \t-") for _ in range(n))

    docs: list[str] = []
    for _ in range(rng.randint(0, 12)):
        if docs and rng.random() < 0.4:
            base = rng.choice(docs)
            docs.append(base.upper() if rng.random() < 0.3 else base + " " + rng.choice(vocab))
        else:
            docs.append(text())
    k1 = rng.choice([0.0, 1.2, 2.0, rng.uniform(0, 3)])
    b = rng.choice([0.0, 0.75, 1.0, rng.random()])
    t = rng.choice([0.0, 0.5, 0.8, 0.8, 1.0, rng.random()])
    return text(), docs, k1, b, t


def test_cores_agree_on_10k_generated_cases() -> None:
    rng = random.Random(20260305)
    dropped = 0
    for _ in range(10_000):
        query, docs, k1, b, t = generated_case(rng)
        agree(query, docs, k1, b, t)
        dropped += len(docs) - len(RUST.dedup(docs, t))
    assert dropped > 10_000  # the cases do exercise duplicates


text_pieces = st.one_of(
    st.sampled_from(WORDS),
    st.text(max_size=12),
    st.text(st.characters(categories=["Cs", "Lu", "Ll", "Lo", "Zs", "Po", "So"]), max_size=12),
)
texts = st.lists(text_pieces, max_size=10).map(" ".join)


@settings(max_examples=300, deadline=None)  # a loaded CI machine is not a bug
@given(
    query=texts,
    docs=st.lists(texts, max_size=8),
    k1=st.floats(0, 10),
    b=st.floats(0, 1),
    t=st.floats(0, 1),
)
def test_cores_agree_on_arbitrary_unicode(
    query: str, docs: list[str], k1: float, b: float, t: float
) -> None:
    assert RUST.tokenize(query) == TWIN.tokenize(query)
    agree(query, docs, k1, b, t)
    agree(query, docs + docs[:2], k1, b, t)
