"""What `recall search` adds for sources other than sessions: their text lines."""

from __future__ import annotations

from typing import Any


def source_lines(n: int, r: Any, color: bool) -> str:
    """A memory or file chunk as text output shows it: what it is, where, its snippet."""
    from recall.cli.render import day, highlight, wrap

    if r.source == "memory":
        head = f"{n:>2}. memory {r.memory_id} [{r.category}, importance {r.importance}]"
    else:
        head = f"{n:>2}. {r.title}"
    where = " · ".join(x for x in (r.source, r.project or "", day(r.date)) if x)
    locate = f"  [{r.path}]" if r.source != "memory" else ""
    return "\n".join(
        (
            wrap(head, "    ")[4:],
            wrap(f"{where}{locate}  score {r.score:.3g}", "    "),
            highlight(r.snippet, color, "    ") + "\n",
        )
    )
