"""The daily log's and MEMORY.md's sections stay unambiguous whatever a summariser writes
(issue 21, item 15): each digest's section reads back exactly as it was written."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from recall.memory import sections

LINES = st.lists(
    st.sampled_from(
        [
            "## Digest 1",
            "## Digest 2",
            "# 2026-01-05",
            "   ## Digest 3",
            "```",
            "~~~",
            "- a",
            "",
            "x",
        ]
    )
    | st.text(alphabet="#` -Dgst0123\t", max_size=12),
    max_size=8,
)


@settings(max_examples=300, deadline=None)
@given(st.lists(LINES.map("\n".join), min_size=1, max_size=5))
@pytest.mark.core_free
def test_every_section_reads_back_as_written(summaries: list[str]) -> None:
    text = ""
    for n, summary in enumerate(summaries, 1):
        text = sections.with_section(text, "2026-01-05", f"## Digest {n}", sections.body(summary))
    for n, summary in enumerate(summaries, 1):
        assert sections.section(text, f"## Digest {n}") == sections.body(summary).strip()
    heads = [line for line in text.splitlines() if line.startswith("#")]
    assert heads == ["# 2026-01-05", *(f"## Digest {n}" for n in range(1, len(summaries) + 1))]


@pytest.mark.core_free
def test_rewriting_a_section_keeps_its_place_and_the_text_around_it() -> None:
    text = "# Memory\n\n## Mine\n\nkeep this\n\n## Notes\n\n- one\n\n## Later\n\nand this\n"
    out = sections.with_section(text, "Memory", "## Notes", "- one\n- two")
    assert (
        out
        == "# Memory\n\n## Mine\n\nkeep this\n\n## Notes\n\n- one\n- two\n\n## Later\n\nand this\n"
    )
    assert sections.without(out, {"## Notes"}) == (
        "# Memory\n\n## Mine\n\nkeep this\n\n## Later\n\nand this\n"
    )
