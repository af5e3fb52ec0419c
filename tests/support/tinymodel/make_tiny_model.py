"""Write the tiny test embedding model: `model.onnx` and `tokenizer.json`, a few KB each.

The real model (all-MiniLM-L6-v2, 23 MB) is not always installed, and a test
of semantic search that skips without it tests nothing on that machine. This
model has the real one's contract, so every semantic code path runs with it:
inputs `input_ids`, `attention_mask`, `token_type_ids` (int64, batch ×
sequence), output `last_hidden_state` (float, batch × sequence × 384), and a
BERT WordPiece `tokenizer.json` that both `tokenizers` and recall's own
`wordpiece.py` read.

What it computes is deterministic and small enough to reason about. The
vocabulary is whole words (`words.txt`: the words of the semantic tests'
corpora and queries, plus `CLUSTERS`); any other word is `[UNK]`, which, like
`[PAD]`, weighs nothing. A word's vector is a one-hot on its own dimension
(hashed into 64..383) plus, for a word in a cluster of related words, a
one-hot on the cluster's dimension (1..63): "tomatoes" and "irrigation" meet
on the garden dimension, so meaning without shared words is found, and a
made-up word finds nothing. `[CLS]` and `[SEP]` weigh a little on dimension 0
so no text's vector is all zeros. The encoder's mean pooling and
normalisation then make cosine similarity a weighted overlap of words and
topics.

The graph is written as ONNX protobuf by hand (the `onnx` package is not a
dependency): Less + Where (an id beyond the table reads as `[UNK]`), Gather of each
token's dimensions and weights, Range + Equal + Cast for the one-hots, Mul,
Add. Run `python3 tests/support/tinymodel/make_tiny_model.py` to rewrite both
files; the output is the same byte for byte on every run.
"""

from __future__ import annotations

import hashlib
import json
import struct
from pathlib import Path

HERE = Path(__file__).resolve().parent
DIMS = 384
CLUSTER_DIMS = range(1, 64)
OWN_DIMS = range(64, DIMS)
WORD_WEIGHT = 0.6
CLUSTER_WEIGHT = 1.0
SPECIAL_WEIGHT = 0.02
SPECIALS = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]

TOPICS = [
    # data analysis
    "pandas polars dataframe dataframes csv data analysis analytics library report reports"
    " dtypes columns categorical spreadsheet numpy",
    # retrying
    "retry retries retrying backoff jitter attempt attempts again exponential giving"
    " timeout timeouts timing times wait",
    # paying
    "payment payments charges charge billing invoice stripe idempotency",
    # gardening
    "tomato tomatoes plants plant leaves garden gardening vegetable vegetables irrigation",
    # colours
    "colour color colours colors shade shades blue dark theme yellow",
    # preferences
    "preferences preference preferred prefer prefers favourite favorite",
    # editors and tools
    "editor vim emacs keys indents pnpm npm",
    # containers
    "kubernetes pod pods container containers docker restarting oomkilled",
    # memory
    "memory oomkilled ram",
    # music
    "violin strings string instruments instrument sound warmest music",
    # vehicles
    "car cars vehicle serviced",
    # meetings
    "standups standup weekday meeting meetings",
    # web layout
    "sidebar grid screens header flexbox layout page renders safari logo snapshots visual",
    # webhooks
    "webhook webhooks hooks delivery requests",
    # message queues
    "kafka queue queues",
    # cooking
    "recipe bread baking",
]


CLUSTERS = [topic.split() for topic in TOPICS]


def _vocab() -> list[str]:
    words = (HERE / "words.txt").read_text(encoding="utf-8").split()
    for cluster in CLUSTERS:
        words += cluster
    return SPECIALS + sorted(set(words) - set(SPECIALS))


def _own_dim(word: str) -> int:
    digest = hashlib.sha256(word.encode()).digest()
    return OWN_DIMS.start + int.from_bytes(digest[:4], "big") % len(OWN_DIMS)


def _tables(vocab: list[str]) -> tuple[list[int], list[float], list[int], list[float]]:
    """Per token: its own dimension and weight, its cluster dimension and weight."""
    cluster_of: dict[str, int] = {}
    for n, cluster in enumerate(CLUSTERS):
        for word in cluster:
            cluster_of.setdefault(word, CLUSTER_DIMS.start + n)
    own, own_w, topic, topic_w = [], [], [], []
    for token in vocab:
        if token in ("[CLS]", "[SEP]"):
            own.append(0)
            own_w.append(SPECIAL_WEIGHT)
        elif token in SPECIALS:
            own.append(0)
            own_w.append(0.0)
        else:
            own.append(_own_dim(token))
            own_w.append(WORD_WEIGHT)
        topic.append(cluster_of.get(token, 0))
        topic_w.append(CLUSTER_WEIGHT if token in cluster_of else 0.0)
    return own, own_w, topic, topic_w


# --- protobuf, by hand: just the fields an ONNX model needs ---


def _varint(value: int) -> bytes:
    out = bytearray()
    value &= (1 << 64) - 1  # negative int64s as two's complement, as protobuf does
    while True:
        byte = value & 0x7F
        value >>= 7
        if value:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def _int(field: int, value: int) -> bytes:
    return _varint(field << 3) + _varint(value)


def _bytes(field: int, value: bytes | str) -> bytes:
    data = value.encode() if isinstance(value, str) else value
    return _varint(field << 3 | 2) + _varint(len(data)) + data


INT32, INT64, FLOAT = 6, 7, 1


def _tensor(name: str, kind: int, values: list[int] | list[float], dims: list[int]) -> bytes:
    fmt = {INT32: "i", INT64: "q", FLOAT: "f"}[kind]
    raw = struct.pack(f"<{len(values)}{fmt}", *values)
    return b"".join(_int(1, d) for d in dims) + _int(2, kind) + _bytes(8, name) + _bytes(9, raw)


def _node(op: str, inputs: list[str], outputs: list[str], cast_to: int | None = None) -> bytes:
    out = b"".join(_bytes(1, i) for i in inputs) + b"".join(_bytes(2, o) for o in outputs)
    out += _bytes(3, outputs[0]) + _bytes(4, op)
    if cast_to is not None:  # AttributeProto: name "to", type INT (2), i
        out += _bytes(5, _bytes(1, "to") + _int(20, 2) + _int(3, cast_to))
    return out


def _value(name: str, kind: int, dims: list[str | int]) -> bytes:
    shape = b"".join(_bytes(1, _int(1, d) if isinstance(d, int) else _bytes(2, d)) for d in dims)
    return _bytes(1, name) + _bytes(2, _bytes(1, _int(1, kind) + _bytes(2, shape)))


def model_bytes(vocab: list[str]) -> bytes:
    own, own_w, topic, topic_w = _tables(vocab)
    inits = [
        _tensor("last_id", INT64, [vocab.index("[UNK]")], []),
        _tensor("own_dim", INT32, own, [len(vocab)]),
        _tensor("own_weight", FLOAT, own_w, [len(vocab)]),
        _tensor("topic_dim", INT32, topic, [len(vocab)]),
        _tensor("topic_weight", FLOAT, topic_w, [len(vocab)]),
        _tensor("zero", INT32, [0], []),
        _tensor("dims", INT32, [DIMS], []),
        _tensor("one", INT32, [1], []),
        _tensor("last_axis", INT64, [-1], [1]),
    ]
    nodes = [
        # an id past the vocabulary (never from this tokenizer) reads as [UNK]
        _node("Less", ["input_ids", "vocab_size"], ["known"]),
        _node("Where", ["known", "input_ids", "last_id"], ["ids"]),
        _node("Range", ["zero", "dims", "one"], ["range"]),
    ]
    inits.append(_tensor("vocab_size", INT64, [len(vocab)], []))
    for part in ("own", "topic"):
        nodes += [
            _node("Gather", [f"{part}_dim", "ids"], [f"{part}_d"]),
            _node("Gather", [f"{part}_weight", "ids"], [f"{part}_w"]),
            _node("Unsqueeze", [f"{part}_d", "last_axis"], [f"{part}_d1"]),
            _node("Equal", [f"{part}_d1", "range"], [f"{part}_hot"]),
            _node("Cast", [f"{part}_hot"], [f"{part}_onehot"], cast_to=FLOAT),
            _node("Unsqueeze", [f"{part}_w", "last_axis"], [f"{part}_w1"]),
            _node("Mul", [f"{part}_onehot", f"{part}_w1"], [f"{part}_h"]),
        ]
    nodes.append(_node("Add", ["own_h", "topic_h"], ["last_hidden_state"]))
    graph = b"".join(_bytes(1, n) for n in nodes) + _bytes(2, "tiny-test-embedding")
    graph += b"".join(_bytes(5, t) for t in inits)
    for name in ("input_ids", "attention_mask", "token_type_ids"):
        graph += _bytes(11, _value(name, INT64, ["batch", "sequence"]))
    graph += _bytes(12, _value("last_hidden_state", FLOAT, ["batch", "sequence", DIMS]))
    opset = _bytes(1, "") + _int(2, 13)
    return _int(1, 8) + _bytes(2, "recall-tests") + _bytes(7, graph) + _bytes(8, opset)


def tokenizer_json(vocab: list[str]) -> str:
    added = [
        {
            "id": vocab.index(token),
            "content": token,
            "single_word": False,
            "lstrip": False,
            "rstrip": False,
            "normalized": False,
            "special": True,
        }
        for token in SPECIALS
    ]
    spec = {
        "version": "1.0",
        "truncation": None,
        "padding": None,
        "added_tokens": added,
        "normalizer": {
            "type": "BertNormalizer",
            "clean_text": True,
            "handle_chinese_chars": True,
            "strip_accents": None,
            "lowercase": True,
        },
        "pre_tokenizer": {"type": "BertPreTokenizer"},
        "post_processor": None,
        "decoder": {"type": "WordPiece", "prefix": "##", "cleanup": True},
        "model": {
            "type": "WordPiece",
            "unk_token": "[UNK]",
            "continuing_subword_prefix": "##",
            "max_input_chars_per_word": 100,
            "vocab": {token: n for n, token in enumerate(vocab)},
        },
    }
    return json.dumps(spec, separators=(",", ":")) + "\n"


def write(folder: Path = HERE) -> None:
    """Write `model.onnx` and `tokenizer.json` into `folder`."""
    vocab = _vocab()
    (folder / "model.onnx").write_bytes(model_bytes(vocab))
    (folder / "tokenizer.json").write_text(tokenizer_json(vocab), encoding="utf-8")


def main() -> None:
    write()


if __name__ == "__main__":
    main()
