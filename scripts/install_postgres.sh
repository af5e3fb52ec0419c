#!/usr/bin/env bash
# PostgreSQL 15 with pg_trgm and pgvector, for the team index's tests (docs/team.md).
#
# Idempotent and fast when everything is in place (a few file checks). On a
# fresh Debian bookworm machine (CI runs as root) it installs Debian's
# postgresql-15 and postgresql-server-dev-15 (pg_trgm ships with the server)
# and builds pgvector from Debian's own source tarball: bookworm has no
# pgvector package. The tarball's SHA-256 is pinned here, copied from
# Debian's pgvector_0.8.0-1.dsc, so a changed download is refused.
set -euo pipefail

PG_MAJOR=15
PG_BIN=/usr/lib/postgresql/$PG_MAJOR/bin
PG_CONFIG=$PG_BIN/pg_config
PGVECTOR_VERSION=0.8.0
PGVECTOR_SHA256=867a2c328d4928a5a9d6f052cd3bc78c7d60228a9b914ad32aa3db88e9de27b0
PGVECTOR_URL=http://deb.debian.org/debian/pool/main/p/pgvector/pgvector_${PGVECTOR_VERSION}.orig.tar.gz

say() { printf 'install_postgres: %s\n' "$*"; }

pgxs_ok() { [ -x "$PG_BIN/postgres" ] && [ -x "$PG_CONFIG" ] && [ -f "$("$PG_CONFIG" --pgxs)" ]; }
sharedir() { "$PG_CONFIG" --sharedir; }

if ! pgxs_ok || [ ! -f "/usr/share/postgresql/$PG_MAJOR/extension/pg_trgm.control" ]; then
    if [ "$(id -u)" != 0 ]; then
        say "PostgreSQL $PG_MAJOR is missing: run as root (or: apt-get install postgresql-$PG_MAJOR postgresql-server-dev-$PG_MAJOR)" >&2
        exit 1
    fi
    say "installing postgresql-$PG_MAJOR and postgresql-server-dev-$PG_MAJOR from Debian"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends \
        "postgresql-$PG_MAJOR" "postgresql-server-dev-$PG_MAJOR" make gcc curl ca-certificates >/dev/null
fi

if [ -f "$(sharedir)/extension/vector.control" ] \
    && grep -q "default_version = '$PGVECTOR_VERSION'" "$(sharedir)/extension/vector.control"; then
    say "PostgreSQL $PG_MAJOR, pg_trgm and pgvector $PGVECTOR_VERSION are installed"
    exit 0
fi
if [ "$(id -u)" != 0 ] && [ ! -w "$(sharedir)/extension" ]; then
    say "pgvector is missing and installing it needs root" >&2
    exit 1
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
say "building pgvector $PGVECTOR_VERSION from Debian's source"
curl -fsSL --retry 3 -o "$work/pgvector.tar.gz" "$PGVECTOR_URL"
echo "$PGVECTOR_SHA256  $work/pgvector.tar.gz" | sha256sum --check --quiet
tar -xzf "$work/pgvector.tar.gz" -C "$work"
# OPTFLAGS: the default -march=native would tie the library to this CPU
make -s -C "$work/pgvector-$PGVECTOR_VERSION" PG_CONFIG="$PG_CONFIG" OPTFLAGS="" >/dev/null
make -s -C "$work/pgvector-$PGVECTOR_VERSION" PG_CONFIG="$PG_CONFIG" OPTFLAGS="" install >/dev/null
say "pgvector $PGVECTOR_VERSION installed into $(sharedir)/extension"
