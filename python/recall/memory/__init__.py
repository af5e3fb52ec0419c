"""What recall keeps besides transcripts: memories, MEMORY.md, daily logs and digests,
and the guidance files of indexed projects, each indexed as a source of its own."""

CATEGORIES = ("preference", "fact", "relationship", "goal", "context")
"""What a memory can be (seed 003); here so the command line's parser need not load the store."""
