"""Doctor's checks of recall's own state: SQLite, the database, its indexes, the lock, the log."""

from __future__ import annotations

import os
import sqlite3
import sys
import time
from datetime import datetime
from pathlib import Path

from recall.doctor.findings import FAIL, OK, SKIP, WARN, Check, Context
from recall.errors import StoreError
from recall.store.health import IndexHealth, check_index
from recall.store.locking import lock_is_free, read_holder
from recall.store.migrations import MIGRATIONS
from recall.store.sqlite_check import probe

STUCK_AFTER_S = 60.0
"""Writers give up after waiting this long for the lock, so a longer hold breaks hooks."""
LOG_WINDOW_S = 7 * 86400


def check_sqlite(ctx: Context) -> Check:
    support = probe()
    if not support.usable:
        return Check(
            "sqlite",
            FAIL,
            "; ".join(support.problems),
            fix="run recall on a Python built with a newer SQLite (python.org and uv builds "
            "bundle one)",
        )
    return Check("sqlite", OK, f"{support.wal_note()}; FTS5 available")


def _health(ctx: Context) -> IndexHealth:
    if "health" not in ctx.memo:
        ctx.memo["health"] = check_index(ctx.db)
    health: IndexHealth = ctx.memo["health"]
    return health


def check_database(ctx: Context) -> Check:
    db = ctx.db
    if not db.exists():
        return Check("database", WARN, f"no index yet at {db}", fix="run `recall sync` to build it")
    denied = permission_trouble(db)
    if denied:
        return denied
    health = _health(ctx)
    if health.database:
        return Check(
            "database",
            FAIL,
            f"{db} is damaged: {health.database[0]}",
            fix="`recall doctor --salvage` copies every readable session and message into a "
            f"new index and keeps the damaged file beside it ({db.name}.broken-…); then "
            "`recall sync` re-reads the transcripts still on disk. Do not delete the old "
            "file first: sessions whose transcripts are gone exist only there",
            details=health.database,
        )
    conn = sqlite3.connect(f"{db.resolve().as_uri()}?mode=ro", uri=True)
    try:
        applied = {r[0] for r in conn.execute("SELECT name FROM schema_migrations")}
        sessions = conn.execute("SELECT count(*) FROM sessions").fetchone()[0]
    except sqlite3.OperationalError:
        applied, sessions = set(), 0
    finally:
        conn.close()
    known = [m.__name__ for m in MIGRATIONS]
    newer = sorted(applied - set(known))
    if newer:
        return Check(
            "database",
            FAIL,
            f"{db} was written by a newer recall (migrations {', '.join(newer)})",
            fix=(
                "upgrade recall: `pipx upgrade recall-sessions` or `pip install -U recall-sessions`"
            ),
        )
    behind = [name for name in known if name not in applied]
    if behind:
        return Check(
            "database",
            WARN,
            f"{db}: schema behind by {len(behind)} migration(s) ({', '.join(behind)})",
            fix="it migrates on the next write: run `recall sync` or `recall doctor --fix`",
            repairable=True,
        )
    size = sum(p.stat().st_size for p in (db, db.with_name(db.name + "-wal")) if p.exists())
    return Check(
        "database",
        OK,
        f"{db} ({size / 1e6:.1f} MB, {sessions} sessions, schema {known[-1]}): integrity ok",
    )


def permission_trouble(db: Path) -> Check | None:
    """A failed check when this user cannot read or write the index (not damage: nothing
    needs rebuilding, only its permissions fixing)."""
    files = [p for p in (db, db.with_name(db.name + "-wal"), db.with_name(db.name + "-shm"))]
    unreadable = [p for p in files if p.exists() and not os.access(p, os.R_OK)]
    unwritable = [p for p in files if p.exists() and not os.access(p, os.W_OK)]
    if not unreadable and not unwritable:
        return None
    what = "readable" if unreadable else "writable"
    names = ", ".join(str(p) for p in (unreadable or unwritable))
    return Check(
        "database",
        FAIL,
        f"{names}: not {what} by this user (the index is not damaged)",
        fix=f"`chmod u+rw {db}*`, or run recall as the user who owns the files; "
        "nothing needs rebuilding",
    )


def check_indexes(ctx: Context) -> Check:
    if not ctx.db.exists():
        return Check("indexes", SKIP, "no index yet")
    if permission_trouble(ctx.db):
        return Check("indexes", SKIP, "not checked: the database cannot be opened by this user")
    health = _health(ctx)
    if health.database:
        return Check("indexes", SKIP, "not checked: the database file is damaged")
    if health.fts:
        return Check(
            "indexes",
            FAIL,
            "the full-text index does not match the stored text ("
            + ", ".join(p.split(":")[0] for p in health.fts)
            + ")",
            fix="run `recall doctor --fix` to rebuild it from the stored messages and titles",
            details=health.fts,
            repairable=True,
        )
    return Check("indexes", OK, "full-text indexes of messages and titles match their tables")


def _alive(pid: int) -> bool:
    if sys.platform == "win32":  # os.kill there terminates the process: never probe
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # exists, owned by someone else
        return True
    return True


def check_lock(ctx: Context, wait: float = 2.0) -> Check:
    if not ctx.db.parent.exists():
        return Check("write lock", SKIP, "no index yet")
    deadline = time.monotonic() + wait
    try:
        while not lock_is_free(ctx.lock):
            if time.monotonic() >= deadline:
                return _held(ctx)
            time.sleep(0.1)
    except StoreError as exc:
        return Check(
            "write lock",
            FAIL,
            str(exc),
            fix=f"make {ctx.lock} readable and writable by you, or delete it (recall recreates it)",
        )
    holder = read_holder(ctx.lock)
    if holder is not None and not _alive(holder.pid):
        return Check(
            "write lock",
            OK,
            f"free (pid {holder.pid} died while writing; SQLite rolled its transaction "
            "back and the lock was released with it)",
        )
    return Check("write lock", OK, "free")


def _held(ctx: Context) -> Check:
    holder = read_holder(ctx.lock)
    if holder is None:
        return Check(
            "write lock",
            WARN,
            f"{ctx.lock} is held by a process that did not record itself",
            fix=f"find it with `fuser {ctx.lock}`; stop it if it is stuck",
        )
    held = time.time() - holder.since
    who = f"pid {holder.pid}, for {held:.0f}s"
    fix = (
        f"if pid {holder.pid} is stuck, stop it: `kill {holder.pid}` "
        "(recall's writes are transactional: killing a writer loses nothing)"
    )
    if held > STUCK_AFTER_S:
        return Check(
            "write lock",
            FAIL,
            f"held by {who}: hooks give up after {STUCK_AFTER_S:.0f}s of waiting",
            fix=fix,
        )
    return Check("write lock", WARN, f"busy: held by {who} (normal during a sync)", fix=fix)


def check_model(ctx: Context) -> Check:
    """The embedding model's files are found and verified (not loaded: that costs a second)."""
    from recall import config
    from recall.errors import ConfigError
    from recall.semantic import ModelError
    from recall.semantic.manifest import load_manifest, locate

    try:
        provider = config.embedding_provider()
        if provider == "none":
            return Check("model", SKIP, 'embedding = "none": keyword search only')
        if provider == "openai":
            endpoint = config.load_config().endpoint
            return Check("model", OK, f"embeddings from {endpoint.url} ({endpoint.model})")
        manifest = load_manifest(config.load_config().model)
        files = locate(manifest, config.model_dir())
    except (ModelError, ConfigError) as exc:
        return Check(
            "model",
            WARN,
            f"semantic search is off: {exc}",
            fix="recall model install; keyword search works meanwhile",
        )
    return Check("model", OK, f"{manifest.name} from {files.origin}")


def check_log(ctx: Context) -> Check:
    log = ctx.db.with_name("recall.log")
    try:
        lines = log.read_text(encoding="utf-8", errors="replace").splitlines()
    except FileNotFoundError:
        return Check("log", OK, "no problems logged")
    cutoff = time.time() - LOG_WINDOW_S
    recent = []
    for line in lines:
        try:
            stamp = datetime.strptime(line.split(" ", 1)[0], "%Y-%m-%dT%H:%M:%S%z")
        except ValueError:
            continue
        if stamp.timestamp() >= cutoff:
            recent.append(line)
    if not recent:
        return Check("log", OK, "no problems logged in the last 7 days")
    return Check(
        "log",
        WARN,
        f"{len(recent)} problem(s) logged in the last 7 days; latest: {recent[-1]}",
        fix=f"read {log}: hooks report there what they could not do, since they never "
        "interrupt the agent",
        details=recent[-5:],
    )
