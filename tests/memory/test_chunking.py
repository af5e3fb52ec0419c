"""Markdown cut by headings: heading paths, code fences, long sections, stable hashes."""

from __future__ import annotations

from recall.memory.chunking import MAX_CHARS, chunk_markdown


def test_each_section_is_a_chunk_with_its_heading_path() -> None:
    text = (
        "Intro before any heading.\n\n# Project\n\nTop text.\n\n## Testing\n\nRun pytest.\n\n"
        "### Fixtures\n\nNever edit them.\n\n## Style\n\nShort docstrings.\n"
    )
    got = [(c.heading, c.text) for c in chunk_markdown(text)]
    assert got == [
        ("", "Intro before any heading."),
        ("Project", "Top text."),
        ("Project › Testing", "Run pytest."),
        ("Project › Testing › Fixtures", "Never edit them."),
        ("Project › Style", "Short docstrings."),
    ]


def test_a_heading_without_text_of_its_own_only_names_those_below() -> None:
    got = [c.heading for c in chunk_markdown("# A\n## B\ntext\n# C ##\nmore\n")]
    assert got == ["A › B", "C"]


def test_a_hash_inside_a_code_fence_is_not_a_heading() -> None:
    text = "# Shell\n\n```sh\n# not a heading\necho hi\n```\nafter\n"
    chunks = chunk_markdown(text)
    assert len(chunks) == 1 and "# not a heading" in chunks[0].text


def test_a_long_section_is_cut_at_paragraphs_under_the_limit() -> None:
    para = "word " * 300
    chunks = chunk_markdown("# Long\n\n" + "\n\n".join([para] * 10))
    assert len(chunks) > 1
    assert all(len(c.text) <= MAX_CHARS and c.heading == "Long" for c in chunks)


def test_hashes_change_only_with_the_section() -> None:
    before = chunk_markdown("# A\none\n# B\ntwo\n")
    after = chunk_markdown("# A\none\n# B\nthree\n")
    assert before[0].hash == after[0].hash and before[1].hash != after[1].hash
