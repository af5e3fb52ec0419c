"""A vector cache keyed by (model, text), so re-embedding the same text is free.

Used by the evaluation, which ingests each question into a throwaway index:
the same haystack text then costs one embedding across every run.
"""

from __future__ import annotations

import hashlib
import sqlite3
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt


class VectorCache:
    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.db = sqlite3.connect(str(path), isolation_level=None)
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute(
            "CREATE TABLE IF NOT EXISTS v (key TEXT PRIMARY KEY, vec BLOB) WITHOUT ROWID"
        )

    @staticmethod
    def key(model: str, text: str) -> str:
        return hashlib.sha256(f"{model}\0{text}".encode("utf-8", "surrogatepass")).hexdigest()

    def get(self, keys: list[str]) -> dict[str, npt.NDArray[np.float32]]:
        import numpy as np

        out: dict[str, npt.NDArray[np.float32]] = {}
        for i in range(0, len(keys), 500):
            part = keys[i : i + 500]
            marks = ",".join("?" * len(part))
            for key, blob in self.db.execute(
                f"SELECT key, vec FROM v WHERE key IN ({marks})", part
            ):
                out[key] = np.frombuffer(blob, dtype="<f4").astype(np.float32)
        return out

    def put(self, items: dict[str, npt.NDArray[np.float32]]) -> None:
        self.db.execute("BEGIN")
        self.db.executemany(
            "INSERT OR REPLACE INTO v(key, vec) VALUES (?, ?)",
            ((k, v.astype("<f4").tobytes()) for k, v in items.items()),
        )
        self.db.execute("COMMIT")

    def close(self) -> None:
        self.db.close()
