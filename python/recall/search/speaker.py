"""Whose words a question is about: the user's own, when it speaks of "I" and "my".

"What is my preferred gin-to-vermouth ratio?", "how long have I had my cat?",
"what did I ask about file names?": a question in the first person singular
asks what the user said, and the user said it in their own message. The
assistant's reply that repeats it ("great that you've repainted your bedroom
walls!") holds the same words and is closer in meaning to the question, so
without this hybrid's `--messages` put the echo first (LongMemEval message
recall@1 0.310 against keyword's 0.402; docs/search-quality.md, "Whose words a
question is about"). A question that also speaks to "you" ("can you remind me
what you suggested?") is about the assistant's words, and "we" is both sides:
neither is aimed.
"""

from __future__ import annotations

import re

USER = "user"
"""`Result.role` of a message the user wrote."""
_FIRST = re.compile(r"(?<![\w'-])(i|i'm|i've|i'd|i'll|me|my|mine|myself)(?![\w'-])", re.I)
_SECOND = re.compile(
    r"(?<![\w'-])(you|you're|you've|you'd|you'll|your|yours|yourself)(?![\w'-])", re.I
)


def aimed_at(question: str) -> str | None:
    """The role whose messages `question` asks about (`USER`), or None when it names no
    one side: no "I" or "my", or a "you" beside them."""
    text = question.replace("’", "'")
    if _FIRST.search(text) and not _SECOND.search(text):
        return USER
    return None
