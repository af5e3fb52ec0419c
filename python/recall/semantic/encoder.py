"""The local embedding model: tokenizers + onnxruntime, mean pooling, L2 normalisation.

Texts are batched by tokens, not by count: memory and time grow with
batch × longest text, and a batch of 32 window-long texts took 1.5 GB with
the int8 file (MODELS.md). Sorting by length keeps padding small.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from recall.semantic import ModelError
from recall.semantic.manifest import ModelFiles

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

BATCH_TOKENS = 256
"""Padded tokens per onnxruntime call (rows × longest row); the runs in flight hold
MAX_WORKERS times this at most. onnxruntime's memory arena keeps the largest activations
for the process's life, so this bounds peak memory: embedding the newest 1,000 messages of
a 300-session corpus on one run at a time peaked at 380 MB with 2048 padded tokens, 276 MB
with 1024 and 226 MB with 512 (`bench/embed_bench.py`), and smaller batches cost no more
CPU (300 texts: 7.85, 6.8 and 6.65 s). With two runs side by side, 256 a run kept the
peak of a 2,000-message `recall embed` at 272-280 MB (one run of 512: 273 MB) and was
the fastest (90-92 chunks/s against 85 with 512 and 82 with 384). The float graph gives
the same vectors to 1e-6 whatever the batch; the int8 graph quantises each call's
activations, so a batch moves a vector within `optimized.MIN_COSINE`."""
MAX_BATCH = 64
MAX_WORKERS = 4
"""Batches run at once by an encoder for bulk embedding, each on one onnxruntime thread.
On two cores, two one-thread runs side by side embedded a month of agent messages at
94-99 chunks/s against 72-81 for one run spread over two threads (whose pool threads
wait for each other at every operator: 40-44 chunks a CPU-second against 48-50).
Each run in flight holds its own activations (a few MB at BATCH_TOKENS), so the count
is capped: on a big machine recall leaves the user most of the cores."""


class OnnxEncoder:
    """all-MiniLM-L6-v2 (or any BERT-style ONNX export) run in-process."""

    def __init__(self, files: ModelFiles, threads: int = 0, query: bool = False) -> None:
        """`query`: an encoder for search queries, which tokenizes ASCII text itself
        (`wordpiece.py`) and loads `tokenizers` only if a query needs it. `threads` 0:
        batches run side by side, one per core up to MAX_WORKERS, each on one thread."""
        from recall.semantic.optimized import open_session

        self.workers = 1 if threads else min(_cores(), MAX_WORKERS)
        self._pool: Any = None
        if self.workers > 1:  # threads start on first use
            from concurrent.futures import ThreadPoolExecutor

            threads = 1
            self._pool = ThreadPoolExecutor(self.workers, thread_name_prefix="recall-embed")
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
        batches: list[list[int]] = []
        batch: list[int] = []
        for i in order:
            width = len(ids[i])  # ascending, so the newest row is the longest
            if batch and ((len(batch) + 1) * width > BATCH_TOKENS or len(batch) >= MAX_BATCH):
                batches.append(batch)
                batch = []
            batch.append(i)
        if batch:
            batches.append(batch)
        rows = ([ids[j] for j in b] for b in batches)
        if self._pool is not None and len(batches) > 1:
            vecs = self._pool.map(self._run, rows)  # onnxruntime lets go of the GIL
        else:
            vecs = map(self._run, rows)
        for b, v in zip(batches, vecs, strict=True):
            out[b] = v
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


def _cores() -> int:
    """CPUs this process may use: the ones it may run on (`taskset`, a cpuset), fewer
    when a cgroup v2 quota allows less (`docker --cpus=1` on a big host)."""
    import math
    import os

    try:
        cores = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # macOS and Windows have no affinity call
        cores = os.cpu_count() or 1
    try:
        quota, period = Path("/sys/fs/cgroup/cpu.max").read_text().split()[:2]
        if quota != "max":
            cores = min(cores, max(1, math.ceil(int(quota) / int(period))))
    except (OSError, ValueError):  # no cgroup v2 here, or a line we cannot read
        pass
    return cores


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
