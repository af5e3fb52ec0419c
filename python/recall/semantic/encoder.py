"""The local embedding model: tokenizers + onnxruntime, mean pooling, L2 normalisation.

Texts are batched by tokens, not by count: memory and time grow with
batch × longest text, and a batch of 32 window-long texts took 1.5 GB with
the int8 file (MODELS.md). Sorting by length keeps padding small.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from recall.semantic import ModelError
from recall.semantic.manifest import ModelFiles

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

BATCH_TOKENS = 512
"""Padded tokens per onnxruntime call (rows × longest row). onnxruntime's memory arena
keeps the largest batch's activations for the process's life, so this bounds peak
memory: embedding the newest 1,000 messages of a 300-session corpus peaked at 380 MB
with 2048, 276 MB with 1024 and 226 MB with 512 (`bench/embed_bench.py`), and 300
agent-session texts cost 7.85, 6.8 and 6.65 s of CPU (two rounds, alternating): on two
cores small batches stay in cache. Vectors are the same to 1e-6 (cosine ≥ 0.9999997)."""
MAX_BATCH = 64


class OnnxEncoder:
    """all-MiniLM-L6-v2 (or any BERT-style ONNX export) run in-process."""

    def __init__(self, files: ModelFiles, threads: int = 0, query: bool = False) -> None:
        """`query`: an encoder for search queries, which tokenizes ASCII text itself
        (`wordpiece.py`) and loads `tokenizers` only if a query needs it."""
        from recall.semantic.optimized import open_session

        self.files = files
        self.model_id = files.model_id
        self.dims = files.manifest.dims
        self.window = files.manifest.window
        self._tokenizer: Any = None
        self._fast = _wordpiece(files) if query else None
        try:
            self.session = open_session(files, threads)
        except Exception as exc:  # onnxruntime raises its own kinds
            raise ModelError(f"cannot load the embedding model ({files.origin}): {exc}") from exc
        self._inputs = {i.name for i in self.session.get_inputs()}
        if self._fast is not None:
            cls, sep = self._fast.vocab.get("[CLS]"), self._fast.vocab.get("[SEP]")
        else:
            cls, sep = self.tokenizer.token_to_id("[CLS]"), self.tokenizer.token_to_id("[SEP]")
        if cls is None or sep is None:
            raise ModelError(f"the tokenizer ({files.origin}) has no [CLS]/[SEP] tokens")
        self._cls: int = cls
        self._sep: int = sep

    @property
    def tokenizer(self) -> Any:
        """The `tokenizers` tokenizer, loaded on first use."""
        if self._tokenizer is None:
            from tokenizers import Tokenizer

            try:
                tok = Tokenizer.from_file(str(self.files.paths["tokenizer.json"]))
            except Exception as exc:  # tokenizers raises its own kinds
                raise ModelError(
                    f"cannot load the embedding model ({self.files.origin}): {exc}"
                ) from exc
            tok.no_padding()
            tok.no_truncation()
            self._tokenizer = tok
        return self._tokenizer

    def knows(self, word: str) -> bool:
        """Whether the vocabulary holds `word` whole (the query encoder answers from its
        own vocabulary, without loading `tokenizers`)."""
        if self._fast is not None:
            return word in self._fast.vocab
        return self.tokenizer.token_to_id(word) is not None

    def split(self, text: str) -> list[tuple[int, int]]:
        """Character spans of `text`, each at most the window in tokens (specials included)."""
        enc = self.tokenizer.encode(text, add_special_tokens=False)
        offsets = enc.offsets
        if not offsets:
            return []
        room = self.window - 2
        spans = []
        for start in range(0, len(offsets), room):
            piece = offsets[start : start + room]
            spans.append((piece[0][0], piece[-1][1]))
        return spans

    def _ids(self, texts: list[str]) -> list[list[int]]:
        room = self.window - 2
        mine = [self._fast.encode(t) for t in texts] if self._fast is not None else [None]
        rows = [ids for ids in mine if ids is not None]
        if len(rows) != len(texts):  # no WordPiece of ours, or a text beyond ASCII
            rows = [e.ids for e in self.tokenizer.encode_batch(texts, add_special_tokens=False)]
        return [[self._cls, *ids[:room], self._sep] for ids in rows]

    def embed(self, texts: list[str]) -> npt.NDArray[np.float32]:
        """Unit vectors for `texts` (each cut to the window), in the order given."""
        import numpy as np

        out = np.zeros((len(texts), self.dims), dtype=np.float32)
        if not texts:
            return out
        ids = self._ids(texts)
        order = sorted(range(len(ids)), key=lambda i: len(ids[i]))
        batch: list[int] = []
        for i in order:
            width = len(ids[i])  # ascending, so the newest row is the longest
            if batch and ((len(batch) + 1) * width > BATCH_TOKENS or len(batch) >= MAX_BATCH):
                out[batch] = self._run([ids[j] for j in batch])
                batch = []
            batch.append(i)
        if batch:
            out[batch] = self._run([ids[j] for j in batch])
        return out

    def _run(self, rows: list[list[int]]) -> npt.NDArray[np.float32]:
        import numpy as np

        width = max(len(r) for r in rows)
        input_ids = np.zeros((len(rows), width), dtype=np.int64)
        mask = np.zeros((len(rows), width), dtype=np.int64)
        for n, row in enumerate(rows):
            input_ids[n, : len(row)] = row
            mask[n, : len(row)] = 1
        feed: dict[str, Any] = {"input_ids": input_ids, "attention_mask": mask}
        if "token_type_ids" in self._inputs:
            feed["token_type_ids"] = np.zeros_like(input_ids)
        try:
            hidden = self.session.run(None, feed)[0]
        except Exception as exc:
            raise ModelError(f"the embedding model failed: {exc}") from exc
        return pool(hidden, mask)


def pool(hidden: Any, mask: Any) -> npt.NDArray[np.float32]:
    """Mean over the attention mask, then L2 normalisation (sentence-transformers' recipe)."""
    import numpy as np

    weights = mask[:, :, None].astype(np.float32)
    summed = (hidden * weights).sum(axis=1)
    counts = np.clip(weights.sum(axis=1), 1e-9, None)
    mean = summed / counts
    norms = np.clip(np.linalg.norm(mean, axis=1, keepdims=True), 1e-12, None)
    result: npt.NDArray[np.float32] = (mean / norms).astype(np.float32)
    return result


def _wordpiece(files: ModelFiles) -> Any:
    from recall.semantic import wordpiece
    from recall.semantic.manifest import cache_dir

    return wordpiece.load(
        files.paths["tokenizer.json"], cache_dir(files.manifest) / "wordpiece.txt"
    )
