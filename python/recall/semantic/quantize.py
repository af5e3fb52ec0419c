"""The optimised graph with int8 weight matrices multiplied in int8 (no `onnx` package needed).

The shipped model stores its weights as int8, but onnxruntime dequantises them
when it optimises the graph, so every matrix product ran in float32: 44
chunks a CPU-second on agent sessions, most of it in the 36 weight MatMuls
(four 384x384 projections and the two feed-forward layers of six blocks).
Rewriting each `MatMul(x, W)` whose `W` is a constant 2-D float matrix as
onnxruntime's `DynamicQuantizeMatMul(x, Wq, scale, zero)` (8-bit weights,
symmetric, one scale per output column, int8 or uint8 as the CPU multiplies
them exactly: `signed_weights`; activations quantised per call)
measured 85-92 chunks a CPU-second on the same texts, against 44-46 for float
(`bench/embed_bench.py`, variant `float`; 2026-11-26; on an AVX2 CPU without VNNI,
2026-11-28, uint8 took 0.83x float's CPU), with cosine 0.992 on average to the
float vectors (0.981 at worst over 1,000 chunks) and the dev sets' session
recall@5 unchanged (docs/benchmarks.md). The attention products (activation
by activation) stay float.

Only the fields touched are decoded (onnxgraph.py's helpers); the weights come
from the optimised graph's external data file (`weights.bin`), which the
rewritten graph still names for everything else. The int8 matrices go to a
file of their own, each at a 64 KiB boundary so onnxruntime maps them rather
than copying: held inside the graph, they made loading it 62 ms instead of 16
(a cold hybrid search pays that).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from recall.semantic.onnxgraph import _encode, _fields, _node, _varint

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

FLOAT, UINT8, INT8 = 1, 2, 3
"""TensorProto data types."""
ALIGN = 65536
"""Offsets of the int8 matrices in their file: onnxruntime maps external data whose offset
is a multiple of the allocation granularity (a page on Linux, 64 KiB on Windows)."""
OP, DOMAIN = b"DynamicQuantizeMatMul", b"com.microsoft"


class _Tensor:
    """An initializer's name, shape, type and where its bytes are."""

    def __init__(self, data: bytes) -> None:
        self.name, self.dims, self.dtype = "", [], 0
        self.raw: bytes | None = None
        self.external: dict[str, str] = {}
        for number, wire, value in _fields(data):
            if number == 8 and isinstance(value, bytes):
                self.name = value.decode()
            elif number == 1:
                self.dims += _ints(wire, value)
            elif number == 2 and isinstance(value, int):
                self.dtype = value
            elif number == 9 and isinstance(value, bytes):
                self.raw = value
            elif number == 13 and isinstance(value, bytes):
                entry = {k: v for k, _w, v in _fields(value)}
                key, val = entry.get(1), entry.get(2)
                if isinstance(key, bytes) and isinstance(val, bytes):
                    self.external[key.decode()] = val.decode()

    def matrix(self, weights: bytes) -> npt.NDArray[np.float32] | None:
        """The float matrix this holds, or None when it is not one we can read."""
        import numpy as np

        if self.dtype != FLOAT or len(self.dims) != 2:
            return None
        if self.raw is not None:
            data = self.raw
        elif self.external:
            start = int(self.external.get("offset", "0"))
            data = weights[start : start + int(self.external.get("length", "0"))]
        else:
            return None
        if len(data) != 4 * self.dims[0] * self.dims[1]:
            return None
        return np.frombuffer(data, dtype="<f4").reshape(self.dims)


def _ints(wire: int, value: int | bytes) -> list[int]:
    if isinstance(value, int):
        return [value]
    out, i = [], 0
    while i < len(value):
        n, i = _varint(value, i)
        out.append(n)
    return out


def _tensor(name: str, array: npt.NDArray[np.generic], dtype: int) -> bytes:
    dims = b"".join(_encode(1, 0, d) for d in array.shape)
    return (
        dims + _encode(2, 0, dtype) + _encode(8, 2, name.encode()) + _encode(9, 2, array.tobytes())
    )


def _external(
    name: str, shape: tuple[int, ...], dtype: int, file: str, at: int, size: int
) -> bytes:
    """A TensorProto whose bytes are `size` bytes at offset `at` of `file` (beside the graph)."""
    entries = (("location", file), ("offset", str(at)), ("length", str(size)))
    out = b"".join(_encode(1, 0, d) for d in shape)
    out += _encode(2, 0, dtype) + _encode(8, 2, name.encode())
    out += b"".join(
        _encode(13, 2, _encode(1, 2, k.encode()) + _encode(2, 2, v.encode())) for k, v in entries
    )
    return out + _encode(14, 0, 1)  # data_location: EXTERNAL


def signed_weights(cpuinfo: str | None = None, machine: str | None = None) -> bool:
    """Whether to store the weights as int8 about 0 (else uint8 about 128).

    onnxruntime multiplies uint8 activations by int8 weights with AVX2's
    `vpmaddubsw` where an x86 CPU lacks VNNI, which saturates a pair of products at
    32,767 (255 x 127 x 2 is 64,770): on such a CPU (an AMD EPYC, 2026-11-28) a test
    product came out wrong by a third of its size. uint8 by uint8 widens first and
    is exact everywhere, but skips the VNNI kernels, so int8 is kept where VNNI (or
    AMX) makes it exact and fast: an x86 CPU whose flags say so. Elsewhere (no
    VNNI, ARM, a platform without /proc/cpuinfo) uint8. Both hold the same values,
    so the vectors are the same wherever both are exact."""
    import platform

    arch = (machine or platform.machine()).lower()
    if arch not in ("x86_64", "amd64", "i386", "i686", "x86"):
        return False
    if cpuinfo is None:
        try:
            with open("/proc/cpuinfo", encoding="ascii", errors="replace") as fh:
                cpuinfo = fh.read(1 << 16)
        except OSError:
            return False
    flags = next((line for line in cpuinfo.splitlines() if line.startswith("flags")), "")
    return bool({"avx512_vnni", "avx_vnni", "amx_int8"} & set(flags.split()))


def quantized(
    matrix: npt.NDArray[np.float32], signed: bool = False
) -> tuple[npt.NDArray[np.int8] | npt.NDArray[np.uint8], npt.NDArray[np.float32]]:
    """`matrix` in 8 bits with one scale per column, symmetric: int8 in -127..127 about
    0 (`signed`), or the same values shifted to uint8 1..255 about 128."""
    import numpy as np

    scale = (np.maximum(np.abs(matrix).max(axis=0), 1e-12) / 127.0).astype(np.float32)
    q = np.clip(np.rint(matrix / scale), -127, 127)
    if signed:
        return q.astype(np.int8), scale
    return (q + 128).astype(np.uint8), scale


def quantize_graph(
    model: bytes, weights_file: Path, out_file: Path, signed: bool = False
) -> tuple[bytes, int]:
    """`model` (an optimised ModelProto whose large initializers live in `weights_file`)
    with every constant-weight MatMul in int8, and how many were rewritten; the int8
    matrices are written to `out_file`, beside the graph (int8 when `signed`, else uint8:
    `signed_weights` says which this CPU computes exactly and fast). The float weights they replace
    are dropped from the graph (still in `weights_file`, never read)."""
    import numpy as np

    weights = weights_file.read_bytes()
    blob = bytearray()
    top = list(_fields(model))
    at = next(n for n, f in enumerate(top) if f[0] == 7 and isinstance(f[2], bytes))
    graph = list(_fields(top[at][2]))  # type: ignore[arg-type]
    tensors = {
        t.name: t for t in (_Tensor(v) for n, _w, v in graph if n == 5 and isinstance(v, bytes))
    }
    readers: dict[str, int] = {}
    for number, _wire, value in graph:
        if number == 1 and isinstance(value, bytes):
            for name in _node(value)[1]:
                readers[name] = readers.get(name, 0) + 1
    body: list[bytes] = []
    replaced: set[str] = set()
    added: list[bytes] = []
    for number, wire, value in graph:
        if number == 1 and isinstance(value, bytes):
            op, inputs, outputs = _node(value)
            domain = any(n == 7 and v for n, _w, v in _fields(value))
            tensor = tensors.get(inputs[1]) if op == "MatMul" and len(inputs) == 2 else None
            matrix = tensor.matrix(weights) if tensor and not domain else None
            if matrix is not None and readers.get(inputs[1]) == 1:
                name = inputs[1]
                q, scale = quantized(matrix, signed)
                kind = INT8 if signed else UINT8
                zero = np.full(q.shape[1], 0 if signed else 128, q.dtype)
                blob += bytes(-len(blob) % ALIGN)
                added += [
                    _external(f"{name}.int8", q.shape, kind, out_file.name, len(blob), q.nbytes),
                    _tensor(f"{name}.scale", scale, FLOAT),
                    _tensor(f"{name}.zero", zero, kind),
                ]
                node = b"".join(
                    _encode(1, 2, x.encode())
                    for x in (inputs[0], f"{name}.int8", f"{name}.scale", f"{name}.zero")
                )
                node += b"".join(_encode(2, 2, o.encode()) for o in outputs)
                node += _encode(4, 2, OP) + _encode(7, 2, DOMAIN)
                body.append(_encode(1, 2, node))
                replaced.add(name)
                blob += q.tobytes()
                continue
        body.append(_encode(number, wire, value))
    if not replaced:
        return model, 0
    kept = [
        b
        for b, (number, _w, value) in zip(body, graph, strict=True)
        if not (number == 5 and isinstance(value, bytes) and _Tensor(value).name in replaced)
    ]
    kept += [_encode(5, 2, t) for t in added]
    top[at] = (7, 2, b"".join(kept))
    out_file.write_bytes(bytes(blob))
    return b"".join(_encode(*f) for f in top), len(replaced)
