"""The team's tables in PostgreSQL: versioned, append-only migrations, like the local store's.

Each migration is a name and its SQL, applied once, in order, in its own
transaction, under an advisory lock (two `recall team init` at once apply
each migration once), and recorded in `recall.migrations`. Never edit one
that has landed: add the next. `init` runs them; every other command only
checks that the schema is the one it knows (`require`).

Rows are keyed by (person, computer, agent, session id): a person is the
database role that pushed them (`current_user`, enforced by row-level
security), so two people's computers may share a name. Row-level security:
a member reads their own rows and the rows pushed as shared, and writes only
their own. The vectors' column is typed by the model's dimension, fixed at
`init` with the model id in `recall.settings`: the index refuses to mix models.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from recall.team.connect import TeamError, failure

if TYPE_CHECKING:
    import psycopg

SCHEMA = "recall"
MEMBER = "recall_member"
"""The group role every person's login role is granted (docs/team.md)."""
LOCK = 7_267_011_275
"""The advisory lock `init` holds while it migrates."""

_TABLES = ("sessions", "messages", "chunks")

T001 = f"""
CREATE TABLE {SCHEMA}.settings (
    key text PRIMARY KEY,
    value text NOT NULL
);
CREATE TABLE {SCHEMA}.sessions (
    person text NOT NULL DEFAULT current_user,
    computer text NOT NULL,
    agent text NOT NULL,
    session_id text NOT NULL,
    project text,
    title text,
    parent_session_id text,
    started_at double precision,
    ended_at double precision,
    message_count integer NOT NULL,
    shared boolean NOT NULL DEFAULT false,
    digest text NOT NULL,
    pushed_at timestamptz NOT NULL DEFAULT now(),
    title_tsv tsvector GENERATED ALWAYS AS (to_tsvector('english', coalesce(title, ''))) STORED,
    PRIMARY KEY (person, computer, agent, session_id)
);
CREATE INDEX sessions_title_tsv ON {SCHEMA}.sessions USING gin (title_tsv);
CREATE INDEX sessions_ended ON {SCHEMA}.sessions (ended_at);
CREATE TABLE {SCHEMA}.messages (
    person text NOT NULL DEFAULT current_user,
    computer text NOT NULL,
    agent text NOT NULL,
    session_id text NOT NULL,
    position integer NOT NULL,
    role text NOT NULL,
    text text NOT NULL,
    ts double precision,
    words integer NOT NULL DEFAULT 0,
    shared boolean NOT NULL DEFAULT false,
    tsv tsvector GENERATED ALWAYS AS (to_tsvector('english', text)) STORED,
    PRIMARY KEY (person, computer, agent, session_id, position),
    FOREIGN KEY (person, computer, agent, session_id)
        REFERENCES {SCHEMA}.sessions ON DELETE CASCADE
);
CREATE INDEX messages_tsv ON {SCHEMA}.messages USING gin (tsv);
CREATE INDEX messages_trgm ON {SCHEMA}.messages USING gin (text gin_trgm_ops);
CREATE FUNCTION {SCHEMA}.bm25(
    doc tsvector, lexemes text[], idfs float8[], prefixes boolean[], dl float8, avgdl float8
) RETURNS float8 LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT coalesce(sum(q.idf * cardinality(u.positions) * 2.2
                        / (cardinality(u.positions) + 1.2 * (0.25 + 0.75 * dl / avgdl))), 0)
    FROM unnest(doc) u
    JOIN unnest(lexemes, idfs, prefixes) AS q(lexeme, idf, prefix)
      ON u.lexeme = q.lexeme OR (q.prefix AND starts_with(u.lexeme, q.lexeme))
$$;
"""
"""Sessions and messages, full text (tsvector) and trigrams (identifiers, CJK), and BM25
over a tsvector as SQLite's FTS5 computes it (k1 = 1.2, b = 0.75; the idfs handed in)."""


def t002_vectors(dims: int) -> str:
    """The chunks' vectors, typed by the team's model dimension, and their HNSW index."""
    return f"""
CREATE TABLE {SCHEMA}.chunks (
    person text NOT NULL DEFAULT current_user,
    computer text NOT NULL,
    agent text NOT NULL,
    session_id text NOT NULL,
    position integer NOT NULL,
    piece integer NOT NULL,
    start integer NOT NULL,
    stop integer NOT NULL,
    shared boolean NOT NULL DEFAULT false,
    embedding vector({int(dims)}) NOT NULL,
    PRIMARY KEY (person, computer, agent, session_id, position, piece),
    FOREIGN KEY (person, computer, agent, session_id, position)
        REFERENCES {SCHEMA}.messages ON DELETE CASCADE
);
CREATE INDEX chunks_hnsw ON {SCHEMA}.chunks USING hnsw (embedding vector_cosine_ops);
"""


def _policies(table: str) -> str:
    t = f"{SCHEMA}.{table}"
    return f"""
ALTER TABLE {t} ENABLE ROW LEVEL SECURITY;
CREATE POLICY {table}_read ON {t} FOR SELECT USING (person = current_user OR shared);
CREATE POLICY {table}_add ON {t} FOR INSERT WITH CHECK (person = current_user);
CREATE POLICY {table}_change ON {t} FOR UPDATE
    USING (person = current_user) WITH CHECK (person = current_user);
CREATE POLICY {table}_remove ON {t} FOR DELETE USING (person = current_user);
GRANT SELECT, INSERT, UPDATE, DELETE ON {t} TO {MEMBER};
"""


T003 = f"""
DO $$ BEGIN
    IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = '{MEMBER}') THEN
        CREATE ROLE {MEMBER} NOLOGIN;
    END IF;
END $$;
GRANT USAGE ON SCHEMA {SCHEMA} TO {MEMBER};
GRANT SELECT ON {SCHEMA}.settings, {SCHEMA}.migrations TO {MEMBER};
""" + "".join(_policies(t) for t in _TABLES)
"""Who may read and write what: a member reads their own rows and shared ones, writes
only their own (the person column is their role)."""


class Plan:
    """What `init` is asked for: the model whose vectors the index holds, and its dimension."""

    def __init__(self, model: str, dims: int) -> None:
        self.model = model
        self.dims = dims


MIGRATIONS: list[tuple[str, Callable[[Plan], str]]] = [
    ("t001_initial", lambda plan: T001),
    ("t002_vectors", lambda plan: t002_vectors(plan.dims)),
    ("t003_row_security", lambda plan: T003),
]
"""Append-only: (name, the SQL given the plan)."""


def applied(conn: psycopg.Connection[Any]) -> list[str]:
    """The migrations applied, in order; [] when the schema does not exist."""
    row = conn.execute("SELECT to_regclass(%s)", (f"{SCHEMA}.migrations",)).fetchone()
    if row is None or row[0] is None:
        return []
    return [r[0] for r in conn.execute(f"SELECT name FROM {SCHEMA}.migrations ORDER BY name")]


def init(conn: psycopg.Connection[Any], plan: Plan) -> list[str]:
    """Create or migrate the schema; the names of the migrations applied now.

    Needs the rights of the schema's owner (and, the first time, of a role that may
    create the `vector` and `pg_trgm` extensions). The model is recorded by the first
    run; a later run with another model is refused, whatever is stored.
    """
    import psycopg

    done: list[str] = []
    try:
        with conn.transaction():
            conn.execute("SELECT pg_advisory_xact_lock(%s)", (LOCK,))
            _extensions(conn)
            conn.execute(f"CREATE SCHEMA IF NOT EXISTS {SCHEMA}")
            conn.execute(
                f"CREATE TABLE IF NOT EXISTS {SCHEMA}.migrations"
                " (name text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())"
            )
            have = set(applied(conn))
            if "t001_initial" in have:
                model_check(conn, plan.model)
            for name, sql in MIGRATIONS:
                if name in have:
                    continue
                conn.execute(sql(plan))
                conn.execute(f"INSERT INTO {SCHEMA}.migrations(name) VALUES (%s)", (name,))
                if name == "t001_initial":
                    conn.execute(
                        f"INSERT INTO {SCHEMA}.settings VALUES ('model', %s), ('dims', %s)",
                        (plan.model, str(plan.dims)),
                    )
                done.append(name)
    except psycopg.errors.InsufficientPrivilege as exc:
        raise TeamError(
            f"team index: not allowed to create the schema ({str(exc).strip()}): run "
            "`recall team init` as the database's owner (docs/team.md)"
        ) from None
    except psycopg.Error as exc:
        raise failure(exc) from None
    return done


def _extensions(conn: psycopg.Connection[Any]) -> None:
    import psycopg

    for name in ("vector", "pg_trgm"):
        found = conn.execute("SELECT 1 FROM pg_extension WHERE extname = %s", (name,)).fetchone()
        if found:
            continue
        try:
            with conn.transaction():
                conn.execute(f"CREATE EXTENSION IF NOT EXISTS {name}")
        except psycopg.errors.InsufficientPrivilege:
            raise TeamError(
                f"team index: the {name} extension is not installed in this database and this "
                f"role may not create it: ask a superuser to run `CREATE EXTENSION {name};`"
            ) from None
        except psycopg.errors.UndefinedFile:
            raise TeamError(
                f"team index: the server has no {name} extension: install it "
                f"(pgvector: https://github.com/pgvector/pgvector; docs/team.md)"
            ) from None


def settings(conn: psycopg.Connection[Any]) -> dict[str, str]:
    return dict(conn.execute(f"SELECT key, value FROM {SCHEMA}.settings").fetchall())


def model_check(conn: psycopg.Connection[Any], model: str | None) -> None:
    """TeamError unless the team's vectors are of `model` (None: pushing no vectors)."""
    if model is None:
        return
    have = settings(conn).get("model")
    if have != model:
        raise TeamError(
            f"team index: its vectors are of model {have!r}, this computer's are of {model!r}; "
            "the index never mixes models (push with embedding of the team's model, or "
            'embedding = "none" to push text only)'
        )


def require(conn: psycopg.Connection[Any]) -> None:
    """TeamError unless the schema exists and is one this recall knows."""
    import psycopg

    try:
        names = applied(conn)
    except psycopg.Error as exc:
        raise failure(exc) from None
    known = [name for name, _ in MIGRATIONS]
    if not names:
        raise TeamError("team index: the schema is not there yet: `recall team init` creates it")
    unknown = [n for n in names if n not in known]
    if unknown:
        raise TeamError(
            f"team index: its schema is newer than this recall ({', '.join(unknown)}): "
            "upgrade recall"
        )
    if len(names) < len(known):
        raise TeamError("team index: its schema is older than this recall: `recall team init`")
