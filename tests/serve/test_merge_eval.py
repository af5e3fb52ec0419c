"""bench/merge_eval.py end to end on two questions: real ingest, search on three homes, merges."""

from __future__ import annotations

import importlib.util
import sys

import pytest

from paths import REPO, SHARED

DATA = SHARED / "eval" / "longmemeval" / "longmemeval_s_dev100.jsonl.gz"


def test_two_questions_split_across_three_computers(capsys: pytest.CaptureFixture[str]) -> None:
    assert DATA.is_file(), f"shared eval data not found at {DATA}"
    sys.path.insert(0, str(REPO / "bench"))
    spec = importlib.util.spec_from_file_location("merge_eval", REPO / "bench" / "merge_eval.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    assert mod.main(["--questions", "2"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "2 questions, keyword search on each computer, 3 computers"
    rows = {tuple(line.split()[:2]): [float(v) for v in line.split()[-4:]] for line in lines[2:]}
    assert set(rows) >= {("round-robin", "rrf"), ("by-date", "both"), ("by-date", "bm25")}
    for values in rows.values():
        assert all(0.0 <= v <= 1.0 for v in values)
