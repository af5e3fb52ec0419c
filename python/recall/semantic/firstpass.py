"""A first pass over the newest month, when reading it whole would keep the user waiting.

Embedding runs newest sessions first, but on a CPU without 8-bit dot products
the month of a heavy user (10,242 chunks, ~655,000 tokens) takes two minutes
to embed whole on two cores, twice what a user who just installed recall
should wait before searching it by meaning. The cost is the tokens read. So
when the run's first batch shows that the month's text would not be embedded
within `SECONDS`, every message of the month is first embedded from its
opening, as many characters as fit that time (`cut`), and is searchable by
meaning at once. Then the run reads every message whole, newest first as
always; search leaves a message's opening out once the message is embedded
whole, and the run that finds nothing left deletes the openings
(docs/semantic.md, "A first pass over the month").

A message whose text fits the cut is embedded whole here and never read
again. Where the month fits the time whole (a faster CPU, a small month, a
daemon catching up on a day), there is no first pass.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, NamedTuple

from recall.semantic import vectors
from recall.semantic.meaning import worth_embedding

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    from recall.semantic.provider import Encoder
    from recall.store.db import Store

DAYS = 30
"""The month: sessions active in the history's newest 30 days."""
SECONDS = 45.0
"""Time from the start of the run by which the month should be searchable by meaning.
A year's import takes 12-20 s before it (docs/benchmarks.md), so the month is ready
within about a minute of starting a first sync."""
MIN_CUT = 120
"""Characters read at least from each message's opening (~30 tokens): shorter openings
lose too much of what a message is about to rank it."""
MAX_CUT = 1_000
"""A cut past this reads about a window of English prose (256 tokens, ~1,100 characters):
the month might as well be read whole. (A window of CJK text is ~250 characters, so an
opening there may be its whole first piece: read twice, as any opening is.)"""
MAX_PIECES = 16
"""Window-sized pieces embedded per message (~4,000 tokens, ~16 kB of prose); the rest
of a longer message (a pasted log, a dump) stays keyword-searchable only."""

Rows = list[tuple[int, int, int, int]]
"""Chunks to store: (message, piece, start, end)."""


class Plan(NamedTuple):
    cut: int
    """Characters read from each message's opening."""
    messages: list[int]
    """The month's messages to read, newest sessions first."""
    chars: int
    """Characters the pass will embed (its measure of work, for an ETA)."""


def pieces(encoder: Encoder, msg: int, text: str) -> Rows:
    """The chunks a message is embedded as when read whole: window-sized pieces with
    words in them, at most MAX_PIECES."""
    if not worth_embedding(text):  # "ok", "." (meaning.py): done, no vector
        return []
    return [
        (msg, piece, start, end)
        for piece, (start, end) in enumerate(encoder.split(text)[:MAX_PIECES])
        if worth_embedding(text[start:end])  # a last piece may be only "``"
    ]


def plan(
    store: Store, model: str, roles: Sequence[str], rate: float, seconds_left: float
) -> Plan | None:
    """What the first pass reads, given the characters a second the run embeds
    (`rate`): None when the month's unread messages fit the time whole."""
    found = vectors.month_unread(store.conn, model, roles, DAYS)
    if not found or rate <= 0:
        return None
    budget = rate * max(0.0, seconds_left)
    lengths = [length for _, length in found]
    if sum(lengths) <= budget:
        return None
    cut = fitting_cut(lengths, budget)
    if cut >= MAX_CUT:
        return None
    return Plan(cut, [msg for msg, _ in found], sum(min(n, cut) for n in lengths))


def fitting_cut(lengths: Sequence[int], budget: float) -> int:
    """The longest opening (in characters, at least MIN_CUT) such that reading
    min(length, cut) of every message costs at most `budget` characters."""
    lo, hi = MIN_CUT, max(MIN_CUT, max(lengths, default=0))
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if sum(min(n, mid) for n in lengths) <= budget:
            lo = mid
        else:
            hi = mid - 1
    return lo


def opening(text: str, start: int, end: int, cut: int) -> int:
    """Where the opening of the piece text[start:end] ends: `cut` characters on,
    moved back to the word break before it when there is one in its second half."""
    stop = start + cut
    if stop >= end:
        return end
    space = max(text.rfind(c, start + cut // 2, stop) for c in " \n\t")
    return space if space > start else stop


def read(
    encoder: Encoder, batch: list[tuple[int, str]], cut: int
) -> tuple[list[int], Rows, list[str]]:
    """The chunks of a batch's first pass: (messages done for good, rows, their texts).

    A message whose text fits `cut` is read whole and done; any other is read from
    the opening of its first piece and stays pending for the whole pass. A text longer
    than `cut` is not tokenized (a token is at least a character, so its opening lies
    within its first piece): that was two thirds of the pass's own time over a month."""
    done: list[int] = []
    rows: Rows = []
    texts: list[str] = []
    for msg, text in batch:
        start, end = len(text) - len(text.lstrip()), len(text.rstrip())
        if end - start <= cut or not worth_embedding(text):
            whole = pieces(encoder, msg, text)
            if not whole or (len(whole) == 1 and whole[0][3] - whole[0][2] <= cut):
                done.append(msg)
                rows += whole
                texts += [text[s:e] for _, _, s, e in whole]
                continue
            start, end = whole[0][2], whole[0][3]  # short, but more tokens than a window
        stop = opening(text, start, end, cut)
        if worth_embedding(text[start:stop]):
            rows.append((msg, vectors.OPENING, start, stop))
            texts.append(text[start:stop])
        # else an opening without words says nothing: it waits for the whole read
    return done, rows, texts


def run(
    store: Store,
    encoder: Encoder,
    the_plan: Plan,
    embed: Callable[[list[str]], tuple[npt.NDArray[np.float32], int]],
    batch_size: int,
    committed: Callable[[int, int, int], None],
) -> None:
    """Embed the month's openings in batches of `batch_size` messages, each committed
    on its own (an interrupted pass keeps what it finished). `embed` returns vectors
    for texts (and reports their progress); `committed(messages, of them read whole,
    their chunks)` follows each batch's commit."""
    model = encoder.model_id
    ids = the_plan.messages
    for i in range(0, len(ids), batch_size):
        batch = vectors.texts(store.conn, ids[i : i + batch_size])
        done, rows, texts = read(encoder, batch, the_plan.cut)
        vecs, _hits = embed(texts)
        with store.transaction() as db:
            vectors.store(db, model, dict(batch), done, rows, vecs)
        committed(len(batch), len(done), sum(1 for r in rows if r[1] != vectors.OPENING))
