"""The LongMemEval evaluation end to end on a slice: real import, embedding and search."""

from __future__ import annotations

import importlib.util
import json
import os
from pathlib import Path

import pytest

from paths import REPO, SHARED

DATA = SHARED / "eval" / "longmemeval" / "longmemeval_s_dev100.jsonl.gz"


def _module() -> object:
    spec = importlib.util.spec_from_file_location(
        "eval_lme", REPO / "bench" / "eval_longmemeval.py"
    )
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _vector_cache(tmp_path: Path) -> Path:
    """Where the run caches its vectors (by model and text): `RECALL_TEST_VECTOR_CACHE`
    when the caller shares one file between the suite's two passes (scripts/test.sh
    does, for one run: both passes embed the same haystacks with the same model, so
    the second embeds nothing and only the core-dependent import and search run
    again), else this test's own."""
    shared = os.environ.get("RECALL_TEST_VECTOR_CACHE")
    return Path(shared) if shared else tmp_path / "cache.db"


def test_official_metric_definitions() -> None:
    mod = _module()
    corpus = ["a", "b", "c", "d"]
    m = mod.metrics(["b", "a", "c"], {"a", "c"}, corpus)  # type: ignore[attr-defined]
    assert m["recall_all@1"] == 0.0 and m["recall_all@3"] == 1.0
    # dcg([0,1,1]) = 0 + 1/log2(2) + 1/log2(3); ideal dcg([1,1,0]) = 1 + 1
    assert m["ndcg_any@3"] == pytest.approx((1 + 1 / 1.5849625) / 2)
    assert m["ndcg_any@1"] == 0.0


@pytest.mark.needs_model
def test_a_question_through_recall(
    tmp_path: Path, recall_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert DATA.is_file(), f"shared eval data not found at {DATA}"
    mod = _module()
    out = tmp_path / "scores.json"
    code = mod.main(  # type: ignore[attr-defined]
        ["--questions", "1", "--cache", str(_vector_cache(tmp_path)), "--json", str(out)]
    )
    assert code == 0
    table = capsys.readouterr().out
    for mode in ("keyword", "semantic", "hybrid"):
        assert f"ALL                          1 {mode}" in table
    rows = json.loads(out.read_text())
    assert [r["type"] for r in rows] == ["knowledge-update"]
    for r in rows:
        assert r["scores"]["hybrid"]["recall_all@10"] == 1.0
        assert 0.0 <= r["scores"]["keyword"]["ndcg_any@10"] <= 1.0
