"""The usearch HNSW index: derived from the vectors in SQLite, replaced atomically.

Layout in `<data dir>/vectors/`: index files named by model and content
(`<model>.<count>.<max id>.usearch`, never rewritten once named) and one
`<model>.json` pointer naming the current file with its chunk count, highest
chunk id and the table's deletion count when it was built; the pointer is
replaced by rename under `index.lock`. A reader follows the pointer, so it
sees either the old index or the new one, never half of either. Chunk ids are
never reused, so "no chunk deleted since" (the `chunk_stats` triggers count
deletions) proves the index matches the table without a scan; chunks added
since are searched exactly until the next update folds them in. A missing,
unreadable or stale index is rebuilt, never served.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import sqlite3
from pathlib import Path
from typing import TYPE_CHECKING, Any

from recall.semantic import vectors
from recall.store.locking import write_lock

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

CONNECTIVITY = 16
EXPANSION_ADD = 128
EXPANSION_SEARCH = 192
EXACT_TAIL_MAX = 20_000
"""Chunks newer than the index searched exactly; beyond this the index is brought up to date."""


def vectors_dir() -> Path:
    from recall.config import data_dir

    return data_dir() / "vectors"


def _safe(model: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]", "_", model)


def _pointer(model: str) -> Path:
    return vectors_dir() / f"{_safe(model)}.json"


def _new_index(dims: int) -> Any:
    from usearch.index import Index

    return Index(
        ndim=dims,
        metric="cos",
        dtype="f32",
        connectivity=CONNECTIVITY,
        expansion_add=EXPANSION_ADD,
        expansion_search=EXPANSION_SEARCH,
    )


class Searcher:
    """Nearest chunks by cosine: the HNSW index plus an exact scan of newer chunks."""

    def __init__(
        self, index: Any, tail_ids: npt.NDArray[np.int64], tail: npt.NDArray[np.float32]
    ) -> None:
        self.index = index
        self.tail_ids = tail_ids
        self.tail = tail

    def __len__(self) -> int:
        return (len(self.index) if self.index is not None else 0) + len(self.tail_ids)

    def search(self, query: npt.NDArray[np.float32], k: int) -> list[tuple[int, float]]:
        """(chunk id, cosine similarity) of the `k` nearest chunks, best first."""
        import numpy as np

        hits: list[tuple[int, float]] = []
        if self.index is not None and len(self.index):
            found = self.index.search(query, min(k, len(self.index)))
            hits.extend(
                (int(key), 1.0 - float(dist))
                for key, dist in zip(found.keys, found.distances, strict=True)
            )
        if len(self.tail_ids):
            sims = self.tail @ query
            top = np.argsort(-sims)[:k]
            hits.extend((int(self.tail_ids[i]), float(sims[i])) for i in top)
        hits.sort(key=lambda h: h[1], reverse=True)
        return hits[:k]


def _read_pointer(model: str) -> dict[str, Any] | None:
    try:
        meta = json.loads(_pointer(model).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return meta if isinstance(meta, dict) else None


class _Current:
    """The index on disk that still matches the table, and what it covers."""

    def __init__(self, index: Any, count: int, max_id: int) -> None:
        self.index, self.count, self.max_id = index, count, max_id


def _open(db: sqlite3.Connection, model: str, dims: int) -> _Current | None:
    """The current index, if it is sound and no chunk it holds has been deleted since."""
    from usearch.index import Index

    meta = _read_pointer(model)
    if meta is None:
        return None
    try:
        count, max_id, name = int(meta["count"]), int(meta["max_id"]), str(meta["file"])
        deletions = int(meta["deletions"])
    except (KeyError, TypeError, ValueError):
        return None
    path = vectors_dir() / name
    if "/" in name or "\\" in name or not path.is_file():
        return None
    try:
        index = Index.restore(str(path), view=True, expansion_search=EXPANSION_SEARCH)
    except Exception:  # usearch raises RuntimeError or ValueError on damaged files
        return None
    if index is None or index.ndim != dims or len(index) != count:
        return None
    if vectors.stats(db, model).deletions != deletions:
        return None  # chunks were deleted since (an edited or removed message): stale
    return _Current(index, count, max_id)


def build(db: sqlite3.Connection, model: str, dims: int) -> int:
    """Bring `model`'s index up to date under the lock; returns the chunks it holds."""
    folder = vectors_dir()
    folder.mkdir(parents=True, exist_ok=True)
    with write_lock(folder / "index.lock"):
        current = _open(db, model, dims)
        now = vectors.stats(db, model)
        if current is not None and current.max_id == now.max_id:
            return current.count
        index, after, count = _new_index(dims), 0, 0
        if current is not None:  # only additions since: extend a copy of the current index
            from usearch.index import Index

            old = Index.restore(str(folder / str(_read_pointer(model)["file"])))  # type: ignore[index]
            if old is not None:
                index, after, count = old, current.max_id, current.count
        for ids, mat in vectors.iter_vectors(db, model, after=after, upto=now.max_id):
            index.add(ids, mat)
            count += len(ids)
        name = f"{_safe(model)}.{count}.{now.max_id}.usearch"
        tmp = folder / f".{name}.{os.getpid()}.tmp"
        index.save(str(tmp))
        os.replace(tmp, folder / name)
        meta = {
            "file": name,
            "count": count,
            "max_id": now.max_id,
            "deletions": now.deletions,
            "dims": dims,
        }
        pointer_tmp = folder / f".{_safe(model)}.json.{os.getpid()}.tmp"
        pointer_tmp.write_text(json.dumps(meta), encoding="utf-8")
        os.replace(pointer_tmp, _pointer(model))
        _remove_old(folder, model, keep=name)
        return count


def _remove_old(folder: Path, model: str, keep: str) -> None:
    for old in folder.glob(f"{_safe(model)}.*.usearch"):
        if old.name != keep:
            # a reader on Windows may still have it open; the next build removes it
            with contextlib.suppress(OSError):
                old.unlink()


_OPENED: dict[tuple[str, str], tuple[str, int, _Current]] = {}
"""The index this process last opened, per (database, model): mapping a 100k-chunk file
costs ~13 ms, so a warm process (the daemon, the evaluation) reuses it while the
pointer still names the same file and no chunk has been deleted."""


def _open_cached(db: sqlite3.Connection, model: str, dims: int) -> _Current | None:
    row = db.execute("PRAGMA database_list").fetchone()
    key = (str(row[2]) if row else "", f"{model}@{vectors_dir()}")
    meta = _read_pointer(model) or {}
    deletions = vectors.stats(db, model).deletions
    cached = _OPENED.get(key)
    if cached and cached[0] == meta.get("file") and cached[1] == deletions:
        return cached[2]
    current = _open(db, model, dims)
    if current is not None and key[0]:
        _OPENED[key] = (str(meta.get("file")), deletions, current)
    return current


def open_searcher(db: sqlite3.Connection, model: str, dims: int) -> Searcher:
    """A searcher over every chunk of `model`; rebuilds a missing, damaged or stale index."""
    import numpy as np

    current = _open_cached(db, model, dims)
    total = vectors.stats(db, model).chunks
    covered = current.count if current is not None else 0
    if total - covered > (0 if current is None else EXACT_TAIL_MAX):
        try:
            build(db, model, dims)
        except OSError as exc:  # a read-only data directory: search everything exactly
            from recall.log import log

            log(f"cannot write the vector index: {exc}")
        current = _open_cached(db, model, dims)
    index = current.index if current is not None else None
    ids_parts, mats = [], []
    if current is None or total > current.count:
        after = current.max_id if current is not None else 0
        for ids, mat in vectors.iter_vectors(db, model, after=after):
            ids_parts.append(ids)
            mats.append(mat)
    tail_ids = np.concatenate(ids_parts) if ids_parts else np.zeros(0, dtype=np.int64)
    tail = np.concatenate(mats) if mats else np.zeros((0, dims), dtype=np.float32)
    return Searcher(index, tail_ids, tail)
