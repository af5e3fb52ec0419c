"""Parse-and-extract speed per core, beside `grep -c`, and where `recall sync` spends its time.

    python bench/parse_bench.py                          # /work/main/bench/data/10k if present
    python bench/parse_bench.py --corpus bench/data/1k   # any bench/corpus.py output
    python bench/parse_bench.py --sync-sessions 2000     # sync part on the first N transcripts

Every figure has its baseline measured in the same run (machines are shared
and noisy); the ratios are what to compare across runs.

1. Parse and extract, in-process: every transcript of the corpus read from
   disk and parsed from offset 0 by its adapter (`adapter.parse`, exactly
   what ingest calls), once with the Rust core and once with the pure-Python
   twin; best of `--runs`. Also the parse alone (bytes already in memory).
2. `grep -c '"type"'` over the same files (LC_ALL=C, page cache warm): the
   cost of merely reading and scanning the bytes.
2b. The same three from disk: before each, every file is written back and
   dropped from the page cache (`posix_fadvise(DONTNEED)`, no root needed),
   so each reads the bytes cold, as the first sync after a reboot does.
3. `recall sync` into an empty index as a whole process, per core, on the
   first `--sync-sessions` transcripts (a stand-in HOME of symlinks), and the
   same sync in-process with `ingest.prepare` (read + parse) and
   `ingest.commit` (SQLite upserts, FTS5 triggers) timed separately.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from recall import _accel
from recall.agents import ADAPTERS, Adapter

TWIN = _accel.twin()

try:
    from recall import _core  # type: ignore[attr-defined]
except ImportError:  # pragma: no cover
    sys.exit("the Rust core is not built: pip install -e . first")

HERE = Path(__file__).resolve().parent
SHARED_10K = Path("/work/main/bench/data/10k")
ROOTS = {"claude": ".claude/projects", "codex": ".codex/sessions", "gemini": ".gemini/tmp"}
CORES = {"rust": _core, "python": TWIN}


def corpus_files(root: Path) -> list[tuple[Adapter, Path]]:
    files = []
    for agent, sub in ROOTS.items():
        if (root / sub).is_dir():
            adapter = ADAPTERS[agent]
            files.extend((adapter, p) for p in adapter.discover(root / sub))
    return files


def use_core(name: str) -> None:
    """Point the adapters' shared layer at one core, in this process."""
    _accel.parse_transcript = CORES[name].parse_transcript


def best(fn: Callable[[], float], runs: int) -> float:
    return min(fn() for _ in range(runs))


def parse_all(files: list[tuple[Adapter, Path]], core: str) -> tuple[float, int]:
    use_core(core)
    messages = 0
    t0 = time.perf_counter()
    for adapter, path in files:
        parsed = adapter.parse(path, path.read_bytes(), 0, {})
        messages += sum(len(p.messages) for p in parsed.parts)
    return time.perf_counter() - t0, messages


def parse_only(blobs: list[tuple[Adapter, Path, bytes]], core: str) -> float:
    use_core(core)
    t0 = time.perf_counter()
    for adapter, path, data in blobs:
        adapter.parse(path, data, 0, {})
    return time.perf_counter() - t0


def grep_all(files: list[tuple[Adapter, Path]]) -> float:
    args = [str(p) for _, p in files]
    env = dict(os.environ, LC_ALL="C")
    t0 = time.perf_counter()
    for i in range(0, len(args), 2000):  # stay under ARG_MAX
        subprocess.run(
            ["grep", "-c", '"type"', *args[i : i + 2000]],
            env=env,
            stdout=subprocess.DEVNULL,
            check=False,
        )
    return time.perf_counter() - t0


def evict(files: list[tuple[Adapter, Path]]) -> None:
    """Drop the files from the page cache (needs `os.posix_fadvise`)."""
    for _, path in files:
        fd = os.open(path, os.O_RDONLY)
        try:
            os.fdatasync(fd)  # dirty pages cannot be dropped
            os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
        finally:
            os.close(fd)


def cold(files: list[tuple[Adapter, Path]], measure: Callable[[], float]) -> float:
    evict(files)
    return measure()


def from_disk(files: list[tuple[Adapter, Path]], mb: float, warm_grep: float) -> dict[str, float]:
    """grep and both cores each reading the corpus cold: the speed of the disk."""
    if not hasattr(os, "posix_fadvise"):
        print("  from disk: this OS cannot drop files from the page cache; skipped")
        return {}
    took = {
        "grep": cold(files, lambda: grep_all(files)),
        "rust": cold(files, lambda: parse_all(files, "rust")[0]),
        "python": cold(files, lambda: parse_all(files, "python")[0]),
    }
    for name, s in took.items():
        print(f"  from disk, {name:6}: {s:6.2f}s  {mb / s:7.0f} MB/s")
    if took["grep"] < 2 * warm_grep:
        print("  (grep was not slower cold: the page cache was not dropped; ratios are warm)")
    ratio = took["rust"] / took["grep"]
    print(f"  from disk, rust vs grep -c: {ratio:.1f}x grep's time (target <= 3x)")
    print(f"  from disk, rust vs python: {took['python'] / took['rust']:.1f}x faster")
    return took


def stand_in_home(root: Path, files: list[tuple[Adapter, Path]], home: Path) -> None:
    """A HOME holding symlinks to `files` in their agent layouts (plus `.meta.json` siblings)."""
    for _, path in files:
        rel = path.relative_to(root)
        (home / rel).parent.mkdir(parents=True, exist_ok=True)
        (home / rel).symlink_to(path)
        meta = path.with_name(path.stem + ".meta.json")
        if meta.exists():
            (home / rel).with_name(meta.name).symlink_to(meta)
    for marker in root.glob(".gemini/tmp/*/.project_root"):
        target = home / marker.relative_to(root)
        if target.parent.exists():
            target.symlink_to(marker)


def sync_process(home: Path, impl: str) -> float:
    data = Path(tempfile.mkdtemp(prefix=f"recall-sync-{impl}-"))
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("CLAUDE_CONFIG_DIR", "CODEX_HOME", "GEMINI_CLI_HOME")
    }
    env.update(HOME=str(home), RECALL_HOME=str(data), RECALL_IMPL=impl, RECALL_COMPUTER="bench")
    recall = [sys.executable, "-m", "recall"]
    t0 = time.perf_counter()
    subprocess.run(
        [*recall, "sync", "--no-embed"],
        env=env,
        check=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    took = time.perf_counter() - t0
    shutil.rmtree(data)
    return took


def sync_breakdown(home: Path, impl: str) -> dict[str, float]:
    """In-process sync with its stages timed: read+parse, SQLite commit, the rest."""
    import recall.sync as sync_mod
    from recall.store import open_writer

    use_core(impl)
    spent = {"prepare": 0.0, "commit": 0.0}
    real_prepare, real_commit = sync_mod.prepare, sync_mod.commit

    def timed(name: str, fn: Callable[..., Any]) -> Callable[..., Any]:
        def wrapper(*args: Any, **kw: Any) -> Any:
            t0 = time.perf_counter()
            try:
                return fn(*args, **kw)
            finally:
                spent[name] += time.perf_counter() - t0

        return wrapper

    data = Path(tempfile.mkdtemp(prefix=f"recall-breakdown-{impl}-"))
    saved = {k: os.environ.get(k) for k in ("HOME", "RECALL_HOME")}
    os.environ.update(HOME=str(home), RECALL_HOME=str(data))
    sync_mod.prepare, sync_mod.commit = timed("prepare", real_prepare), timed("commit", real_commit)
    try:
        with open_writer() as store:
            t0 = time.perf_counter()
            sync_mod.sync(store, "bench")
            total = time.perf_counter() - t0
    finally:
        sync_mod.prepare, sync_mod.commit = real_prepare, real_commit
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
        shutil.rmtree(data)
    return {**spent, "other": total - spent["prepare"] - spent["commit"], "total": total}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument(
        "--corpus", type=Path, default=SHARED_10K if SHARED_10K.is_dir() else HERE / "data" / "1k"
    )
    p.add_argument("--runs", type=int, default=2)
    p.add_argument("--sync-sessions", type=int, default=2000)
    p.add_argument("--no-sync", action="store_true")
    p.add_argument("--no-disk", action="store_true", help="skip the cold-cache measurements")
    args = p.parse_args(argv)
    args.corpus = args.corpus.resolve()  # the sync part links to these files
    files = corpus_files(args.corpus)
    if not files:
        print(
            f"no transcripts under {args.corpus}; make some with bench/corpus.py", file=sys.stderr
        )
        return 2
    nbytes = sum(path.stat().st_size for _, path in files)
    mb = nbytes / 1e6
    print(f"corpus {args.corpus}: {len(files)} transcripts, {mb:.0f} MB", flush=True)
    out: dict[str, Any] = {"corpus": str(args.corpus), "files": len(files), "bytes": nbytes}

    grep_all(files)  # warm the page cache
    grep_s = best(lambda: grep_all(files), args.runs)
    read_parse = {}
    for core in ("rust", "python"):
        took, msgs = min(parse_all(files, core) for _ in range(args.runs))
        read_parse[core] = took
        out[f"{core}_messages"] = msgs
        print(
            f"  read+parse {core:6}: {took:6.2f}s  {mb / took:7.0f} MB/s  ({msgs} messages)",
            flush=True,
        )
    if out["rust_messages"] != out["python_messages"]:
        raise RuntimeError("the cores extracted different numbers of messages")
    print(f"  grep -c      : {grep_s:6.2f}s  {mb / grep_s:7.0f} MB/s")
    ratio_py = read_parse["python"] / read_parse["rust"]
    ratio_grep = read_parse["rust"] / grep_s
    print(f"  rust vs python: {ratio_py:.1f}x faster (target >= 3x)")
    print(f"  rust vs grep -c: {ratio_grep:.1f}x grep's time (target <= 3x)")
    out.update(
        grep_s=grep_s, read_parse_s=read_parse, python_over_rust=ratio_py, rust_over_grep=ratio_grep
    )
    if not args.no_disk:
        out["from_disk_s"] = from_disk(files, mb, grep_s)
        grep_all(files)  # warm again for what follows

    sample = files[: min(len(files), 1500)]
    blobs = [(a, p, p.read_bytes()) for a, p in sample]
    sample_mb = sum(len(b) for _, _, b in blobs) / 1e6
    parse_s = {core: best(lambda c=core: parse_only(blobs, c), args.runs) for core in CORES}
    rust_mbs, py_mbs = sample_mb / parse_s["rust"], sample_mb / parse_s["python"]
    print(
        f"  parse only ({len(blobs)} files, {sample_mb:.0f} MB in memory):"
        f" rust {rust_mbs:.0f} MB/s, python {py_mbs:.0f} MB/s, {rust_mbs / py_mbs:.1f}x"
    )
    out["parse_only_s"] = parse_s
    out["parse_only_mb"] = sample_mb

    if not args.no_sync:
        subset = files[: args.sync_sessions]
        sub_mb = sum(path.stat().st_size for _, path in subset) / 1e6
        with tempfile.TemporaryDirectory(prefix="recall-home-") as tmp:
            home = Path(tmp)
            stand_in_home(args.corpus, subset, home)
            print(f"recall sync on {len(subset)} transcripts ({sub_mb:.0f} MB):", flush=True)
            wall = {impl: sync_process(home, impl) for impl in ("rust", "python")}
            for impl, took in wall.items():
                print(f"  recall sync {impl:6}: {took:6.2f}s  {sub_mb / took:5.0f} MB/s")
            print(
                f"  sync rust vs python: {wall['python'] / wall['rust']:.2f}x faster (target >= 2x)"
            )
            parts = {impl: sync_breakdown(home, impl) for impl in ("rust", "python")}
            for impl, b in parts.items():
                share = ", ".join(
                    f"{k} {v:.2f}s ({100 * v / b['total']:.0f}%)"
                    for k, v in b.items()
                    if k != "total"
                )
                print(f"  in-process {impl:6}: {b['total']:.2f}s = {share}")
        out.update(sync_mb=sub_mb, sync_s=wall, sync_breakdown=parts)

    dest = HERE / "out"
    dest.mkdir(exist_ok=True)
    (dest / f"parse-{time.strftime('%Y%m%d-%H%M%S')}.json").write_text(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
