"""The optimised-model cache: built once, the same vectors (the float graph exactly, the int8
graph within cosine 0.98), rebuilt when stale or damaged."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from recall.semantic.onnxgraph import _encode, _fields, _node, strip_nan_guards
from semhelp import model_files

TEXTS = ["hello", "the payment client retries with exponential backoff " * 8, "ok then"]


def _node_bytes(op: str, inputs: list[str], outputs: list[str]) -> bytes:
    parts = [_encode(1, 2, i.encode()) for i in inputs]
    parts += [_encode(2, 2, o.encode()) for o in outputs]
    parts.append(_encode(4, 2, op.encode()))
    return b"".join(parts)


def _model(nodes: list[bytes], outputs: tuple[str, ...] = ("out",)) -> bytes:
    graph = b"".join(_encode(1, 2, n) for n in nodes)
    graph += _encode(2, 2, b"main")  # the graph's name: copied through untouched
    graph += b"".join(_encode(12, 2, _encode(1, 2, o.encode())) for o in outputs)
    return _encode(1, 0, 8) + _encode(7, 2, graph)  # ir_version, graph


def _ops(model: bytes) -> list[tuple[str, list[str], list[str]]]:
    graph = next(v for n, _w, v in _fields(model) if n == 7)
    assert isinstance(graph, bytes)
    return [_node(v) for n, _w, v in _fields(graph) if n == 1 and isinstance(v, bytes)]


@pytest.mark.core_free
def test_nan_guards_are_removed_and_their_readers_rewired() -> None:
    model = _model(
        [
            _node_bytes("Softmax", ["scores"], ["p"]),
            _node_bytes("IsNaN", ["p"], ["nan"]),
            _node_bytes("Where", ["nan", "zero", "p"], ["guarded"]),
            _node_bytes("MatMul", ["guarded", "v"], ["out"]),
        ]
    )
    out = strip_nan_guards(model)
    assert _ops(out) == [("Softmax", ["scores"], ["p"]), ("MatMul", ["p", "v"], ["out"])]
    assert b"main" in out and out.startswith(_encode(1, 0, 8))


@pytest.mark.core_free
def test_other_wheres_and_unparsable_bytes_are_left_alone() -> None:
    model = _model(
        [
            _node_bytes("IsNaN", ["p"], ["nan"]),
            _node_bytes("Where", ["nan", "zero", "other"], ["w"]),  # not the identity
            _node_bytes("MatMul", ["w", "v"], ["out"]),
        ]
    )
    assert strip_nan_guards(model) == model
    guarded_output = _model(
        [_node_bytes("IsNaN", ["p"], ["nan"]), _node_bytes("Where", ["nan", "z", "p"], ["out"])]
    )
    assert strip_nan_guards(guarded_output) == guarded_output  # a graph output keeps its name
    assert strip_nan_guards(b"\x3a\xff\xff\xff") == b"\x3a\xff\xff\xff"


# --- with a model (the real one, or the tiny test model) ---------------------------------------


def _files() -> Any:
    return model_files()


def _vectors(session: Any) -> Any:
    from recall.semantic.encoder import OnnxEncoder

    enc = OnnxEncoder(_files())
    enc.session = session
    return enc.embed(TEXTS)


def _near(got: Any, want: Any) -> bool:
    """Each row of `got` within the int8 graph's bound (cosine) of `want`'s."""
    from recall.semantic.optimized import MIN_COSINE

    return bool(((got * want).sum(axis=1) >= MIN_COSINE).all())


def _float_session(where: Path) -> Any:
    import onnxruntime as ort

    return ort.InferenceSession(str(where / "model.onnx"), providers=["CPUExecutionProvider"])


def _reference() -> Any:
    import onnxruntime as ort

    plain = ort.InferenceSession(
        str(_files().paths["model.onnx"]), providers=["CPUExecutionProvider"]
    )
    return _vectors(plain)


def _where() -> Path:
    import onnxruntime as ort

    from recall.semantic.optimized import cache_path

    return cache_path(_files(), ort.__version__)


@pytest.mark.needs_model
@pytest.mark.core_free
def test_the_cache_is_built_once_and_computes_the_same_vectors() -> None:
    import numpy as np

    from recall.semantic.optimized import open_session

    first = open_session(_files())
    where = _where()
    meta = json.loads((where / "meta.json").read_text())
    assert meta["sha256"] == _files().sha256 and meta["onnxruntime"] in where.name
    stamp = (where / "weights.bin").stat().st_mtime_ns
    second = open_session(_files())
    assert (where / "weights.bin").stat().st_mtime_ns == stamp  # loaded, not rebuilt
    want = _reference()
    assert np.abs(_vectors(_float_session(where)) - want).max() < 1e-5  # the float graph: exact
    assert _near(_vectors(first), want) and _near(_vectors(second), want)
    ops = [op for op, _i, _o in _ops((where / "model.onnx").read_bytes())]
    source = {op for op, _i, _o in _ops(_files().paths["model.onnx"].read_bytes())}
    assert "IsNaN" not in ops and set(ops) & (
        source - {"IsNaN", "Where"}
    )  # the guards went, not the rest
    if "MatMul" not in ops:  # the tiny test model has no weight matrix to quantise
        assert meta["model-int8.onnx"] is None and not (where / "model-int8.onnx").exists()
        return
    assert not np.array_equal(_vectors(first), want)  # it is the int8 graph that serves
    int8 = [op for op, _i, _o in _ops((where / "model-int8.onnx").read_bytes())]
    assert "DynamicQuantizeMatMul" in int8 and int8.count("MatMul") < ops.count("MatMul")


@pytest.mark.needs_model
@pytest.mark.core_free
def test_with_quantising_off_the_float_graph_serves(monkeypatch: pytest.MonkeyPatch) -> None:
    import numpy as np

    from recall.semantic import optimized

    open_session = optimized.open_session
    open_session(_files())  # a cache with both graphs
    monkeypatch.setattr(optimized, "QUANTIZE", False)
    assert np.abs(_vectors(open_session(_files())) - _reference()).max() < 1e-5


@pytest.mark.needs_model
@pytest.mark.core_free
def test_an_int8_graph_that_strays_is_not_served(monkeypatch: pytest.MonkeyPatch) -> None:
    """A machine whose int8 kernels compute other vectors keeps the float graph."""
    import numpy as np

    from recall.semantic import optimized

    monkeypatch.setattr(optimized, "MIN_COSINE", 1.01)  # no int8 vector can be this close
    session = optimized.open_session(_files())
    meta = json.loads((_where() / "meta.json").read_text())
    assert meta["model-int8.onnx"] is None and not (_where() / "model-int8.onnx").exists()
    assert np.abs(_vectors(session) - _reference()).max() < 1e-5
    assert np.abs(_vectors(optimized.open_session(_files())) - _reference()).max() < 1e-5


def _stale_version(where: Path) -> None:
    meta = json.loads((where / "meta.json").read_text())
    (where / "meta.json").write_text(json.dumps({**meta, "onnxruntime": "0.0.1"}))


def _truncated_weights(where: Path) -> None:
    with open(where / "weights.bin", "r+b") as fh:
        fh.truncate(1000)


def _garbage_graph(where: Path) -> None:
    (where / "model.onnx").write_bytes(b"not a model" * 100)


def _garbage_meta(where: Path) -> None:
    (where / "meta.json").write_text("{")


def _truncated_int8_weights(where: Path) -> None:
    with open(where / "weights-int8.bin", "a+b") as fh:  # made if the model had none
        fh.truncate(1000)


def _garbage_int8_graph(where: Path) -> None:
    (where / "model-int8.onnx").write_bytes(b"not a model" * 100)


@pytest.mark.needs_model
@pytest.mark.parametrize(
    "damage",
    [
        _stale_version,
        _truncated_weights,
        _garbage_graph,
        _garbage_meta,
        _truncated_int8_weights,
        _garbage_int8_graph,
    ],
)
@pytest.mark.core_free
def test_a_stale_or_damaged_cache_is_rebuilt_not_served(damage: Callable[[Path], None]) -> None:
    import numpy as np
    import onnxruntime as ort

    from recall.semantic.optimized import open_session

    open_session(_files())
    where = _where()
    damage(where)
    session = open_session(_files())
    meta = json.loads((where / "meta.json").read_text())
    assert meta["onnxruntime"] == ort.__version__
    assert meta["weights.bin"][0] == (where / "weights.bin").stat().st_size > 1000  # whole again
    if meta["model-int8.onnx"]:  # not for the tiny test model, which has no weight matrix
        assert meta["model-int8.onnx"][1][0] == (where / "weights-int8.bin").stat().st_size > 1000
    want = _reference()
    assert _near(_vectors(session), want) and _near(_vectors(open_session(_files())), want)
    assert np.abs(_vectors(_float_session(where)) - want).max() < 1e-5


@pytest.mark.needs_model
@pytest.mark.core_free
def test_other_versions_caches_are_removed_and_an_unwritable_dir_still_works() -> None:
    import numpy as np

    from recall.semantic.optimized import cache_root, open_session

    old = cache_root(_files()) / "0123456789abcdef-ort1.0.0"
    old.mkdir(parents=True)
    (old / "weights.bin").write_bytes(b"x")
    open_session(_files())
    assert old.exists() is False and _where().is_dir()
    # a data directory that cannot hold the cache: the source model, no error
    for path in sorted(cache_root(_files()).rglob("*"), reverse=True):
        path.unlink() if path.is_file() else path.rmdir()
    cache_root(_files()).rmdir()
    cache_root(_files()).write_text("in the way")
    assert np.abs(_vectors(open_session(_files())) - _reference()).max() < 1e-5
