#!/usr/bin/env bash
# The install paths a new user takes, each in a fresh virtual environment with no
# Rust toolchain on PATH (docs/architecture.md, "Installing"):
#   1. the native (abi3) wheel, as `pipx install recall-sessions` fetches it;
#   2. the pure-Python wheel, the fallback for every other platform;
#   3. a source install on a machine without cargo (`pipx install .` there).
# Each must install from PyPI alone, then run `recall demo` and a search on the
# core it should have. The last one also installs the model in one step and
# searches by meaning. Called by scripts/test.sh; usable alone.
set -euo pipefail
cd "$(dirname "$0")/.."
REPO=$PWD
PY=${PYTHON:-python3}
WORK=$(mktemp -d "${TMPDIR:-/tmp}/recall-install.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
# What a machine without Rust has on PATH: the system's directories only.
BARE_PATH=/usr/local/bin:/usr/bin:/bin
say() { printf '  -- %s\n' "$*"; }

say "building the native wheel (maturin, cargo) and the pure-Python wheel"
"$PY" -m pip wheel --quiet --no-deps -w "$WORK/native" "$REPO"
RECALL_PURE=1 "$PY" -m pip wheel --quiet --no-deps -w "$WORK/pure" "$REPO"
ls "$WORK/native"/*.whl "$WORK/pure"/*-py3-none-any.whl >/dev/null

fresh_venv() {  # fresh_venv NAME -> prints the venv's bin directory
    "$PY" -m venv "$WORK/$1"
    echo "$WORK/$1/bin"
}

check_recall() {  # check_recall BIN EXPECTED_CORE
    local bin=$1 want=$2 home
    home=$(mktemp -d "$WORK/home.XXXXXX")
    env -i PATH="$bin:$BARE_PATH" HOME="$home" RECALL_HOME="$home/recall" \
        "$bin/recall" --version | tee "$home/version"
    grep -q "($want core" "$home/version" || { echo "expected the $want core"; exit 1; }
    env -i PATH="$bin:$BARE_PATH" HOME="$home" RECALL_HOME="$home/recall" \
        "$bin/recall" demo > "$home/demo.out"
    grep -q "Indexed 3 sample sessions" "$home/demo.out" || { cat "$home/demo.out"; exit 1; }
    env -i PATH="$bin:$BARE_PATH" HOME="$home" RECALL_HOME="$home/recall" \
        "$bin/recall" status > "$home/status"
    if [ "$want" = python ]; then  # status says why there is no Rust core
        grep -q "no Rust core" "$home/status" || { cat "$home/status"; exit 1; }
    fi
}

check_model() {  # check_model BIN: the model in one step, then a search by meaning
    local bin=$1 home
    home=$(mktemp -d "$WORK/home.XXXXXX")
    run() { env -i PATH="$bin:$BARE_PATH" HOME="$home" RECALL_HOME="$home/recall" "$bin/recall" "$@"; }
    run model install > /dev/null
    printf '%s\n' \
        '{"session": "s-pandas", "role": "user", "text": "We load the CSV with pandas and group by region."}' \
        '{"session": "s-garden", "role": "user", "text": "My tomato plants have yellow leaves."}' \
        > "$home/chats.jsonl"
    run ingest --format jsonl "$home/chats.jsonl" > /dev/null
    run embed --quiet
    run search "library for data analysis" --json > "$home/hits.json" 2> "$home/hits.err"
    grep -q '"session_id":"s-pandas"' "$home/hits.json" || { cat "$home/hits.json"; exit 1; }
    # hybrid ran: no "semantic search is off" note
    if grep -q "semantic search is off" "$home/hits.err"; then cat "$home/hits.err"; exit 1; fi
}

say "1. the native wheel in a fresh venv, then the model in one step and a hybrid search"
bin=$(fresh_venv native)
env PATH="$bin:$BARE_PATH" "$bin/pip" install --quiet "$WORK"/native/*.whl
check_recall "$bin" rust
check_model "$bin"

say "2. the pure-Python wheel in a fresh venv"
bin=$(fresh_venv pure)
env PATH="$bin:$BARE_PATH" "$bin/pip" install --quiet "$WORK"/pure/*.whl
check_recall "$bin" python

say "3. pipx install . with no cargo on PATH: no toolchain download, the twin"
tools=$(fresh_venv tools)
env PATH="$tools:$BARE_PATH" "$tools/pip" install --quiet pipx
export PIPX_HOME="$WORK/pipx" PIPX_BIN_DIR="$WORK/pipx-bin"
env PATH="$tools:$BARE_PATH" "$tools/pipx" install --pip-args=--log="$WORK/source.log" "$REPO" \
    > "$WORK/pipx.out" 2>&1 || { cat "$WORK/pipx.out"; exit 1; }
if grep -qi puccinialin "$WORK/source.log"; then echo "a Rust toolchain was fetched"; exit 1; fi
# every URL pip fetched is PyPI's (the index or its file host), nothing else
if grep -oE 'https?://[^/ ]+' "$WORK/source.log" | sort -u \
    | grep -vE '^https://(pypi\.org|files\.pythonhosted\.org)(:443)?$'; then
    echo "the source install reached a host other than PyPI"; exit 1
fi
check_recall "$PIPX_BIN_DIR" python
check_model "$PIPX_BIN_DIR"
say "every install path works"
