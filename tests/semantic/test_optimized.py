"""The optimised-model cache: built once, the same vectors, rebuilt when stale or damaged."""

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
    assert np.abs(_vectors(first) - want).max() < 1e-5
    assert np.abs(_vectors(second) - want).max() < 1e-5
    ops = {op for op, _i, _o in _ops((where / "model.onnx").read_bytes())}
    source = {op for op, _i, _o in _ops(_files().paths["model.onnx"].read_bytes())}
    assert "IsNaN" not in ops and ops & (
        source - {"IsNaN", "Where"}
    )  # the guards went, not the rest


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


@pytest.mark.needs_model
@pytest.mark.parametrize(
    "damage", [_stale_version, _truncated_weights, _garbage_graph, _garbage_meta]
)
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
    assert np.abs(_vectors(session) - _reference()).max() < 1e-5
    assert np.abs(_vectors(open_session(_files())) - _reference()).max() < 1e-5


@pytest.mark.needs_model
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
