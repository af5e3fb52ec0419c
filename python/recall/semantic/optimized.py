"""A cached, pre-optimised copy of the ONNX model, so a search process starts fast.

Creating an onnxruntime session from the shipped int8-weight file costs
~0.2-0.3 s on every process: the protobuf is parsed and every weight is
dequantised and fused again. The first session instead saves its optimised
graph (`optimized_model_filepath`, level EXTENDED: no hardware-specific
layouts) with its weights in a separate raw file, which onnxruntime maps into
memory on load; later sessions load that with optimisation off in ~10-50 ms
and compute identical vectors (the build checks this on probe inputs).

The cache also holds the same graph with its weight matrices multiplied in
int8 (quantize.py: twice the chunks a CPU-second; vectors within cosine 0.98
of float for a message, 0.97 for a two-word one), which sessions use when it
was built and checked against the float graph on probe rows; the float graph
is kept for a machine where it was not.

Layout: `<data dir>/models/<name>/optimized/<sha256[:16]>-ort<version>/`
holding `model.onnx`, `weights.bin`, `model-int8.onnx`, `weights-int8.bin` and
`meta.json`. The directory name keys
the cache by the source file's sha256 and the onnxruntime version, and
`meta.json` records both in full with each file's (size, mtime) stamp: a
cache whose key, stamps or load fail is rebuilt, never served. Builds go to
a temporary directory renamed into place, so a reader never sees half a
cache. Any failure to write (read-only data dir, full disk) falls back to the
source file: the cache is only ever a speed-up.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
from pathlib import Path
from typing import TYPE_CHECKING, Any

from recall.semantic.onnxgraph import strip_nan_guards

if TYPE_CHECKING:
    from recall.semantic.manifest import ModelFiles

GRAPH, WEIGHTS, META = "model.onnx", "weights.bin", "meta.json"
INT8, INT8_WEIGHTS = "model-int8.onnx", "weights-int8.bin"
FORMAT = 3
"""Bumped when the cache's layout or what it holds changes."""
PROBE_IDS = ((101, 7592, 1010, 2088, 999, 102), (101, 2023, 2003, 1037, 3231, 102))
"""Two short token rows ("hello, world!" / "this is a test") run through both graphs."""
TOLERANCE = 1e-4
QUANTIZE = True
"""Build and serve the int8 graph (quantize.py); False serves the float graph."""
MIN_COSINE = 0.97
"""The int8 graph is served only if every probe row's pooled vector is at least this close
(cosine) to the float graph's. Measured on the shipped model: 0.992 on average over 300
agent-session chunks (0.978 the worst); two- and three-word texts stray most ("ok then":
0.974). A CPU whose int8 kernels misbehave fails this and keeps the float graph."""
LONG_PROBE = tuple(range(1000, 30000, 233))
"""A 127-token row of varied vocabulary, so the check sees more than two short rows."""


def cache_root(files: ModelFiles) -> Path:
    from recall.semantic.manifest import cache_dir

    return cache_dir(files.manifest) / "optimized"


def cache_path(files: ModelFiles, ort_version: str) -> Path:
    return cache_root(files) / f"{files.sha256[:16]}-ort{ort_version}"


ARENA = True
"""onnxruntime's CPU memory arena (its default): memory a run asked for is kept for
the next run instead of freed."""
THREADS = 0
"""onnxruntime threads a session uses when the caller names none and its encoder runs one
batch at a time (0: one per core; a bulk encoder's side-by-side runs take one each)."""


def options(ort: Any, threads: int = 0) -> Any:
    """Session options for recall's use. Prepacking (copying every weight matrix into
    the GEMM kernel's layout at load) is off: it cost ~40 ms of a ~50 ms load, ~200 ms
    on a busy machine, and batch throughput measured the same without it. Idle pool
    threads sleep rather than spin: embedding runs beside the user's own work, and on
    a loaded machine spinning measured slower, not faster."""
    opts = ort.SessionOptions()
    opts.log_severity_level = 3  # onnxruntime's warnings are not the user's business
    opts.add_session_config_entry("session.disable_prepacking", "1")
    opts.add_session_config_entry("session.intra_op.allow_spinning", "0")
    opts.enable_cpu_mem_arena = ARENA
    if threads or THREADS:
        opts.intra_op_num_threads = threads or THREADS
    return opts


def open_session(files: ModelFiles, threads: int = 0) -> Any:
    """An InferenceSession for `files`' model, from the optimised cache when it is sound."""
    import onnxruntime as ort

    if not files.sha256:  # nothing to key a cache by
        return _plain(str(files.paths["model.onnx"]), ort, threads)
    where = cache_path(files, ort.__version__)
    graph = _sound(where, files, ort.__version__)
    if graph:
        opts = options(ort, threads)
        opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
        try:
            return ort.InferenceSession(
                str(where / graph), opts, providers=["CPUExecutionProvider"]
            )
        except Exception:  # onnxruntime raises its own kinds; rebuild below
            pass
    return _build(files, where, ort, threads)


def _stamp(path: Path) -> list[int]:
    st = path.stat()
    return [st.st_size, st.st_mtime_ns]


def _sound(where: Path, files: ModelFiles, ort_version: str) -> str | None:
    """The graph to serve from a sound cache (the int8 one when it was built and
    QUANTIZE is on), or None when the cache is missing, stale or damaged."""
    try:
        meta = json.loads((where / META).read_text(encoding="utf-8"))
        sound = bool(
            meta.get("format") == FORMAT
            and meta.get("sha256") == files.sha256
            and meta.get("onnxruntime") == ort_version
            and meta.get(GRAPH) == _stamp(where / GRAPH)
            and meta.get(WEIGHTS) == _stamp(where / WEIGHTS)
        )
        if not sound:
            return None
        if not QUANTIZE or not meta.get(INT8):
            return GRAPH
        int8 = meta[INT8] == [_stamp(where / INT8), _stamp(where / INT8_WEIGHTS)]
        return INT8 if int8 else None
    except (OSError, ValueError, AttributeError, TypeError):
        return None


def _build(files: ModelFiles, where: Path, ort: Any, threads: int) -> Any:
    """Optimise the source model, save the cache beside it, and return the session."""
    source = str(files.paths["model.onnx"])
    tmp = where.with_name(f"{where.name}.tmp-{os.getpid()}")
    opts = options(ort, threads)
    try:
        shutil.rmtree(tmp, ignore_errors=True)
        tmp.mkdir(parents=True)
        opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_EXTENDED
        opts.optimized_model_filepath = str(tmp / GRAPH)
        opts.add_session_config_entry(
            "session.optimized_model_external_initializers_file_name", WEIGHTS
        )
        opts.add_session_config_entry(
            "session.optimized_model_external_initializers_min_size_in_bytes", "1024"
        )
    except OSError:
        return _plain(source, ort, threads)
    session = ort.InferenceSession(source, opts, providers=["CPUExecutionProvider"])
    # The source session dequantised every weight into memory of its own (~210 MB): keep
    # only its outputs on the probe rows, so checking and quantising the cache's graphs
    # does not stack on it (a first `recall embed` peaked at 337 MB with it held).
    reference = _Reference(session)
    del session
    try:
        graph = tmp / GRAPH
        graph.write_bytes(strip_nan_guards(graph.read_bytes()))
        if not _agrees(reference, tmp / GRAPH, ort):
            raise OSError("the optimised graph computes other vectors")
        meta = {
            "format": FORMAT,
            "sha256": files.sha256,
            "onnxruntime": ort.__version__,
            "source": source,
            GRAPH: _stamp(graph),
            WEIGHTS: _stamp(tmp / WEIGHTS),
            INT8: _int8(reference, tmp, ort),
        }
        (tmp / META).write_text(json.dumps(meta), encoding="utf-8")
        _install(tmp, where)
    except (OSError, ValueError):
        shutil.rmtree(tmp, ignore_errors=True)
        return _plain(source, ort, threads)  # the session above still saves on every load
    # Serve from the cache just built (~60 MB plus the pages it touches of the mapped
    # weights), never from the source session a first `recall embed` would carry for hours.
    cached = options(ort, threads)
    cached.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    serve = INT8 if QUANTIZE and meta[INT8] else GRAPH
    try:
        return ort.InferenceSession(str(where / serve), cached, providers=["CPUExecutionProvider"])
    except Exception:  # onnxruntime raises its own kinds
        return _plain(source, ort, threads)


def _plain(source: str, ort: Any, threads: int) -> Any:
    return ort.InferenceSession(source, options(ort, threads), providers=["CPUExecutionProvider"])


def _int8(reference: _Reference, tmp: Path, ort: Any) -> list[list[int]] | None:
    """Write the int8 graph beside the float one and return its files' stamps, or None (and
    no files) when nothing was quantised or its vectors stray from the float graph's."""
    from recall.semantic.quantize import quantize_graph, signed_weights

    path, weights = tmp / INT8, tmp / INT8_WEIGHTS
    try:
        graph = (tmp / GRAPH).read_bytes()
        model, count = quantize_graph(graph, tmp / WEIGHTS, weights, signed_weights())
        if count:
            path.write_bytes(model)
            if _close(reference, path, ort):
                return [_stamp(path), _stamp(weights)]
    except (ValueError, IndexError, UnicodeDecodeError):  # bytes we could not read
        pass
    path.unlink(missing_ok=True)
    weights.unlink(missing_ok=True)
    return None


LONG_ROWS = (*PROBE_IDS, (101, *LONG_PROBE, 102))


def _feed(rows: tuple[tuple[int, ...], ...], inputs: set[str]) -> dict[str, Any]:
    """`rows` padded into the model's inputs; the second row is masked past its fourth
    token (a padded row: the case the graph's guards were for)."""
    import numpy as np

    width = max(len(r) for r in rows)
    ids = np.zeros((len(rows), width), dtype=np.int64)
    mask = np.zeros_like(ids)
    for n, row in enumerate(rows):
        ids[n, : len(row)] = row
        mask[n, : len(row)] = 1
    mask[1, 4:] = 0
    feed: dict[str, Any] = {"input_ids": ids, "attention_mask": mask}
    if "token_type_ids" in inputs:
        feed["token_type_ids"] = np.zeros_like(ids)
    return feed


class _Reference:
    """The source model's outputs on the probe rows: what the cache's graphs must give."""

    def __init__(self, session: Any) -> None:
        self.inputs = {i.name for i in session.get_inputs()}
        self.outputs: dict[tuple[tuple[int, ...], ...], Any] = {
            rows: session.run(None, _feed(rows, self.inputs))[0] for rows in (PROBE_IDS, LONG_ROWS)
        }


def _probe(reference: _Reference, graph: Path, ort: Any, rows: tuple[tuple[int, ...], ...]) -> Any:
    """The reference's and `graph`'s outputs on `rows` with their mask, or None when `graph`
    does not load or run."""
    opts = options(ort)
    opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    feed = _feed(rows, reference.inputs)
    try:
        cached = ort.InferenceSession(str(graph), opts, providers=["CPUExecutionProvider"])
        got = cached.run(None, feed)[0]
    except Exception:  # onnxruntime raises its own kinds
        return None
    return reference.outputs[rows], got, feed["attention_mask"]


def _agrees(reference: _Reference, graph: Path, ort: Any) -> bool:
    """Whether `graph` gives the reference session's outputs on the probe rows."""
    import numpy as np

    found = _probe(reference, graph, ort, PROBE_IDS)
    if found is None:
        return False
    want, got, _mask = found
    return bool(want.shape == got.shape and np.abs(want - got).max() <= TOLERANCE)


def _close(reference: _Reference, graph: Path, ort: Any) -> bool:
    """Whether `graph`'s pooled vectors are within MIN_COSINE of the reference's on the
    probe rows and a longer one."""
    import numpy as np

    found = _probe(reference, graph, ort, LONG_ROWS)
    if found is None:
        return False
    want, got, mask = found
    if want.shape != got.shape:
        return False
    weights = mask[:, :, None].astype(np.float32)
    a, b = (want * weights).sum(axis=1), (got * weights).sum(axis=1)  # mean pooling's sums
    cosine = (a * b).sum(axis=1) / np.maximum(
        np.linalg.norm(a, axis=1) * np.linalg.norm(b, axis=1), 1e-12
    )
    return bool(np.all(cosine >= MIN_COSINE))


def _install(tmp: Path, where: Path) -> None:
    """Rename the finished build into place, replacing a stale one, other versions' caches
    and builds abandoned over an hour ago (another process's may be under way)."""
    import time

    for old in where.parent.iterdir():
        if old == tmp:
            continue
        building = ".tmp-" in old.name
        with contextlib.suppress(OSError):
            if not building or time.time() - old.stat().st_mtime > 3600:
                shutil.rmtree(old)
    try:
        tmp.rename(where)
    except OSError:  # another process installed it first: theirs is as good
        with contextlib.suppress(OSError):
            shutil.rmtree(tmp)
