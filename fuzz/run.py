"""Run the fuzz targets for a bounded time, as the test gate does.

    python fuzz/run.py                      # every target, 40 s in all
    python fuzz/run.py --seconds 300 rank   # one target, longer
    python fuzz/run.py --replay rank fuzz/crashes/rank-1a2b…   # rerun a failure

With atheris installed (the dev extra on Linux x86-64) each target runs
coverage-guided under libFuzzer, in a process of its own, for an equal share
of the time. Without it (macOS, Windows) a seeded mutation loop runs the
same targets over the same seeds for the same time: not coverage-guided, but
the same properties. (cargo-fuzz would need nightly Rust; the Rust code is
reached through the binding instead, against the Python twin.) Seeds are the
shared fixtures' transcripts and the texts inside them; the fixtures are only
read. A failing input is saved in fuzz/crashes/ and the run exits 1.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import time
import traceback
from pathlib import Path

FUZZ = Path(__file__).resolve().parent
REPO = FUZZ.parent
SHARED = Path(os.environ.get("RECALL_SHARED", REPO.parent / "shared")).resolve()
TRANSCRIPTS = SHARED / "fixtures" / "transcripts"
CRASHES = FUZZ / "crashes"
NAMES = ("rank", "reminders", "adapters", "query", "mcp")
TOKENS = [b'"', b"{", b"}", b"[", b"]", b":", b",", b"\n", b"\\", b"\\ud83d", b"\xff", b"\x1e"]
TOKENS += [b"<system-reminder>", b"</system-reminder>", b'"type"', b'"text"', b'"content"']
TOKENS += [b'"role":"user"', b'"message"', b"AND", b"NEAR(", b"*", b"-", "日本語".encode()]
TOKENS += [b"\\ud800", b'"id":', b'"method":"tools/call"', b'"arguments":', b"NaN", b"1e999"]
MCP_TOOLS = {
    "search_history": {"query": "retry backoff", "scope": "all", "date_from": "2026-01-01",
                       "date_to": "2026-12-31", "max_results": 5, "agent": "claude",
                       "project": "/srv/app"},
    "show_session": {"session": "s1", "start": 0},
    "remember": {"text": "the queue is NATS JetStream", "category": "fact", "importance": 7},
    "search_memories": {"query": "queue", "limit": 3},
}  # fmt: skip
"""The `mcp` target's seeds: one call of each tool, as a model would send it."""


def mcp_seeds() -> list[bytes]:
    """Lines a client sends: the handshake, a ping, the tool list and each tool's call."""
    msgs: list[dict[str, object]] = [
        {"method": "initialize", "params": {"protocolVersion": "2025-06-18"}},
        {"method": "ping"},
        {"method": "tools/list"},
    ]
    msgs += [
        {"method": "tools/call", "params": {"name": name, "arguments": args}}
        for name, args in MCP_TOOLS.items()
    ]
    lines = [
        json.dumps({"jsonrpc": "2.0", "id": n, **m}).encode() + b"\n" for n, m in enumerate(msgs)
    ]
    return [*lines, b"".join(lines)]


def seeds(target: str) -> list[bytes]:
    """Starting inputs: transcript files for adapters, client lines for mcp, texts for the
    rest."""
    if target == "mcp":
        return mcp_seeds()
    files = sorted(p for p in TRANSCRIPTS.rglob("*") if p.is_file() and p.suffix != ".md")
    files += sorted((REPO / "python" / "recall" / "demo").glob("*.jsonl"))
    if target == "adapters":
        return [p.read_bytes()[: 1 << 16] for p in files]
    texts: list[str] = []
    for p in files:
        for line in p.read_text("utf-8", "surrogateescape").splitlines()[:50]:
            try:
                texts.extend(v for v in json.loads(line).values() if isinstance(v, str))
            except (ValueError, AttributeError):
                texts.append(line[:200])
    texts = texts[:400]
    if target == "rank":
        groups = ["\x1e".join(texts[i : i + 6]) for i in range(0, len(texts), 6)]
        return [b"\x0c\x07\x08\x00" + g.encode("utf-8", "surrogateescape") for g in groups]
    return [b"\x00" + t.encode("utf-8", "surrogateescape") for t in texts]


def mutate(data: bytes, rng: random.Random, pool: list[bytes]) -> bytes:
    out = bytearray(data)
    for _ in range(rng.randint(1, 8)):
        at = rng.randint(0, len(out))
        op = rng.randrange(6)
        if op == 0 and out:
            out[min(at, len(out) - 1)] = rng.randrange(256)
        elif op == 1:
            out[at:at] = rng.choice(TOKENS)
        elif op == 2:
            del out[at : at + rng.randint(1, 64)]
        elif op == 3:
            other = rng.choice(pool)
            start = rng.randint(0, len(other))
            out[at:at] = other[start : start + rng.randint(1, 256)]
        elif op == 4:
            out[at:at] = bytes(rng.randrange(256) for _ in range(rng.randint(1, 8)))
        else:
            del out[at:]
    return bytes(out[: 1 << 16])


def save(target: str, data: bytes) -> Path:
    CRASHES.mkdir(exist_ok=True)
    path = CRASHES / f"{target}-{abs(hash(data)):016x}"
    path.write_bytes(data)
    return path


def loop(target: str, seconds: float) -> int:
    """The fallback driver: seeded mutations of the seeds until the time is up."""
    from targets import TARGETS

    run, pool, rng = TARGETS[target], seeds(target), random.Random(1234)
    deadline, runs = time.monotonic() + seconds, 0
    for data in pool:
        run(data)
    while time.monotonic() < deadline:
        data = mutate(rng.choice(pool), rng, pool)
        try:
            run(data)
        except Exception:
            traceback.print_exc()
            print(f"{target}: FAILED, input saved to {save(target, data)}")
            return 1
        runs += 1
        if runs % 50 == 0:
            pool.append(data)
    print(f"{target}: {runs} inputs in {seconds:.0f} s (mutation loop), no failure")
    return 0


def libfuzzer(target: str, seconds: float) -> int:
    """The atheris driver: coverage-guided, exits non-zero and saves the input on failure."""
    import atheris  # type: ignore[import-untyped,unused-ignore]

    with atheris.instrument_imports(include=["recall", "targets"]):
        from targets import TARGETS
    CRASHES.mkdir(exist_ok=True)
    with tempfile.TemporaryDirectory(prefix=f"fuzz-{target}-") as corpus:
        for n, data in enumerate(seeds(target)):
            Path(corpus, f"seed-{n}").write_bytes(data)
        flags = [f"-max_total_time={int(seconds)}", "-timeout=20", "-max_len=65536"]
        if target == "mcp":  # JSON-RPC's words: random bytes seldom make a request
            words = Path(tempfile.gettempdir(), "recall-fuzz-mcp.dict")  # one, rewritten
            words.write_text("".join(f'"{_dict_entry(t)}"\n' for t in TOKENS), "ascii")
            flags.append(f"-dict={words}")
        flags += [f"-artifact_prefix={CRASHES}/{target}-", "-print_final_stats=0", corpus]
        atheris.Setup([sys.argv[0], *flags], TARGETS[target])
        atheris.Fuzz()
    return 0


def _dict_entry(token: bytes) -> str:
    """A libFuzzer dictionary entry: printable ASCII as is, other bytes as \\xNN."""
    return "".join(chr(b) if 32 <= b < 127 and b not in b'"\\' else f"\\x{b:02x}" for b in token)


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("targets", nargs="*", metavar="TARGET", help=f"any of {', '.join(NAMES)}")
    p.add_argument("--seconds", type=float, default=40.0, help="total, shared by the targets")
    p.add_argument("--replay", nargs=2, metavar=("TARGET", "FILE"), help="rerun one input")
    p.add_argument("--worker", metavar="TARGET", help=argparse.SUPPRESS)
    p.add_argument("--engine", choices=("auto", "atheris", "loop"), default="auto")
    args = p.parse_args()
    sys.path.insert(0, str(FUZZ))
    if args.replay:
        from targets import TARGETS

        TARGETS[args.replay[0]](Path(args.replay[1]).read_bytes())
        print("no failure")
        return 0
    if args.worker:
        if args.engine == "loop":
            return loop(args.worker, args.seconds)
        return libfuzzer(args.worker, args.seconds)
    engine = args.engine
    if engine == "auto":
        try:
            import atheris  # type: ignore[import-untyped,unused-ignore]  # noqa: F401
        except ImportError:
            engine = "loop"
        else:
            engine = "atheris"
    names = args.targets or list(NAMES)
    if unknown := set(names) - set(NAMES):
        p.error(f"unknown target {sorted(unknown)[0]!r} (known: {', '.join(NAMES)})")
    share = args.seconds / len(names)
    failed = []
    for name in names:
        cmd = [sys.executable, __file__, "--worker", name, "--engine", engine]
        proc = subprocess.run([*cmd, "--seconds", str(share)], capture_output=True, text=True)
        lines = (proc.stdout + proc.stderr).strip().splitlines()
        done = [x for x in lines if x.startswith("Done ") or x.startswith(f"{name}:")]
        print(f"{name} ({engine}): " + (done[-1] if done else f"exit {proc.returncode}"))
        if proc.returncode != 0:
            print("\n".join(lines[-40:]))
            failed.append(name)
    print("fuzz: " + (f"FAILED {', '.join(failed)}" if failed else "no failures"))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
