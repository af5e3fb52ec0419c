"""The tiny test model stands in for the real one: same contract, a few KB, current.

`needs_model` tests embed with it wherever the real model is not installed
(tests/conftest.py), so it must load and run exactly where the real one
would, and what it says about meaning must be what those tests rely on.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

import pytest

from recall.semantic.manifest import load_manifest, locate

TINY = Path(__file__).resolve().parents[1] / "support" / "tinymodel"


def _script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("make_tiny_model", TINY / "make_tiny_model.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_shipped_files_are_what_the_script_writes(tmp_path: Path) -> None:
    _script().write(tmp_path)
    for name in ("model.onnx", "tokenizer.json"):
        assert (tmp_path / name).read_bytes() == (TINY / name).read_bytes(), name
        assert (TINY / name).stat().st_size < 16_000  # a few KB, not 23 MB


def test_it_has_the_real_models_inputs_and_outputs() -> None:
    import numpy as np
    import onnxruntime as ort

    session = ort.InferenceSession(str(TINY / "model.onnx"), providers=["CPUExecutionProvider"])
    inputs = {(i.name, i.type) for i in session.get_inputs()}
    assert inputs == {
        ("input_ids", "tensor(int64)"),
        ("attention_mask", "tensor(int64)"),
        ("token_type_ids", "tensor(int64)"),
    }
    [out] = session.get_outputs()
    assert (out.name, out.type, out.shape[-1]) == (
        "last_hidden_state",
        "tensor(float)",
        load_manifest().dims,
    )
    ids = np.array([[2, 7592, 3], [2, 3, 0]], dtype=np.int64)  # 7592: past the vocabulary
    feed = {"input_ids": ids, "attention_mask": np.ones_like(ids), "token_type_ids": ids * 0}
    assert session.run(None, feed)[0].shape == (2, 3, 384)


@pytest.fixture
def encoder() -> object:
    from recall.semantic.encoder import OnnxEncoder

    return OnnxEncoder(locate(load_manifest(), str(TINY)), threads=1)


def test_meaning_without_shared_words_and_nothing_for_made_up_words(encoder: object) -> None:
    texts = [
        "library for data analysis",
        "Our nightly report is slow. We load the CSV with pandas and group by region.",
        "My tomato plants have yellow leaves, what should I water them with?",
        "qwfp zxcv jkl",
    ]
    query, pandas, garden, nonsense = encoder.embed(texts)  # type: ignore[attr-defined]
    assert query @ pandas > 0.5 > 0.05 > query @ garden
    assert abs(nonsense @ pandas) < 0.05 and abs(nonsense @ garden) < 0.05
