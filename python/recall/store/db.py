"""Opening the database: one locked writer at a time, lock-free read-only readers."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from recall import config
from recall.config import deferred_begin_for_tests
from recall.errors import StoreError
from recall.store.locking import write_lock
from recall.store.migrations import latest, migrate

BUSY_TIMEOUT_MS = 60_000

# TEST-ONLY. RECALL_TEST_DEFERRED_BEGIN=1 makes write transactions start with a
# plain (deferred) BEGIN and skip the cross-process write lock, which would
# otherwise serialise writers and hide the mistake: the way a naive SQLite
# writer behaves. tests/store/test_load.py sets it to prove the load test notices
# such a regression ("database is locked", lost turns). Never set it for use.
_DEFERRED_FOR_TESTS = deferred_begin_for_tests()


def permission_problem(exc: BaseException, path: Path) -> StoreError | None:
    """The one line to say when SQLite was refused by file permissions, else None."""
    text = str(exc).lower()
    if "readonly" in text or "read-only" in text:
        what = "not writable by this user"
    elif "unable to open" in text or "permission" in text:
        what = "not readable by this user (or its folder is not writable)"
    else:
        return None
    return StoreError(
        f"the index {path} is {what}: `chmod u+rw {path}*` (and `chmod u+rwx {path.parent}`), "
        "or run recall as the user who owns it; nothing was changed"
    )


def _cannot_open(exc: sqlite3.DatabaseError, path: Path) -> StoreError:
    """Why the index cannot be used: this user's permissions, or damage."""
    return permission_problem(exc, path) or StoreError(
        f"the index {path} is damaged ({exc}): `recall doctor` says what to do"
    )


def _connect(target: str, uri: bool) -> sqlite3.Connection:
    try:
        conn = sqlite3.connect(
            target,
            uri=uri,
            isolation_level=None,
            timeout=BUSY_TIMEOUT_MS / 1000,
            check_same_thread=False,
        )
    except sqlite3.Error as exc:
        raise StoreError(f"cannot open the index {target}: {exc}") from exc
    conn.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
    return conn


class Store:
    """A connection to recall's database plus the lock that serialises its writers."""

    def __init__(self, conn: sqlite3.Connection, path: Path, readonly: bool) -> None:
        self.conn = conn
        self.path = path
        self.readonly = readonly

    @property
    def lock_path(self) -> Path:
        return self.path.with_name(self.path.name + ".lock")

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """An IMMEDIATE transaction under the cross-process write lock."""
        if self.readonly:
            raise StoreError("internal: write on a read-only connection")
        if _DEFERRED_FOR_TESTS:
            with self._transaction("BEGIN") as db:
                yield db
            return
        with write_lock(self.lock_path), self._transaction("BEGIN IMMEDIATE") as db:
            yield db

    @contextmanager
    def _transaction(self, begin: str) -> Iterator[sqlite3.Connection]:
        try:
            self.conn.execute(begin)
        except sqlite3.OperationalError as exc:
            self._refused(exc)
            raise
        try:
            yield self.conn
        except sqlite3.OperationalError as exc:
            self.conn.execute("ROLLBACK")
            self._refused(exc)
            raise
        except BaseException:
            self.conn.execute("ROLLBACK")
            raise
        self.conn.execute("COMMIT")

    def _refused(self, exc: sqlite3.OperationalError) -> None:
        """Raise the one-line StoreError when `exc` is a permission refusal."""
        denied = permission_problem(exc, self.path)
        if denied is not None:
            raise denied from exc

    def close(self) -> None:
        self.conn.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _schema_current(conn: sqlite3.Connection) -> bool:
    try:
        row = conn.execute("SELECT 1 FROM schema_migrations WHERE name = ?", (latest(),)).fetchone()
    except sqlite3.OperationalError:
        return False
    return row is not None


def _ready(conn: sqlite3.Connection) -> bool:
    """Whether the database is in WAL mode with the latest schema: two reads, which in WAL
    mode never wait on a writer, so a store that needs neither change takes no lock."""
    mode = conn.execute("PRAGMA journal_mode").fetchone()[0]
    return str(mode).lower() == "wal" and _schema_current(conn)


def open_writer(path: Path | None = None) -> Store:
    """Open (creating and migrating as needed) the database for writing.

    The write lock is taken here only to create, put in WAL mode or migrate; every
    write after that takes it per transaction (`Store.transaction`), so a caller that
    finds nothing to write (a hook whose transcript is unchanged) never waits on it.
    """
    path = path or config.db_path()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise StoreError(f"cannot create {path.parent}: {exc}") from exc
    conn = _connect(str(path), uri=False)
    store = Store(conn, path, readonly=False)
    try:
        if not _ready(conn):
            _prepare(conn, store)
        conn.execute("PRAGMA synchronous=NORMAL")
        conn.execute("PRAGMA foreign_keys=ON")
        conn.execute("PRAGMA cache_size=-65536")  # 64 MiB: FTS5 segment merges reread pages
    except sqlite3.DatabaseError as exc:
        conn.close()
        raise _cannot_open(exc, path) from exc
    except BaseException:
        conn.close()
        raise
    return store


def _prepare(conn: sqlite3.Connection, store: Store) -> None:
    """Under the write lock: WAL mode and the latest schema (another process may have
    done either while this one waited)."""
    with write_lock(store.lock_path):
        mode = conn.execute("PRAGMA journal_mode=WAL").fetchone()[0]
        if str(mode).lower() != "wal":
            raise StoreError(f"cannot put {store.path} in WAL mode (got {mode})")
        if not _schema_current(conn):
            from recall.store.sqlite_check import require as require_sqlite

            require_sqlite()  # a clear error here beats "no such module: fts5" mid-way
            migrate(conn)


def open_reader(path: Path | None = None) -> Store:
    """Open the database read-only; never blocks on, nor blocks, a writer.

    A missing or outdated database is created or migrated first (briefly
    taking the write lock), so `search` works on a fresh machine.
    """
    path = path or config.db_path()
    if not path.exists():
        open_writer(path).close()
    conn = _connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
    try:
        current = _schema_current(conn)
    except sqlite3.DatabaseError as exc:
        conn.close()
        raise _cannot_open(exc, path) from exc
    if not current:
        conn.close()
        open_writer(path).close()
        conn = _connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
    return Store(conn, path, readonly=True)
