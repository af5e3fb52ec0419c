"""Text as a literal inside SQLite's two pattern languages: FTS5 queries and LIKE.

One rule each, shared by every module that builds such a pattern (search, memory,
the store's id look-ups), so that what a user typed is never read as FTS5 syntax
or as a LIKE wildcard, and a fix to either rule lands everywhere at once.
"""

from __future__ import annotations


def fts_string(text: str) -> str:
    """`text` as one FTS5 string (double-quoted, inner quotes doubled): matched as
    words, never parsed as an operator, column filter or syntax error."""
    return '"' + text.replace('"', '""') + '"'


def like_literal(text: str) -> str:
    """`text` matching only itself inside a LIKE pattern written with `ESCAPE '\\'`."""
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
