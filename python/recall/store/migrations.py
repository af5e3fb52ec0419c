"""Append-only, named schema migrations. Never edit one that has landed; add the next.

A migration calls no live code: a rule it applies is frozen in
`store/migration_rules.py` (tests/store/test_migrations.py).
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable

from recall.store.migration_rules import m006_first_prompt
from recall.store.migration_rules import m009_title_groups as title_groups

Migration = Callable[[sqlite3.Connection], None]

_TOKENIZER = "porter unicode61 remove_diacritics 2"


def run_script(db: sqlite3.Connection, script: str) -> None:
    """Run `script` statement by statement inside the caller's transaction.

    `executescript` would commit the open transaction first, so a failed
    migration could leave half a schema behind.
    """
    pending = ""
    for piece in script.split(";"):
        pending += piece + ";"
        if sqlite3.complete_statement(pending):
            if pending.strip(" \n;"):
                db.execute(pending)
            pending = ""


def m001_initial(db: sqlite3.Connection) -> None:
    run_script(
        db,
        f"""
        CREATE TABLE sessions (
            id INTEGER PRIMARY KEY,
            session_id TEXT NOT NULL,
            agent TEXT NOT NULL,
            computer TEXT NOT NULL,
            project TEXT,
            title TEXT,
            title_rank INTEGER NOT NULL DEFAULT 0,
            parent_session_id TEXT,
            started_at REAL,
            ended_at REAL,
            message_count INTEGER NOT NULL DEFAULT 0,
            transcript_path TEXT,
            metadata TEXT NOT NULL DEFAULT '{{}}',
            updated_at REAL NOT NULL,
            UNIQUE (session_id, agent)
        );
        CREATE INDEX sessions_agent ON sessions(agent);
        CREATE INDEX sessions_parent ON sessions(parent_session_id);
        CREATE INDEX sessions_ended ON sessions(ended_at);

        CREATE TABLE messages (
            id INTEGER PRIMARY KEY,
            session INTEGER NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
            position INTEGER NOT NULL,
            key TEXT NOT NULL,
            role TEXT NOT NULL,
            text TEXT NOT NULL,
            ts REAL,
            UNIQUE (session, key)
        );
        CREATE INDEX messages_key ON messages(key);
        CREATE INDEX messages_order ON messages(session, position);

        CREATE VIRTUAL TABLE messages_fts USING fts5(
            text, content='messages', content_rowid='id', tokenize='{_TOKENIZER}'
        );
        CREATE TRIGGER messages_ai AFTER INSERT ON messages BEGIN
            INSERT INTO messages_fts(rowid, text) VALUES (new.id, new.text);
        END;
        CREATE TRIGGER messages_ad AFTER DELETE ON messages BEGIN
            INSERT INTO messages_fts(messages_fts, rowid, text) VALUES ('delete', old.id, old.text);
        END;
        CREATE TRIGGER messages_au AFTER UPDATE OF text ON messages BEGIN
            INSERT INTO messages_fts(messages_fts, rowid, text) VALUES ('delete', old.id, old.text);
            INSERT INTO messages_fts(rowid, text) VALUES (new.id, new.text);
        END;

        CREATE VIRTUAL TABLE sessions_fts USING fts5(
            title, content='sessions', content_rowid='id', tokenize='{_TOKENIZER}'
        );
        CREATE TRIGGER sessions_ai AFTER INSERT ON sessions BEGIN
            INSERT INTO sessions_fts(rowid, title) VALUES (new.id, coalesce(new.title, ''));
        END;
        CREATE TRIGGER sessions_ad AFTER DELETE ON sessions BEGIN
            INSERT INTO sessions_fts(sessions_fts, rowid, title)
                VALUES ('delete', old.id, coalesce(old.title, ''));
        END;
        CREATE TRIGGER sessions_au AFTER UPDATE OF title ON sessions BEGIN
            INSERT INTO sessions_fts(sessions_fts, rowid, title)
                VALUES ('delete', old.id, coalesce(old.title, ''));
            INSERT INTO sessions_fts(rowid, title) VALUES (new.id, coalesce(new.title, ''));
        END;

        CREATE TABLE transcripts (
            path TEXT PRIMARY KEY,
            agent TEXT NOT NULL,
            size INTEGER NOT NULL DEFAULT 0,
            mtime_ns INTEGER NOT NULL DEFAULT 0,
            head TEXT,
            offset INTEGER NOT NULL DEFAULT 0,
            state TEXT NOT NULL DEFAULT '{{}}',
            skipped TEXT NOT NULL DEFAULT '{{}}',
            indexed_at REAL,
            missing INTEGER NOT NULL DEFAULT 0
        );
        """,
    )


def m002_vectors(db: sqlite3.Connection) -> None:
    """Embedding vectors: one row per chunk (a window-sized piece of one message).

    `embedded` records every message done for a model, including those that
    gave no chunk, so `recall embed` resumes where it stopped. AUTOINCREMENT
    keeps chunk ids from ever being reused, and `chunk_stats` (kept by
    triggers) counts each model's chunks, its highest id and its deletions:
    that is how the derived HNSW file proves, without a scan, that it still
    matches the table (docs/semantic.md).
    """
    run_script(
        db,
        """
        CREATE TABLE chunks (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            message INTEGER NOT NULL,
            model TEXT NOT NULL,
            piece INTEGER NOT NULL,
            start INTEGER NOT NULL,
            end INTEGER NOT NULL,
            vector BLOB NOT NULL,
            UNIQUE (model, message, piece)
        );
        CREATE INDEX chunks_message ON chunks(message);
        CREATE TABLE embedded (
            model TEXT NOT NULL,
            message INTEGER NOT NULL,
            PRIMARY KEY (model, message)
        ) WITHOUT ROWID;
        CREATE INDEX embedded_message ON embedded(message);
        CREATE TABLE chunk_stats (
            model TEXT PRIMARY KEY,
            chunks INTEGER NOT NULL DEFAULT 0,
            max_id INTEGER NOT NULL DEFAULT 0,
            deletions INTEGER NOT NULL DEFAULT 0
        );
        CREATE TRIGGER chunks_stats_ai AFTER INSERT ON chunks BEGIN
            INSERT INTO chunk_stats(model, chunks, max_id) VALUES (new.model, 1, new.id)
                ON CONFLICT(model) DO UPDATE SET chunks = chunks + 1, max_id = new.id;
        END;
        CREATE TRIGGER chunks_stats_ad AFTER DELETE ON chunks BEGIN
            UPDATE chunk_stats SET chunks = chunks - 1, deletions = deletions + 1
                WHERE model = old.model;
        END;
        CREATE TRIGGER messages_vectors_ad AFTER DELETE ON messages BEGIN
            DELETE FROM chunks WHERE message = old.id;
            DELETE FROM embedded WHERE message = old.id;
        END;
        CREATE TRIGGER messages_vectors_au AFTER UPDATE OF text ON messages BEGIN
            DELETE FROM chunks WHERE message = old.id;
            DELETE FROM embedded WHERE message = old.id;
        END;
        """,
    )


def m003_privacy(db: sqlite3.Connection) -> None:
    """Tombstones: sessions that `recall forget` or the ignore marker removed stay out.

    Only the id and agent are kept (no title, no text), enough to refuse the
    session when a hook or `sync` reads its transcript again. `compacted` is 0
    until the database file has been compacted after the deletion (a hook
    deletes at once but leaves the slow compaction to the next `sync`).
    """
    run_script(
        db,
        """
        CREATE TABLE forgotten (
            session_id TEXT NOT NULL,
            agent TEXT NOT NULL,
            reason TEXT NOT NULL,
            forgotten_at REAL NOT NULL,
            compacted INTEGER NOT NULL DEFAULT 0,
            PRIMARY KEY (session_id, agent)
        );
        """,
    )


def m004_bulk_fts(db: sqlite3.Connection) -> None:
    """Messages reach the full-text index in bulk, from the writer, not row by row.

    FTS5 flushes its pending terms to disk at every statement savepoint, and a
    trigger runs one per inserted row, so `messages_ai` wrote one tiny segment
    per message and spent most of a sync merging them (docs/architecture.md).
    The writer now marks the rows it inserts (`bulk = 1`) and indexes a part's
    new rows with one `INSERT … SELECT`; the insert trigger skips those rows but
    still indexes any other insert, such as an older recall still running
    during an upgrade. Updates and deletes, rare and row-sized, keep their
    triggers.
    """
    run_script(
        db,
        """
        ALTER TABLE messages ADD COLUMN bulk INTEGER NOT NULL DEFAULT 0;
        DROP TRIGGER messages_ai;
        CREATE TRIGGER messages_ai AFTER INSERT ON messages WHEN new.bulk = 0 BEGIN
            INSERT INTO messages_fts(rowid, text) VALUES (new.id, new.text);
        END;
        """,
    )


def m005_forgotten_messages(db: sqlite3.Connection) -> None:
    """Tombstones for forgotten messages, not only sessions.

    A Claude line's `uuid` is not global: a resumed session's file repeats
    earlier lines, uuid and text alike, and another session may carry the
    same uuid with other text. A message is therefore dropped as a copy only
    when another session of the agent holds the same key *and* text; and
    `forget` records a digest of each forgotten message's key and text (never
    the text), so a copy of it in a session that survives stays out.
    """
    run_script(
        db,
        """
        CREATE TABLE forgotten_messages (
            agent TEXT NOT NULL,
            digest TEXT NOT NULL,
            PRIMARY KEY (agent, digest)
        ) WITHOUT ROWID;
        """,
    )


def m006_summaries(db: sqlite3.Connection) -> None:
    """Claude summaries title the session holding their leaf message (store/titles.py).

    A `summary` line used to title the file it sat in, which was often
    another session's. Summaries are now kept by leaf, with the transcript
    they were read from (`text` NULL: the leaf's session was forgotten, so the
    summary stays out). Title ranks make room
    below the agent's own title: the user's 3 becomes 4, the agent's 2 becomes
    3 (Codex thread names, ranked as the user's until now, become the
    agent's). A Claude title of rank 2 may have come from a summary line, so
    it gives way to the first prompt and every Claude transcript is read again
    from the start by the next sync, which finds its ai-titles and summaries
    anew (messages are keyed: re-reading adds nothing twice). First-prompt
    titles are cleaned again to one line.
    """
    run_script(
        db,
        """
        CREATE TABLE summaries (
            agent TEXT NOT NULL,
            leaf TEXT NOT NULL,
            text TEXT,
            source TEXT,
            PRIMARY KEY (agent, leaf)
        ) WITHOUT ROWID;
        CREATE INDEX summaries_source ON summaries(source);
        UPDATE sessions SET title_rank = 4 WHERE title_rank = 3 AND agent != 'codex';
        UPDATE sessions SET title_rank = 3 WHERE title_rank = 2 AND agent != 'claude';
        UPDATE sessions SET title = NULL, title_rank = 0 WHERE title_rank = 2;
        UPDATE transcripts SET size = -1, offset = 0, state = '{}', head = NULL
            WHERE agent = 'claude';
        """,
    )
    for (rowid,) in db.execute("SELECT id FROM sessions WHERE title_rank <= 1").fetchall():
        m006_first_prompt(db, rowid)


def m007_memories(db: sqlite3.Connection) -> None:
    """Memories, and markdown files as sources: MEMORY.md, daily logs, guidance files.

    `memories` are facts the user or an agent chose to keep (docs/memory.md);
    their FTS index is kept by triggers, so a memory is searchable in the very
    transaction that stores it. `files` records each indexed file's content
    hash (an unchanged file costs a hash, nothing else) and `file_chunks` its
    pieces, one per markdown heading, keyed by their own hash so an edit
    rewrites only the chunks it changed. `digest_marks` is the daily digest's
    watermark: the last message position of each session already summarised, moved
    only after the digest's files are written (`digest_pending` carries a digest
    from the summariser's answer to the watermark, so a crash between the two
    neither repeats nor loses it).
    `source_vectors` holds embeddings of memories and file chunks made at write
    time (few and short: searched exactly, outside the HNSW file).
    """
    run_script(
        db,
        f"""
        CREATE TABLE memories (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            text TEXT NOT NULL,
            category TEXT NOT NULL,
            importance INTEGER NOT NULL CHECK (importance BETWEEN 1 AND 10),
            project TEXT,
            created_at REAL NOT NULL,
            updated_at REAL NOT NULL,
            merged INTEGER NOT NULL DEFAULT 0
        );
        CREATE INDEX memories_created ON memories(created_at);
        CREATE VIRTUAL TABLE memories_fts USING fts5(
            text, content='memories', content_rowid='id', tokenize='{_TOKENIZER}'
        );
        CREATE TRIGGER memories_ai AFTER INSERT ON memories BEGIN
            INSERT INTO memories_fts(rowid, text) VALUES (new.id, new.text);
        END;
        CREATE TRIGGER memories_ad AFTER DELETE ON memories BEGIN
            INSERT INTO memories_fts(memories_fts, rowid, text) VALUES ('delete', old.id, old.text);
            DELETE FROM source_vectors WHERE kind = 'memory' AND ref = old.id;
        END;
        CREATE TRIGGER memories_au AFTER UPDATE OF text ON memories BEGIN
            INSERT INTO memories_fts(memories_fts, rowid, text) VALUES ('delete', old.id, old.text);
            INSERT INTO memories_fts(rowid, text) VALUES (new.id, new.text);
            DELETE FROM source_vectors WHERE kind = 'memory' AND ref = old.id;
        END;

        CREATE TABLE files (
            id INTEGER PRIMARY KEY,
            path TEXT NOT NULL UNIQUE,
            kind TEXT NOT NULL,
            agent TEXT NOT NULL DEFAULT '',
            project TEXT,
            day TEXT,
            ts REAL,
            hash TEXT NOT NULL,
            indexed_at REAL NOT NULL
        );
        CREATE TABLE file_chunks (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            file INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE,
            heading TEXT NOT NULL,
            text TEXT NOT NULL,
            hash TEXT NOT NULL
        );
        CREATE INDEX file_chunks_file ON file_chunks(file, hash);
        CREATE VIRTUAL TABLE file_chunks_fts USING fts5(
            heading, text, content='file_chunks', content_rowid='id', tokenize='{_TOKENIZER}'
        );
        CREATE TRIGGER file_chunks_ai AFTER INSERT ON file_chunks BEGIN
            INSERT INTO file_chunks_fts(rowid, heading, text)
                VALUES (new.id, new.heading, new.text);
        END;
        CREATE TRIGGER file_chunks_ad AFTER DELETE ON file_chunks BEGIN
            INSERT INTO file_chunks_fts(file_chunks_fts, rowid, heading, text)
                VALUES ('delete', old.id, old.heading, old.text);
            DELETE FROM source_vectors WHERE kind = 'chunk' AND ref = old.id;
        END;
        CREATE TRIGGER file_chunks_au AFTER UPDATE OF heading, text ON file_chunks BEGIN
            INSERT INTO file_chunks_fts(file_chunks_fts, rowid, heading, text)
                VALUES ('delete', old.id, old.heading, old.text);
            INSERT INTO file_chunks_fts(rowid, heading, text)
                VALUES (new.id, new.heading, new.text);
            DELETE FROM source_vectors WHERE kind = 'chunk' AND ref = old.id;
        END;

        CREATE TABLE digest_marks (
            session INTEGER PRIMARY KEY REFERENCES sessions(id) ON DELETE CASCADE,
            position INTEGER NOT NULL,
            digested_at REAL NOT NULL
        );
        CREATE TABLE digest_pending (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            day TEXT NOT NULL,
            marks TEXT NOT NULL,
            summary TEXT NOT NULL,
            facts TEXT NOT NULL,
            created_at REAL NOT NULL
        );

        CREATE TABLE source_vectors (
            kind TEXT NOT NULL,
            ref INTEGER NOT NULL,
            model TEXT NOT NULL,
            vector BLOB NOT NULL,
            PRIMARY KEY (kind, ref, model)
        ) WITHOUT ROWID;
        """,
    )


def m008_digest_sources(db: sqlite3.Connection) -> None:
    """Which sessions each digest came from, and the facts it proposed awaiting review.

    `digest_sessions` names each digest's sessions by (session_id, agent), which
    outlive the session row, with the watermark before and after the digest: `recall
    forget` finds what was derived from a forgotten session and can set its other
    sessions' watermarks back so they are summarised again. `digest_facts` holds
    facts a digest proposed until the user accepts (into MEMORY.md) or rejects them.
    """
    run_script(
        db,
        """
        CREATE TABLE digest_sessions (
            digest INTEGER NOT NULL,
            session_id TEXT NOT NULL,
            agent TEXT NOT NULL,
            day TEXT NOT NULL,
            after INTEGER NOT NULL,
            upto INTEGER NOT NULL,
            PRIMARY KEY (digest, session_id, agent)
        ) WITHOUT ROWID;
        CREATE INDEX digest_sessions_session ON digest_sessions(session_id, agent);
        CREATE TABLE digest_facts (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            digest INTEGER NOT NULL,
            day TEXT NOT NULL,
            n INTEGER NOT NULL,
            text TEXT NOT NULL,
            created_at REAL NOT NULL,
            UNIQUE (digest, n)
        );
        """,
    )


def m009_title_groups(db: sqlite3.Connection) -> None:
    """First-prompt titles that share a template show the part that differs.

    `sessions.title_group` is a digest of a first-prompt title (80 characters):
    sessions with the same one cannot be told apart by it, so each member of a
    group of two or more is titled by what follows the words the group's
    prompts share (store/title_groups.py, whose rule this applies as it stood).
    """
    run_script(
        db,
        """
        ALTER TABLE sessions ADD COLUMN title_group TEXT;
        CREATE INDEX sessions_title_group ON sessions(title_group);
        """,
    )
    title_groups(db)


def m010_chunk_openings(db: sqlite3.Connection) -> None:
    """Find the openings the first pass over the month embedded without a scan.

    A message of the newest month may be embedded from its opening first (piece -1,
    `semantic/firstpass.py`) and read whole later; `recall status` counts those and
    the run that finishes deletes them, both through this partial index.
    """
    run_script(db, "CREATE INDEX chunks_openings ON chunks(model, message) WHERE piece = -1;")


MIGRATIONS: list[Migration] = [
    m001_initial,
    m002_vectors,
    m003_privacy,
    m004_bulk_fts,
    m005_forgotten_messages,
    m006_summaries,
    m007_memories,
    m008_digest_sources,
    m009_title_groups,
    m010_chunk_openings,
]


def migrate(db: sqlite3.Connection) -> list[str]:
    """Apply every migration not yet recorded; the caller holds the write lock."""
    db.execute(
        "CREATE TABLE IF NOT EXISTS schema_migrations (name TEXT PRIMARY KEY, applied_at REAL)"
    )
    done = {row[0] for row in db.execute("SELECT name FROM schema_migrations")}
    applied = []
    for migration in MIGRATIONS:
        name = migration.__name__
        if name in done:
            continue
        db.execute("BEGIN IMMEDIATE")
        try:
            migration(db)
            db.execute(
                "INSERT INTO schema_migrations(name, applied_at) VALUES (?, ?)", (name, time.time())
            )
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise
        applied.append(name)
    return applied


def latest() -> str:
    return MIGRATIONS[-1].__name__
