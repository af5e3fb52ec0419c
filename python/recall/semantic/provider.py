"""Choosing the embedder: the local model, an OpenAI-compatible endpoint, or none.

`get_encoder()` is cached per process, so the daemon and the evaluation load
the model once; `unavailable()` says, in one line, why semantic search is off.
"""

from __future__ import annotations

from functools import cache
from typing import TYPE_CHECKING, Any, Protocol

from recall import config
from recall.record import asdict
from recall.semantic import ModelError

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt


class Encoder(Protocol):
    model_id: str
    dims: int
    window: int

    def split(self, text: str) -> list[tuple[int, int]]:
        """Character spans of `text` that each fit the model's window."""
        ...

    def embed(self, texts: list[str]) -> npt.NDArray[np.float32]:
        """One unit vector per text."""
        ...


class EmbeddingOff(ModelError):
    """The user turned embedding off (`embedding = "none"`)."""


@cache
def _encoder(
    provider: str, model: str, model_dir: str | None, endpoint: tuple[Any, ...], query: bool
) -> Encoder:
    if provider == "none":
        raise EmbeddingOff('embedding = "none" in config: keyword search only')
    if provider == "openai":
        from recall.semantic.endpoint import EndpointEncoder

        return EndpointEncoder(config.EndpointConfig(*endpoint))
    from recall.semantic.encoder import OnnxEncoder
    from recall.semantic.manifest import load_manifest, locate

    files = locate(load_manifest(model), model_dir)
    return OnnxEncoder(files, threads=1 if query else 0, query=query)


def get_encoder(query: bool = False) -> Encoder:
    """The configured encoder, loaded once per process; ModelError says why not.

    `query`: for embedding a search's query: ASCII text is tokenized without
    loading `tokenizers` (`wordpiece.py`), and the model runs on one thread. A one-row run gains
    nothing from a second thread, and onnxruntime's pool spin-waits between
    runs: with it a cold search used 2-4x the CPU time (~20 ms against 40-80 ms
    for loading and one query), which a busy machine turns into wall time.
    """
    global query_loaded
    cfg = config.load_config()
    endpoint = tuple(asdict(cfg.endpoint).values())  # hashable: the cache's key
    encoder = _encoder(config.embedding_provider(), cfg.model, config.model_dir(), endpoint, query)
    query_loaded = query_loaded or query
    return encoder


query_loaded = False
"""Whether this process has loaded the encoder a search's query needs: a daemon's health
says so, and `recall status` reports the daemon warm."""


def warm_up() -> str | None:
    """Load the query encoder and run it once, when there are vectors for it to search:
    a daemon does this as it starts, so its first hybrid search does not pay the load.
    None when warm (or nothing to warm), else why not, in one line."""
    from recall.semantic import vectors as vec
    from recall.store import open_reader

    if config.embedding_provider() != "local":
        return None
    try:
        model = current_model_id()
        with open_reader() as store:
            if not dict(vec.models(store.conn)).get(model):
                return None
        get_encoder(query=True).embed(["warm"])
    except ModelError as exc:
        return str(exc)
    return None


def current_model_id() -> str:
    """The model id vectors carry, without loading the model; ModelError says why not."""
    provider = config.embedding_provider()
    if provider == "none":
        raise EmbeddingOff('embedding = "none" in config: keyword search only')
    if provider == "openai":
        return f"openai:{config.load_config().endpoint.model}"
    from recall.semantic.manifest import load_manifest, locate

    return locate(load_manifest(config.load_config().model), config.model_dir()).model_id
