"""Text rules every layer shares: lone surrogates, one-line titles."""


def scrub(text: str) -> str:
    """`text` with each lone surrogate replaced by U+FFFD (both cores apply this rule).

    JSON written by JavaScript can escape half an emoji (`\\ud83d`) where a
    string was cut; Python decodes it to a lone surrogate, which neither UTF-8
    (so SQLite) nor Rust can take. Valid text is returned as it is.
    """
    if text.isascii():  # O(1): CPython records it
        return text
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")
    return text


def shorten(text: str, limit: int = 80) -> str:
    """First line of `text`, cut at a word boundary to at most `limit` characters."""
    line = " ".join(text.split())
    if len(line) <= limit:
        return line
    cut = line[: limit - 1].rsplit(" ", 1)[0] or line[: limit - 1]
    return cut + "…"
