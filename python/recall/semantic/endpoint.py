"""An OpenAI-compatible embeddings endpoint (`POST {url}/embeddings`), for users who run one.

Ollama, llama.cpp's server, vLLM, LM Studio and OpenAI itself answer this
shape. Text is sent there, so it is never the default: the user opts in with
`embedding = "openai"` and names the server in `[endpoint]`.
"""

from __future__ import annotations

import json
import os
import urllib.request
from typing import TYPE_CHECKING

from recall.config import EndpointConfig
from recall.semantic import ModelError

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

MAX_CHARS = 2000
"""Without the server's tokenizer, chunks are cut by characters (~500 tokens of prose)."""
BATCH = 64


class EndpointEncoder:
    def __init__(self, cfg: EndpointConfig) -> None:
        self.cfg = cfg
        self.url = cfg.url.rstrip("/") + "/embeddings"
        self.model_id = f"openai:{cfg.model}"
        self.window = MAX_CHARS
        self.dims = 0  # learnt from the first answer
        self._key = os.environ.get(cfg.api_key_env, "") if cfg.api_key_env else ""

    def split(self, text: str) -> list[tuple[int, int]]:
        spans = []
        start = 0
        while start < len(text):
            end = min(len(text), start + MAX_CHARS)
            if end < len(text):
                cut = text.rfind(" ", start + MAX_CHARS // 2, end)
                end = cut if cut > start else end
            if text[start:end].strip():
                spans.append((start, end))
            start = end
        return spans

    def embed(self, texts: list[str]) -> npt.NDArray[np.float32]:
        import numpy as np

        rows: list[list[float]] = []
        for i in range(0, len(texts), BATCH):
            rows.extend(self._post([t[:MAX_CHARS] for t in texts[i : i + BATCH]]))
        out = np.asarray(rows, dtype=np.float32).reshape(len(texts), -1)
        if out.shape[0]:
            self.dims = int(out.shape[1])
        norms = np.clip(np.linalg.norm(out, axis=1, keepdims=True), 1e-12, None)
        result: npt.NDArray[np.float32] = (out / norms).astype(np.float32)
        return result

    def _post(self, texts: list[str]) -> list[list[float]]:
        body = json.dumps({"model": self.cfg.model, "input": texts}).encode("utf-8")
        headers = {"Content-Type": "application/json"}
        if self._key:
            headers["Authorization"] = f"Bearer {self._key}"
        request = urllib.request.Request(self.url, data=body, headers=headers, method="POST")
        try:
            with urllib.request.urlopen(request, timeout=self.cfg.timeout) as resp:
                answer = json.loads(resp.read(64 << 20))
        except (OSError, ValueError) as exc:
            raise ModelError(f"the embedding endpoint {self.url} failed: {exc}") from exc
        try:
            data = sorted(answer["data"], key=lambda d: d["index"])
            vectors = [[float(x) for x in d["embedding"]] for d in data]
        except (KeyError, TypeError, ValueError) as exc:
            raise ModelError(f"the embedding endpoint {self.url} answered {exc!r}") from exc
        if len(vectors) != len(texts):
            raise ModelError(f"the embedding endpoint {self.url} returned {len(vectors)} vectors")
        return vectors
