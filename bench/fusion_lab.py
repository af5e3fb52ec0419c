"""Hybrid `--messages` fusion, replayed offline: capture each question's two legs once
through the user's entry, then score ways of fusing them in seconds.

    python bench/fusion_lab.py capture lme /tmp/lme.pkl --modes keyword,hybrid
    python bench/fusion_lab.py capture locomo /tmp/locomo.pkl --modes keyword,hybrid
    python bench/fusion_lab.py capture decisions /tmp/dec.pkl --modes keyword,hybrid
    python bench/fusion_lab.py replay /tmp/lme.pkl /tmp/locomo.pkl /tmp/dec.pkl

`capture` runs an evaluation script as it is (`eval_longmemeval`, `eval_locomo`,
`eval_decisions`; the arguments after the file are its own) and keeps, for every
hybrid `--messages` search, the keyword and semantic lists `search.modes` handed to
`fusion.fuse`, with the question's evidence messages. `replay` fuses them again under
each variant below and prints message recall@1/5/10; its `base` row must reproduce what
the entry returned (it says how many questions it did), or the capture is stale.
docs/search-quality.md, "Message recall: keyword's order against the fusion's", has
what it measured.
"""

from __future__ import annotations

import contextlib
import pickle
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import eval_common as ec

Message = tuple[str, int]
Capture = dict[str, Any]
SCRIPTS = {"lme": "eval_longmemeval", "locomo": "eval_locomo", "decisions": "eval_decisions"}


def capture(which: str, out: Path, argv: list[str]) -> int:
    import recall.search.modes as modes

    records: list[dict[str, Any]] = []
    calls: list[Capture] = []
    fuse, search_as_user = modes.fuse, ec.search_as_user

    def fuse_seen(
        lists: Any,
        fusion: str,
        limit: int,
        decay: float = 0.0,
        by_message: bool = False,
        exact: int = 0,
        unseen: Any = None,
        about: Any = None,
    ) -> Any:
        if by_message and len(lists) == 2:
            calls.append(
                {
                    "lists": lists,
                    "fusion": fusion,
                    "limit": limit,
                    "decay": decay,
                    "exact": exact,
                    "unseen": unseen,
                    "about": about,
                }
            )
        return fuse(lists, fusion, limit, decay, by_message, exact, unseen, about)

    def searched(question: str, *flags: str) -> list[dict[str, Any]]:
        calls.clear()
        found = search_as_user(question, *flags)
        if "--messages" in flags and "hybrid" in flags and calls:
            got = [ec.message_id(r) for r in found]
            records.append({"question": question, "call": calls[-1], "got": got, "gold": None})
        return found

    modes.fuse, ec.search_as_user = fuse_seen, searched  # type: ignore[assignment]
    module = __import__(SCRIPTS[which])
    with _gold_kept(which, module, records):
        code = int(module.main(argv))
    with out.open("wb") as fh:
        pickle.dump(records, fh)
    print(f"captured {len(records)} searches in {out}", file=sys.stderr)
    return code


@contextlib.contextmanager
def _gold_kept(which: str, module: Any, records: list[dict[str, Any]]) -> Iterator[None]:
    """Each capture's evidence messages, taken where the script scores them."""
    if which != "locomo":
        search_all = ec.search_all

        def scored(question: str, gold: Any, corpus: Any, messages: Any, *a: Any, **kw: Any) -> Any:
            n = len(records)
            scores = search_all(question, gold, corpus, messages, *a, **kw)
            for rec in records[n:]:
                rec["gold"] = set(messages)
            return scores

        ec.search_all = scored  # type: ignore[assignment]
        yield
        return
    turn_map, scores = module.turn_map, module.scores
    turns: dict[Message, Any] = {}

    def mapped(conv: Any) -> Any:
        turns.clear()
        turns.update(turn_map(conv))
        return turns

    def scored_turns(sessions: Any, ranked: Any, gold: Any) -> Any:
        if records and records[-1]["gold"] is None:
            records[-1]["gold"] = {m for m, t in turns.items() if t in gold}
        return scores(sessions, ranked, gold)

    module.turn_map, module.scores = mapped, scored_turns
    yield


def _ids(results: list[Any]) -> list[Message]:
    return [(str(r.session_id), int(r.message_index or 0)) for r in results]


def fused(c: Capture, limit: int | None = None) -> list[Message]:
    from recall.search.fusion import fuse

    lists = c["lists"]
    return _ids(
        fuse(
            lists,
            c["fusion"],
            limit or c["limit"],
            c["decay"],
            True,
            c["exact"],
            c["unseen"],
            c.get("about"),
        )
    )


@contextlib.contextmanager
def _setting(name: str, value: Any) -> Iterator[None]:
    from recall.search import fusion

    saved = getattr(fusion, name)
    setattr(fusion, name, value)
    try:
        yield
    finally:
        setattr(fusion, name, saved)


def _weight(w: float) -> Callable[[Capture], list[Message]]:
    def run(c: Capture) -> list[Message]:
        with _setting("MEANING_WEIGHT", w):
            return fused(c)

    return run


def _keyword_order(scope: Callable[[Message], object]) -> Callable[[Capture], list[Message]]:
    """The fused order, but the keyword-held messages of one `scope` (a session, or all)
    take the places the fusion gave them in the keyword list's own order."""

    def run(c: Capture) -> list[Message]:
        ids = fused(c, 30)
        rank = {m: i for i, m in enumerate(_ids(c["lists"][0]))}
        places: dict[object, list[int]] = {}
        for pos, m in enumerate(ids):
            if m in rank:
                places.setdefault(scope(m), []).append(pos)
        out = list(ids)
        for pos_list in places.values():
            for pos, m in zip(
                pos_list, sorted((ids[p] for p in pos_list), key=rank.get), strict=True
            ):
                out[pos] = m
        return out[: c["limit"]]

    return run


def _flat_keyword(c: Capture) -> list[Message]:
    """Keyword hits not scaled by their strength (the meaning leg's still are)."""
    from recall.search import fusion

    strength = fusion.hit_strength
    with _setting("hit_strength", lambda r: strength(r) if r.matched == "meaning" else 1.0):
        return fused(c)


VARIANTS: dict[str, Callable[[Capture], list[Message]]] = {
    "keyword leg alone": lambda c: _ids(c["lists"][0])[:10],
    "semantic leg alone": lambda c: _ids(c["lists"][1])[:10],
    "base (recall's fusion)": fused,
    "meaning weight 0.5": _weight(0.5),
    "meaning weight 0.3": _weight(0.3),
    "meaning weight ~0": _weight(1e-4),
    "keyword hits unscaled": _flat_keyword,
    "keyword order in a session": _keyword_order(lambda m: m[0]),
    "keyword order overall": _keyword_order(lambda m: 0),
}


def replay(paths: list[Path]) -> int:
    for path in paths:
        with path.open("rb") as fh:
            records = [r for r in pickle.load(fh) if r["gold"]]
        same = sum(fused(r["call"]) == r["got"] for r in records)
        print(f"{path}: {len(records)} questions, base reproduces the entry for {same}")
        for name, run in VARIANTS.items():
            at = {1: 0.0, 5: 0.0, 10: 0.0}
            for r in records:
                got, gold = run(r["call"]), r["gold"]
                for k in at:
                    at[k] += len(gold & set(got[:k])) / len(gold)
            row = "  ".join(f"R@{k} {v / len(records):.3f}" for k, v in at.items())
            print(f"  {name:28s} {row}")
    return 0


def main(argv: list[str]) -> int:
    if len(argv) >= 3 and argv[0] == "capture" and argv[1] in SCRIPTS:
        return capture(argv[1], Path(argv[2]), argv[3:])
    if len(argv) >= 2 and argv[0] == "replay":
        return replay([Path(p) for p in argv[1:]])
    print(__doc__.split("\n\n")[1], file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
