"""The int8 rewrite of a graph's weight matrices (semantic/quantize.py), on a graph built here:
it runs in onnxruntime and computes the float graph's products to int8 precision, whichever
model the machine has."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from recall.semantic.onnxgraph import _encode, _fields, _node

K, N = 64, 48


def _value(name: str, width: int) -> bytes:
    """A ValueInfoProto: float tensor [batch, width]."""
    dims = _encode(1, 2, _encode(2, 2, b"batch")) + _encode(1, 2, _encode(1, 0, width))
    tensor = _encode(1, 0, 1) + _encode(2, 2, dims)  # elem_type FLOAT, shape
    return _encode(1, 2, name.encode()) + _encode(2, 2, _encode(1, 2, tensor))


def _graph(tmp: Path, weights: Any) -> bytes:
    """u = (x @ W)^2: W external in weights.bin, as onnxruntime saves an optimised graph,
    then a product of two activations, which has no weight to quantise."""
    raw = weights.astype("<f4").tobytes()
    (tmp / "weights.bin").write_bytes(raw)
    entries = (("location", "weights.bin"), ("offset", "0"), ("length", str(len(raw))))
    w = _encode(1, 0, K) + _encode(1, 0, N) + _encode(2, 0, 1) + _encode(8, 2, b"W")
    w += b"".join(
        _encode(13, 2, _encode(1, 2, k.encode()) + _encode(2, 2, v.encode())) for k, v in entries
    )
    w += _encode(14, 0, 1)
    matmul = _encode(1, 2, b"x") + _encode(1, 2, b"W") + _encode(2, 2, b"y")
    matmul += _encode(4, 2, b"MatMul")
    square = _encode(1, 2, b"y") + _encode(1, 2, b"y") + _encode(2, 2, b"u") + _encode(4, 2, b"Mul")
    graph = _encode(1, 2, matmul) + _encode(1, 2, square) + _encode(2, 2, b"g")
    graph += _encode(5, 2, w) + _encode(11, 2, _value("x", K)) + _encode(12, 2, _value("u", N))
    opsets = _encode(8, 2, _encode(1, 2, b"") + _encode(2, 0, 17))
    opsets += _encode(8, 2, _encode(1, 2, b"com.microsoft") + _encode(2, 0, 1))
    return _encode(1, 0, 8) + opsets + _encode(7, 2, graph)


def _quantize(tmp: Path, weights: Any, signed: bool = False) -> tuple[bytes, int]:
    """The float graph of `weights` written to model.onnx, its 8-bit rewrite to int8.onnx
    (`signed`: int8 weights, else uint8); the rewrite and how many MatMuls it changed."""
    from recall.semantic.quantize import quantize_graph

    (tmp / "model.onnx").write_bytes(_graph(tmp, weights))
    source = (tmp / "model.onnx").read_bytes()
    model, count = quantize_graph(source, tmp / "weights.bin", tmp / "w8.bin", signed)
    (tmp / "int8.onnx").write_bytes(model)
    return model, count


def _run(path: Path, x: Any) -> Any:
    import onnxruntime as ort

    session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    return session.run(None, {"x": x})[0]


def test_weight_matmuls_become_int8_and_compute_the_same_products(tmp_path: Path) -> None:
    import numpy as np

    rng = np.random.default_rng(7)
    weights = rng.normal(0, 0.1, (K, N)).astype(np.float32)
    x = rng.normal(0, 1, (5, K)).astype(np.float32)
    model, count = _quantize(tmp_path, weights)
    graph = next(v for n, _w, v in _fields(model) if n == 7)
    assert isinstance(graph, bytes)
    ops = [_node(v)[0] for n, _w, v in _fields(graph) if n == 1 and isinstance(v, bytes)]
    assert count == 1 and ops == ["DynamicQuantizeMatMul", "Mul"]  # the activation product stays
    assert (tmp_path / "w8.bin").stat().st_size == K * N  # one int8 matrix, at offset 0
    want, got = _run(tmp_path / "model.onnx", x), _run(tmp_path / "int8.onnx", x)
    assert np.allclose(want, (x @ weights) ** 2, rtol=1e-4, atol=1e-5)
    assert not np.array_equal(got, want)  # computed in int8 ...
    assert (
        np.abs(np.sqrt(got) - np.sqrt(want)).max() < 0.02 * np.abs(x @ weights).max()
    )  # ... closely


def test_a_graph_with_no_weight_matrix_is_returned_as_it_was(tmp_path: Path) -> None:
    from recall.semantic.quantize import quantize_graph

    square = _encode(1, 2, b"x") + _encode(1, 2, b"x") + _encode(2, 2, b"u") + _encode(4, 2, b"Mul")
    model = _encode(1, 0, 8) + _encode(7, 2, _encode(1, 2, square))
    (tmp_path / "weights.bin").write_bytes(b"")
    assert quantize_graph(model, tmp_path / "weights.bin", tmp_path / "w8.bin") == (model, 0)


def _initializers(model: bytes) -> dict[str, int]:
    """Each initializer's name and TensorProto data type."""
    graph = next(v for n, _w, v in _fields(model) if n == 7)
    assert isinstance(graph, bytes)
    out = {}
    for n, _w, v in _fields(graph):
        if n == 5 and isinstance(v, bytes):
            fields = {k: x for k, _w2, x in _fields(v) if k in (2, 8)}
            name = fields[8]
            assert isinstance(name, bytes)
            out[name.decode()] = int(fields[2])  # type: ignore[arg-type]
    return out


def test_weights_and_their_zero_point_share_one_8_bit_type_and_dequantise_to_the_matrix(
    tmp_path: Path,
) -> None:
    import numpy as np

    from recall.semantic.quantize import INT8, UINT8, quantized

    rng = np.random.default_rng(3)
    matrix = rng.normal(0, 0.1, (K, N)).astype(np.float32)
    for signed, kind, zero in ((True, INT8, 0), (False, UINT8, 128)):
        q, scale = quantized(matrix, signed)
        assert q.dtype == (np.int8 if signed else np.uint8)
        assert int(q.min()) >= zero - 127 and int(q.max()) <= zero + 127
        back = (q.astype(np.float32) - zero) * scale
        assert np.abs(back - matrix).max() <= scale.max() / 2 + 1e-7
        model, _ = _quantize(tmp_path, matrix, signed)
        types = _initializers(model)
        assert types["W.int8"] == kind and types["W.zero"] == kind and types["W.scale"] == 1


def test_int8_weights_only_where_the_cpu_multiplies_them_exactly() -> None:
    from recall.semantic.quantize import signed_weights

    avx2 = "processor : 0\nflags\t\t: fpu sse2 avx avx2 fma\n"
    vnni = "flags\t\t: fpu avx avx2 avx512f avx512_vnni\n"
    alder = "flags\t\t: fpu avx avx2 avx_vnni\n"
    assert signed_weights(avx2, "x86_64") is False  # vpmaddubsw saturates: uint8
    assert signed_weights(vnni, "x86_64") is True
    assert signed_weights(alder, "AMD64") is True
    assert signed_weights("", "x86_64") is False  # nothing said: the exact choice
    assert signed_weights(vnni, "aarch64") is False  # not x86: uint8 is exact and native


def test_this_machines_choice_computes_the_float_products(tmp_path: Path) -> None:
    import numpy as np

    from recall.semantic.quantize import signed_weights

    rng = np.random.default_rng(11)
    weights = rng.normal(0, 0.1, (K, N)).astype(np.float32)
    x = rng.normal(0, 1, (7, K)).astype(np.float32)
    _quantize(tmp_path, weights, signed_weights())
    got = _run(tmp_path / "int8.onnx", x)
    assert np.abs(np.sqrt(got) - np.abs(x @ weights)).max() < 0.02 * np.abs(x @ weights).max()
