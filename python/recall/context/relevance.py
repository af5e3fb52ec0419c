"""Whether a prompt has anything to look up, and whether a past excerpt answers it.

A prompt hook runs on every turn, and an excerpt that does not help is worse
than none: it costs the agent's attention and can mislead it. So context stays
silent unless the history plainly holds what the prompt is about:

- **Nothing to look up.** A prompt's words, less stop words and the words of
  talking to an agent ("ok", "continue", "run the tests", "what did we decide
  about"), are what it is about. "ok run the tests", "yes", "thanks" have none.
- **An excerpt must cover the prompt.** Each of those words weighs its rarity
  in the history (inverse document frequency over every index); a word the
  history never holds weighs as much as the rarest word it does hold, since no
  excerpt can answer it (but an incidental word must not silence every answer). An
  excerpt is relevant when the words it holds (stem to stem, as the index
  compares them) carry at least `COVERAGE` of the prompt's weight, and at
  least `RELATIVE` of what the best excerpt covers (`Bar.clears`). A match on
  "decide" alone, or on one common word of a question about something the
  history never mentions, is not; nor is a lesser topic beside the answer.

When search marks its own weak results (issue 22's relevance bar), `gather`
drops those first; this check stays as the prompt-side half.
"""

from __future__ import annotations

import math
import re
import sqlite3

_CHATTER = """
    ok okay yes yeah yep yup no nope sure thanks thank thx ty please pls great good nice
    cool fine perfect awesome lgtm continue go ahead proceed next again now then also just
    done do did does doing run rerun running ran test tests testing fix fixed try it
    that this those these thing things stuff something anything everything lets let
    start stop keep same way wait hmm hi hello hey bye right wrong looks look see show
    tell say said remind remember recall decide decided decision decisions discuss
    discussed talked talk agreed agree chose choose chosen pick picked use used using why
    how what when where which who whom whose earlier before last previous previously ago
    time times we us our you your me my i can could would should will shall might must
    make made need needs want wanted think know help work works working please change
    changes update updated code file files commit push merge write add added remove
"""
CHATTER = frozenset(_CHATTER.split())
"""Words of talking to an agent, about nothing in particular (beside the stop words)."""

COVERAGE = 0.5
"""The share of a prompt's weight an excerpt must hold (bench/context_eval.py)."""


RELATIVE = 0.8
"""An excerpt must cover at least this share of what the best excerpt covers."""


def lookup_words(prompt: str) -> list[str]:
    """The words of `prompt` worth looking up, lowercased, in order, each once: not stop
    words, not chatter, not bare numbers, at least 3 characters (or any CJK run)."""
    from recall.search.query import STOPWORDS

    seen: dict[str, None] = {}
    for word in re.findall(r"\w[\w.]*\w|\w", prompt):
        key = word.casefold().strip(".")
        if key in STOPWORDS or key in CHATTER or key.isdigit():
            continue
        if len(key) < 3 and key.isascii():
            continue
        seen.setdefault(key, None)
    return list(seen)


class Bar:
    """The relevance check for one prompt's excerpts (see the module)."""

    def __init__(self, db: sqlite3.Connection, words: list[str]) -> None:
        from recall.search.typo import INDEXES, documents, stem

        self.db = db
        total = db.execute("SELECT max(id) FROM messages").fetchone()[0] or 0
        self.weights: dict[str, float] = {}
        self.known: set[str] = set()
        unseen: list[str] = []
        for word in words:
            key = stem(db, word)
            if key in self.weights or key in unseen:
                continue
            docs = sum(documents(db, key, table) for table in INDEXES)
            if docs:
                self.known.add(key)
                self.weights[key] = max(0.05, math.log((total + 1) / (docs + 0.5)))
            else:
                unseen.append(key)
        # a word the history never holds weighs as much as its rarest word that it does
        rarest = max(self.weights.values(), default=1.0)
        self.weights.update((key, rarest) for key in unseen)

    def holds(self, word: str) -> bool:
        """Whether the history holds `word` (stem to stem)."""
        from recall.search.typo import stem

        return stem(self.db, word) in self.known

    def coverage(self, text: str) -> float:
        """The share of the prompt's weight that `text` holds: a word this history never
        holds counts too when `text` holds it, as an excerpt from the team's index can."""
        whole = sum(self.weights.values())
        if not whole:
            return 0.0
        from recall.search.typo import stems

        held = stems(self.db, text) & self.weights.keys()  # a team excerpt's too (gather)
        return sum(self.weights[k] for k in held) / whole

    def clears(self, coverage: float, best: float) -> bool:
        """Whether an excerpt covering `coverage` is injected, when the best covers `best`:
        it clears the bar and stands near the best (a lesser match beside the answer is
        another topic sharing a word or two)."""
        return coverage >= COVERAGE and coverage >= RELATIVE * best
