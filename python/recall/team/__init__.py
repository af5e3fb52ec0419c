"""A team's index on PostgreSQL (opt-in, docs/team.md): what leaves this computer and how.

`connect` (the DSN, the password from an environment variable or a file, the
driver), `schema` (versioned, append-only migrations of the team's tables,
row-level security), `local` (what this computer may push: allow-listed
projects' mirrors, already redacted, with their vectors), `push` (upsert by
person, computer and session; what went away locally is deleted),
`search` (full text, trigrams and pgvector fused in one SQL statement,
returning the same `Result` records as local search), `mirror` (one
session back, for `show --team`) and `status`. Only this package imports
psycopg, and only when a team is configured.
"""
