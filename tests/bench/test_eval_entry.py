"""Every evaluation asks `recall search` itself, through one function, at a user's defaults.

The evaluations once called `search.modes.run` directly, a path no user,
agent or peer takes, so a merge that lowered quality for every user went
unmeasured (issue 20). `eval_common.search_as_user` is now the one entry.
"""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from paths import REPO

BENCH = REPO / "bench"
sys.path.insert(0, str(BENCH))
import eval_common  # noqa: E402

EVALS = sorted(
    [*BENCH.glob("eval_*.py"), BENCH / "quality_gate.py", BENCH / "context_terms_eval.py"]
)
SEARCH_CALLS = {"run", "search", "local_search", "search_computers", "keyword_search"}


def _search_imports(path: Path) -> list[str]:
    """Search functions `path` imports from recall's search or CLI code (not via the CLI)."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith(
            ("recall.search", "recall.cli.search", "recall.peers")
        ):
            found += [f"{node.module}.{a.name}" for a in node.names if a.name in SEARCH_CALLS]
        if isinstance(node, ast.Attribute) and node.attr in SEARCH_CALLS:
            owner = node.value
            if isinstance(owner, ast.Name) and owner.id in ("modes", "sources", "keyword"):
                found.append(f"{owner.id}.{node.attr}")
    return found


@pytest.mark.parametrize("path", EVALS, ids=lambda p: p.name)
def test_an_evaluation_searches_only_through_the_user_entry(path: Path) -> None:
    assert _search_imports(path) == [], f"{path.name} ranks without `recall search`"
    doc = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) or ""
    assert "search_as_user" in doc, f"{path.name}'s docstring does not say how it searches"


def test_search_as_user_answers_as_the_recall_command_does(recall_home: Path) -> None:
    lines = [
        {"session": s, "role": r, "text": t, "timestamp": f"2026-01-0{n}T10:00:00+00:00"}
        for n, (s, r, t) in enumerate(
            [
                ("a", "user", "why is the parser slow on big files"),
                ("a", "assistant", "the parser re-reads every line; cache the offsets"),
                ("b", "user", "parser error on empty input"),
                ("c", "user", "deploy the docs site"),
            ],
            start=1,
        )
    ]
    recall_home.mkdir(parents=True, exist_ok=True)
    eval_common.ingest(recall_home, "".join(json.dumps(x) + "\n" for x in lines))
    in_process = eval_common.search_as_user("parser slow", "--messages")
    env = {**os.environ, "PYTHONPATH": str(REPO / "python")}
    out = subprocess.run(
        [sys.executable, "-m", "recall", "search", "parser slow", "--json", "--messages"],
        capture_output=True,
        text=True,
        env=env,
        check=True,
    )
    assert in_process == json.loads(out.stdout)["results"]
    assert eval_common.message_id(in_process[0]) == ("a", 0)


def test_a_failing_search_is_an_error_not_an_empty_ranking(recall_home: Path) -> None:
    with pytest.raises(RuntimeError, match="--limit"):
        eval_common.search_as_user("anything", "--limit", "0")


def test_recording_the_gate_rewrites_only_its_table(tmp_path: Path) -> None:
    import quality_gate

    test = tmp_path / "test_gate.py"
    original = quality_gate.TEST.read_text(encoding="utf-8")
    test.write_text(original, encoding="utf-8")
    figures = {
        name: {m: 0.5 + n / 10 for m in quality_gate.metrics_of(name)}
        for n, name in enumerate(quality_gate.SETS)
    }
    quality_gate.record(figures, test)
    written = test.read_text(encoding="utf-8")
    space: dict[str, object] = {}
    start = written.index("RECORDED = {")
    exec(written[start : written.index("\n}\n", start) + 2], space)
    assert space["RECORDED"] == figures
    head, tail = original.split("RECORDED = {")[0], original.split("\n}\n", 1)[1]
    assert written.startswith(head) and written.endswith(tail)
