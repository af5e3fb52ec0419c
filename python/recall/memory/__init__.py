"""What recall keeps besides transcripts: memories, MEMORY.md, daily logs and digests,
and the guidance files of indexed projects, each indexed as a source of its own."""
