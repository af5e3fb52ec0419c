"""Which source answers first when sessions, memories and files compete: the merge weights.

The mixed-source set (`eval_data/mixed_sources.txt`, its header says how it
is built) goes in as a user's would: its sessions, the agent-decisions
sessions and the fixture transcripts through `recall ingest`; its memories
through `recall remember`; its guidance files written into the projects'
directories and MEMORY.md into the data directory, indexed by `recall sync`
(with the agents' own folders pointed at empty ones, so nothing of this
machine's comes in). Each question is asked through `recall search Q --json`
itself (`eval_common.search_as_user`) at a user's default flags (scope all,
limit 10); the right answer is sometimes a memory, sometimes a file section,
sometimes a session. For the current weights and each alternative in the
grid, the index is copied into a RECALL_HOME whose config.toml sets
`[search] weights`, and top-1 / top-3 accuracy is reported overall and per
kind of right answer.

    python bench/eval_sources.py [--modes keyword,hybrid] [--weights name:memory=1,file=0.9]
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import re
import shutil
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import eval_common as ec
import eval_decisions as dec

DATA = Path(__file__).resolve().parent / "eval_data" / "mixed_sources.txt"
KINDS = ("memory", "file", "session")
GRID = {
    "current": {},
    "all equal (1.0)": {
        "memory": 1.0,
        "memory_file": 1.0,
        "daily_log": 1.0,
        "file": 1.0,
        "message": 1.0,
        "session": 1.0,
    },
    "sessions up (msg 0.8, ses 0.7)": {"message": 0.8, "session": 0.7},
    "sessions down (msg 0.4, ses 0.3)": {"message": 0.4, "session": 0.3},
    "memories down (0.8)": {"memory": 0.8, "memory_file": 0.8},
    "files up (0.9)": {"file": 0.9},
    "files down (0.5)": {"file": 0.5},
    "memories 0.8, files 0.8": {"memory": 0.8, "memory_file": 0.8, "file": 0.8},
    "memories 0.8, msg 0.7, ses 0.6": {
        "memory": 0.8,
        "memory_file": 0.8,
        "message": 0.7,
        "session": 0.6,
    },
}
"""Weights to try, each over recall's defaults (`search.sources.WEIGHTS`)."""

_OPEN = re.compile(r"^@@ (session|memory|file|question) (.+)$")


class MixedSet:
    """The parsed set: sessions, memories, files and labelled questions."""

    def __init__(self, text: str) -> None:
        self.sessions: dict[str, dict[str, Any]] = {}
        self.memories: dict[str, dict[str, Any]] = {}
        self.files: dict[str, str] = {}
        self.questions: dict[str, tuple[str, list[str]]] = {}
        bodies: dict[str, list[str]] = {}
        body: list[str] | None = None
        for line in text.splitlines():
            m = _OPEN.match(line)
            if m is None:
                if body is not None:
                    body.append(line)
                elif line.strip() and not line.startswith("#"):
                    raise SystemExit(f"mixed set: line outside any block: {line!r}")
                continue
            what, rest = m[1], m[2]
            fields = [f.strip() for f in rest.split("|")]
            body = []
            if what == "session":
                self.sessions[fields[0]] = {"project": fields[1], "date": fields[2], "body": body}
            elif what == "memory":
                self.memories[fields[0]] = {
                    "project": None if fields[1] == "-" else fields[1],
                    "category": fields[2],
                    "importance": fields[3],
                    "body": body,
                }
            elif what == "file":
                bodies[fields[0]] = body
            else:
                self.questions[fields[0]] = (fields[2], fields[1].split(","))
                body = None
        self.files = {k: "\n".join(v).strip() + "\n" for k, v in bodies.items()}
        self._check()

    def _check(self) -> None:
        for qid, (_, golds) in self.questions.items():
            for gold in golds:
                kind, _, ref = gold.partition(":")
                known = {
                    "session": self.sessions,
                    "memory": self.memories,
                    "file": {f"{name}#" for name in self.files},
                }.get(kind)
                ok = known is not None and (
                    ref in known if kind != "file" else ref.split("#")[0] + "#" in known
                )
                if not ok:
                    raise SystemExit(f"mixed set: {qid}'s gold {gold!r} names nothing in the set")

    def turns(self, sid: str) -> list[tuple[str, str]]:
        out: list[tuple[str, str]] = []
        for line in self.sessions[sid]["body"]:
            if line.startswith(("U: ", "A: ")):
                out.append(("user" if line[0] == "U" else "assistant", line[3:].strip()))
            elif line.strip() and out:
                out[-1] = (out[-1][0], out[-1][1] + "\n" + line)
        return out

    def import_lines(self, projects: Path) -> str:
        lines = []
        for sid, s in self.sessions.items():
            for n, (role, text) in enumerate(self.turns(sid)):
                rec = {
                    "session": sid,
                    "role": role,
                    "text": text,
                    "timestamp": f"{s['date']}T09:{n // 60:02d}:{n % 60:02d}+00:00",
                    "agent": "mixed",
                    "project": str(projects / s["project"]),
                }
                lines.append(json.dumps(rec, ensure_ascii=False))
        return "\n".join(lines) + "\n"


def kind_of(golds: list[str]) -> str:
    return golds[0].partition(":")[0]


def recall_cmd(*argv: str) -> str:
    """Run `recall ARGV...` in-process; its stdout, or SystemExit with its stderr."""
    from recall.cli import main as recall_main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = recall_main(list(argv))
    if code != 0:
        raise SystemExit(f"recall {' '.join(argv[:2])} failed ({code}): {err.getvalue()}")
    return out.getvalue()


@contextlib.contextmanager
def no_agent_folders(home: Path) -> Iterator[None]:
    """Point every agent's transcript folder at an empty one while `recall sync` runs."""
    names = ("CLAUDE_CONFIG_DIR", "CODEX_HOME", "GEMINI_CLI_HOME")
    saved = {n: os.environ.get(n) for n in names}
    for n in names:
        (home / "agents" / n).mkdir(parents=True, exist_ok=True)
        os.environ[n] = str(home / "agents" / n)
    try:
        yield
    finally:
        for n, v in saved.items():
            if v is None:
                os.environ.pop(n, None)
            else:
                os.environ[n] = v


def build(home: Path, mixed: MixedSet, embed: bool) -> dict[str, str]:
    """Index the whole set in `home` as a user would; memory label → memory id."""
    projects = home / "projects"
    for name in {s["project"] for s in mixed.sessions.values()}:
        (projects / name).mkdir(parents=True, exist_ok=True)
    background = dec.Corpus(dec.DATA.read_text(encoding="utf-8"))
    extra = [(a, dec.FIXTURES / a) for a in dec.DISTRACTORS]
    ec.ingest(home, mixed.import_lines(projects) + background.import_lines(), extra)
    ids = {}
    for label, m in mixed.memories.items():
        flags = ["--category", m["category"], "--importance", m["importance"], "--json"]
        if m["project"]:
            flags += ["--project", str(projects / m["project"])]
        out = recall_cmd("remember", "\n".join(m["body"]).strip(), *flags)
        ids[label] = str(json.loads(out)["memory"]["id"])
    for name, text in mixed.files.items():
        path = home / name if name == "MEMORY.md" else projects / name
        path.write_text(text, encoding="utf-8")
    with no_agent_folders(home):
        recall_cmd("sync", "--quiet", *(() if embed else ("--no-embed",)))
    return ids


def matches(result_id: str, gold: str, ids: dict[str, str]) -> bool:
    kind, _, ref = gold.partition(":")
    if kind == "session":
        return result_id == ref
    if kind == "memory":
        return result_id == f"memory:{ids[ref]}"
    name, _, heading = ref.partition("#")
    path, _, got = result_id.removeprefix("file:").partition("#")
    return result_id.startswith("file:") and path.endswith("/" + name) and got == heading


def rank_of(results: list[str], golds: list[str], ids: dict[str, str]) -> int | None:
    """1-based rank of the first right answer, None when none is in the results."""
    for n, r in enumerate(results, 1):
        if any(matches(r, g, ids) for g in golds):
            return n
    return None


def score(
    mixed: MixedSet, ids: dict[str, str], flags: tuple[str, ...]
) -> dict[str, tuple[int | None, str]]:
    """Each question's rank of its right answer and the kind of the first result."""
    out = {}
    for qid, (question, golds) in mixed.questions.items():
        results = ec.search_as_user(question, *flags)
        found = [ec.result_id(r) for r in results]
        first = results[0]["source"] if results else "-"
        out[qid] = (rank_of(found, golds, ids), first)
    return out


def with_weights(home: Path, weights: dict[str, float], into: Path) -> Path:
    """A copy of the index in `into` whose config sets `[search] weights`."""
    shutil.copytree(home, into, ignore=shutil.ignore_patterns("projects", "agents", "*.log"))
    if weights:
        inner = ", ".join(f"{k} = {v}" for k, v in weights.items())
        (into / "config.toml").write_text(f"[search]\nweights = {{ {inner} }}\n", encoding="utf-8")
    return into


@contextlib.contextmanager
def recall_home(path: Path) -> Iterator[None]:
    saved = os.environ.get("RECALL_HOME")
    os.environ["RECALL_HOME"] = str(path)
    try:
        yield
    finally:
        if saved is not None:
            os.environ["RECALL_HOME"] = saved


def summary(mixed: MixedSet, ranks: dict[str, tuple[int | None, str]]) -> dict[str, float]:
    """top-1 and top-3 accuracy, overall and per kind of right answer."""
    out: dict[str, float] = {}
    groups: dict[str, list[str]] = {"all": list(mixed.questions)}
    for kind in KINDS:
        groups[kind] = [q for q, (_, g) in mixed.questions.items() if kind_of(g) == kind]
    for name, qids in groups.items():
        for k in (1, 3):
            hit = sum(1 for q in qids if (r := ranks[q][0]) is not None and r <= k)
            out[f"{name}@{k}"] = hit / len(qids) if qids else 0.0
    return out


def table(rows: dict[str, dict[str, float]], mixed: MixedSet) -> str:
    n = {k: sum(1 for _, g in mixed.questions.values() if kind_of(g) == k) for k in KINDS}
    cols = [f"{g}@{k}" for g in ("all", *KINDS) for k in (1, 3)]
    heads = [f"{g} ({len(mixed.questions) if g == 'all' else n[g]})" for g in ("all", *KINDS)]
    out = [f"{'':<44}" + "".join(f"{h:>18}" for h in heads)]
    out.append(f"{'weights / mode':<44}" + "".join(f"{'top-1':>9}{'top-3':>9}" for _ in heads))
    for name, vals in rows.items():
        out.append(f"{name:<44}" + "".join(f"{vals[c]:>9.3f}" for c in cols))
    return "\n".join(out)


def parse_weights(specs: list[str]) -> dict[str, dict[str, float]]:
    grid: dict[str, dict[str, float]] = dict(GRID)
    for spec in specs:
        name, _, body = spec.partition(":")
        grid[name] = {k: float(v) for k, v in (kv.split("=", 1) for kv in body.split(",") if kv)}
    return grid


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--data", type=Path, default=DATA)
    p.add_argument(
        "--modes", default="keyword", help="modes, each as `--mode M` (`default`: no --mode)"
    )
    p.add_argument(
        "--weights", action="append", default=[], help="name:kind=w,... another grid point"
    )
    p.add_argument("--json", type=Path, help="write each question's rank per grid point here")
    args = p.parse_args(argv)
    mixed = MixedSet(args.data.read_text(encoding="utf-8"))
    modes = ec.modes_of(args)
    grid = parse_weights(args.weights)
    print(
        "searched as: "
        + " | ".join(f"recall search Q --json {' '.join(ec.mode_flags(m))}".strip() for m in modes)
        + " (scope all, limit 10; [search] weights set per row in config.toml)"
    )
    started = time.perf_counter()
    rows: dict[str, dict[str, float]] = {}
    detail: dict[str, Any] = {}
    with ec.throwaway_home() as home:
        ids = build(home, mixed, ec.needs_vectors(modes))
        for n, (name, weights) in enumerate(grid.items()):
            copy = with_weights(home, weights, home.parent / f"{home.name}-w{n}")
            try:
                with recall_home(copy):
                    for mode in modes:
                        ranks = score(mixed, ids, ec.mode_flags(mode))
                        rows[f"{name}, {mode}"] = summary(mixed, ranks)
                        detail[f"{name}, {mode}"] = ranks
            finally:
                shutil.rmtree(copy, ignore_errors=True)
    took = time.perf_counter() - started
    print(f"{len(mixed.questions)} questions, {took:.0f}s", file=sys.stderr)
    print(table(rows, mixed))
    if args.json:
        args.json.write_text(json.dumps(detail, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
