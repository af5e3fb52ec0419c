#!/usr/bin/env bash
# PostgreSQL 15 with pg_trgm and pgvector, for the team index's tests (docs/team.md).
#
# Idempotent and fast when everything is in place (a few file checks). On a
# fresh Debian bookworm machine (CI runs as root; elsewhere passwordless sudo
# does) it installs Debian's postgresql-15 (pg_trgm ships with the server)
# and builds pgvector from Debian's own source tarball: bookworm has no
# pgvector package. The tarball's SHA-256 is pinned here, copied from
# Debian's pgvector_0.8.0-1.dsc, so a changed download is refused.
#
# Lean on purpose: the build needs only the server's headers, so
# postgresql-server-dev-15 is downloaded and unpacked into a temporary
# directory, never installed (installing it pulls clang and LLVM for JIT
# bitcode: about 70 MB to download, 440 MB on disk); pgvector is built without
# JIT bitcode (`with_llvm=no`). Measured on a fresh bookworm: docs/team.md.
#
# Exit status 3: this machine cannot have PostgreSQL 15 this way (no apt, or
# no postgresql-15 in it); scripts/test.sh then lets the team's tests skip,
# saying why. Any other failure is an error.
set -euo pipefail

PG_MAJOR=15
PG_BIN=/usr/lib/postgresql/$PG_MAJOR/bin
PG_CONFIG=$PG_BIN/pg_config
PGVECTOR_VERSION=0.8.0
PGVECTOR_SHA256=867a2c328d4928a5a9d6f052cd3bc78c7d60228a9b914ad32aa3db88e9de27b0
PGVECTOR_URL=http://deb.debian.org/debian/pool/main/p/pgvector/pgvector_${PGVECTOR_VERSION}.orig.tar.gz

say() { printf 'install_postgres: %s\n' "$*"; }

as_root() {
    if [ "$(id -u)" = 0 ]; then
        "$@"
    elif command -v sudo >/dev/null && sudo -n true 2>/dev/null; then
        sudo -n "$@"
    else
        say "installing needs root (or passwordless sudo): $*" >&2
        exit 1
    fi
}

server_ok() {
    [ -x "$PG_BIN/postgres" ] && [ -x "$PG_CONFIG" ] && [ -f "$("$PG_CONFIG" --pgxs)" ] \
        && [ -f "$("$PG_CONFIG" --sharedir)/extension/pg_trgm.control" ]
}

vector_ok() {
    grep -qs "default_version = '$PGVECTOR_VERSION'" "$("$PG_CONFIG" --sharedir)/extension/vector.control"
}

if server_ok && vector_ok; then
    say "PostgreSQL $PG_MAJOR, pg_trgm and pgvector $PGVECTOR_VERSION are installed"
    exit 0
fi
if ! command -v apt-get >/dev/null; then
    say "cannot install PostgreSQL $PG_MAJOR here: no apt-get (Debian or Ubuntu only)" >&2
    exit 3
fi

export DEBIAN_FRONTEND=noninteractive
as_root apt-get update -qq
if ! apt-cache show "postgresql-$PG_MAJOR" >/dev/null 2>&1; then
    say "cannot install PostgreSQL $PG_MAJOR here: apt has no postgresql-$PG_MAJOR" >&2
    exit 3
fi
if ! server_ok; then
    say "installing postgresql-$PG_MAJOR from Debian"
    as_root apt-get install -y -qq --no-install-recommends \
        "postgresql-$PG_MAJOR" make gcc libc6-dev curl ca-certificates >/dev/null
fi
if vector_ok; then
    say "PostgreSQL $PG_MAJOR, pg_trgm and pgvector $PGVECTOR_VERSION are installed"
    exit 0
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
headers=$("$PG_CONFIG" --includedir-server)
if [ ! -f "$headers/postgres.h" ]; then  # unpacked, not installed (see the top)
    # as root apt would hand the download to its sandbox user, who cannot write here
    (cd "$work" && apt-get -o APT::Sandbox::User="$(id -un)" download -qq \
        "postgresql-server-dev-$PG_MAJOR" >/dev/null)
    dpkg-deb -x "$work"/postgresql-server-dev-"$PG_MAJOR"_*.deb "$work/dev"
    headers=$work/dev$headers
fi
say "building pgvector $PGVECTOR_VERSION from Debian's source"
curl -fsSL --retry 3 -o "$work/pgvector.tar.gz" "$PGVECTOR_URL"
echo "$PGVECTOR_SHA256  $work/pgvector.tar.gz" | sha256sum --check --quiet
tar -xzf "$work/pgvector.tar.gz" -C "$work"
# OPTFLAGS: the default -march=native would tie the library to this CPU
build=(-s -C "$work/pgvector-$PGVECTOR_VERSION" PG_CONFIG="$PG_CONFIG" OPTFLAGS=""
    with_llvm=no includedir_server="$headers")
make "${build[@]}" -j"$(nproc 2>/dev/null || echo 2)" >/dev/null
as_root make "${build[@]}" install >/dev/null
say "pgvector $PGVECTOR_VERSION installed into $("$PG_CONFIG" --sharedir)/extension"
