"""Semantic search: the local embedding model, which texts get vectors, the vectors, the
HNSW index and the nearest-chunk leg.

Nothing here is imported by the hook or by a keyword-only search: numpy,
onnxruntime, tokenizers and usearch load only when vectors are made or read.
"""

from recall.errors import RecallError


class ModelError(RecallError):
    """The embedding model is missing, damaged or cannot run; search falls back to keywords."""

    exit_code = 1
