"""A cached, pre-optimised copy of the ONNX model, so a search process starts fast.

Creating an onnxruntime session from the shipped int8-weight file costs
~0.2-0.3 s on every process: the protobuf is parsed and every weight is
dequantised and fused again. The first session instead saves its optimised
graph (`optimized_model_filepath`, level EXTENDED: no hardware-specific
layouts) with its weights in a separate raw file, which onnxruntime maps into
memory on load; later sessions load that with optimisation off in ~10-50 ms
and compute identical vectors (the build checks this on probe inputs).

Layout: `<data dir>/models/<name>/optimized/<sha256[:16]>-ort<version>/`
holding `model.onnx`, `weights.bin` and `meta.json`. The directory name keys
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
FORMAT = 1
"""Bumped when the cache's layout or what it holds changes."""
PROBE_IDS = ((101, 7592, 1010, 2088, 999, 102), (101, 2023, 2003, 1037, 3231, 102))
"""Two short token rows ("hello, world!" / "this is a test") run through both graphs."""
TOLERANCE = 1e-4


def cache_root(files: ModelFiles) -> Path:
    from recall.semantic.manifest import cache_dir

    return cache_dir(files.manifest) / "optimized"


def cache_path(files: ModelFiles, ort_version: str) -> Path:
    return cache_root(files) / f"{files.sha256[:16]}-ort{ort_version}"


ARENA = True
"""onnxruntime's CPU memory arena (its default): memory a run asked for is kept for
the next run instead of freed."""
THREADS = 0
"""onnxruntime threads a session uses when the caller names none (0: one per core)."""


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
    if _sound(where, files, ort.__version__):
        opts = options(ort, threads)
        opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
        try:
            return ort.InferenceSession(
                str(where / GRAPH), opts, providers=["CPUExecutionProvider"]
            )
        except Exception:  # onnxruntime raises its own kinds; rebuild below
            pass
    return _build(files, where, ort, threads)


def _stamp(path: Path) -> list[int]:
    st = path.stat()
    return [st.st_size, st.st_mtime_ns]


def _sound(where: Path, files: ModelFiles, ort_version: str) -> bool:
    try:
        meta = json.loads((where / META).read_text(encoding="utf-8"))
        return bool(
            meta.get("format") == FORMAT
            and meta.get("sha256") == files.sha256
            and meta.get("onnxruntime") == ort_version
            and meta.get(GRAPH) == _stamp(where / GRAPH)
            and meta.get(WEIGHTS) == _stamp(where / WEIGHTS)
        )
    except (OSError, ValueError, AttributeError):
        return False


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
    try:
        graph = tmp / GRAPH
        graph.write_bytes(strip_nan_guards(graph.read_bytes()))
        if not _agrees(session, tmp, ort):
            raise OSError("the optimised graph computes other vectors")
        meta = {
            "format": FORMAT,
            "sha256": files.sha256,
            "onnxruntime": ort.__version__,
            "source": source,
            GRAPH: _stamp(graph),
            WEIGHTS: _stamp(tmp / WEIGHTS),
        }
        (tmp / META).write_text(json.dumps(meta), encoding="utf-8")
        _install(tmp, where)
    except (OSError, ValueError):
        shutil.rmtree(tmp, ignore_errors=True)
        return _plain(source, ort, threads)  # the session above still saves on every load
    # The source session dequantised every weight into memory of its own (~210 MB after a
    # run, against ~60 MB plus the pages it touches for the cache's mapped weights): a
    # first `recall embed` would carry it for hours. Serve from the cache just built.
    del session
    cached = options(ort, threads)
    cached.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    try:
        return ort.InferenceSession(str(where / GRAPH), cached, providers=["CPUExecutionProvider"])
    except Exception:  # onnxruntime raises its own kinds
        return _plain(source, ort, threads)


def _plain(source: str, ort: Any, threads: int) -> Any:
    return ort.InferenceSession(source, options(ort, threads), providers=["CPUExecutionProvider"])


def _agrees(reference: Any, tmp: Path, ort: Any) -> bool:
    """Whether the cached graph gives the reference session's outputs on the probe rows."""
    import numpy as np

    opts = options(ort)
    opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    try:
        cached = ort.InferenceSession(str(tmp / GRAPH), opts, providers=["CPUExecutionProvider"])
    except Exception:
        return False
    ids = np.array(PROBE_IDS, dtype=np.int64)
    mask = np.ones_like(ids)
    mask[1, 4:] = 0  # a padded row: the case the graph's guards were for
    feed: dict[str, Any] = {"input_ids": ids, "attention_mask": mask}
    if "token_type_ids" in {i.name for i in reference.get_inputs()}:
        feed["token_type_ids"] = np.zeros_like(ids)
    want, got = reference.run(None, feed)[0], cached.run(None, feed)[0]
    return bool(want.shape == got.shape and np.abs(want - got).max() <= TOLERANCE)


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
