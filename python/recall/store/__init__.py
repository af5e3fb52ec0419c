"""SQLite storage: the database is the truth; FTS indexes are derived from it."""

from recall.store.db import Store, open_reader, open_writer

__all__ = ["Store", "open_reader", "open_writer"]
