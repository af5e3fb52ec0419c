"""Whose words a question is about: the user's own, when it speaks of "I" and "my".

"What is my preferred gin-to-vermouth ratio?", "how long have I had my cat?",
"what did I ask about file names?": a question in the first person singular
asks what the user said, and the user said it in their own message. The
assistant's reply that repeats it ("great that you've repainted your bedroom
walls!") holds the same words and is closer in meaning to the question, so
without this hybrid's `--messages` put the echo first (LongMemEval message
recall@1 0.310 against keyword's 0.402; docs/search-quality.md, "Whose words a
question is about"). A question that also speaks to "you" ("can you remind me
what you suggested?") or names the other side ("what did the assistant tell
me?") is about the assistant's words, and "we" is both sides: neither is aimed.
Nor is a question after a solution ("how did I fix the slow endpoint?", "why did
I pick Redis?", "what did I decide about Postgres?"): coding-agent users say "I"
for what the agent did, and the answer is the assistant's reply.
"""

from __future__ import annotations

import re

USER = "user"
"""`Result.role` of a message the user wrote."""
_APOSTROPHES = str.maketrans({"\u2019": "'", "\u02bc": "'", "\u2018": "'"})
_EDGE = r"\w'\-/\\.\[\](){}=<>+*@~#$%:"
"""Characters that make a pronoun part of code, a path or an address when they touch it
("my.cnf", "~/my/path", "me@example.com", "matrix[i]", "i.e.")."""
_FIRST = re.compile(rf"(?<![{_EDGE}])(i|i'm|i've|i'd|i'll|my)(?![{_EDGE}])", re.I)
_OTHER = re.compile(
    rf"(?<![{_EDGE}])(you|you're|you've|you'd|you'll|your|yours|yourself|u|ur|assistant|"
    rf"agent|claude|codex|gemini|copilot|cursor|chatgpt|bot)(?![{_EDGE}])",
    re.I,
)
_SOLUTION = re.compile(
    r"\b(how\s+(did|do|does|can|could|should|would|to|is|are|was|were)|why|"
    r"decide[ds]?|chose|choose|chosen|pick(ed|s)?|fix(ed|es)?|solved?|implement(ed|s)?)\b",
    re.I,
)
"""A question after how something was done, why, or what was decided: the assistant's
words even in the first person (docs/search-quality.md, "Whose words a question is
about")."""
_CODE_I = re.compile(r"\bfor\s+i\b|\bi\s+(in|=|<|>|\+|-)", re.I)
"""A loop variable, not the user: "for i in range", "i = 0", "i < n"."""


def aimed_at(question: str) -> str | None:
    """The role whose messages `question` asks about (`USER`), or None when it names no
    one side: no "I" or "my", "you" or the assistant beside them, or a solution asked for."""
    text = question.translate(_APOSTROPHES)
    if _OTHER.search(text) or _SOLUTION.search(text):
        return None
    for m in _FIRST.finditer(text):
        if m.group(1) == "i" and _CODE_I.search(text):
            continue
        return USER
    return None
