"""Semantic search: the local embedding model, which texts get vectors, the vectors, the
HNSW index and the nearest-chunk leg.

Nothing here is imported by the hook or by a keyword-only search: numpy,
onnxruntime, tokenizers and usearch load only when vectors are made or read.

Importing this package asks OpenBLAS (numpy's) for one thread unless the user
chose otherwise: recall's numpy work is element-wise or one query against a
matrix, and OpenBLAS starting a thread per core at import cost a cold search
~20-30 ms of CPU (onnxruntime has its own thread pool, which this leaves alone).
"""

import os

from recall.errors import RecallError

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")


class ModelError(RecallError):
    """The embedding model is missing, damaged or cannot run; search falls back to keywords."""

    exit_code = 1
