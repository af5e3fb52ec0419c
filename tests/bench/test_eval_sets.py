"""The agent-decisions evaluation set holds what its questions claim, and scores as defined."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
import eval_common
import eval_decisions


def test_every_question_points_at_real_turns() -> None:
    corpus = eval_decisions.Corpus(eval_decisions.DATA.read_text(encoding="utf-8"))
    assert len(corpus.sessions) == 42 and len(corpus.questions) == 50
    roles = []
    for qid, evidence in corpus.evidence.items():
        assert qid in corpus.questions
        for sid, turn in evidence:
            role, text = corpus.sessions[sid]["turns"][turn]
            assert text.strip(), (qid, sid, turn)
            roles.append(role)
    # Most answers are decisions, in the assistant's reply; some are what the user asked.
    assert roles.count("assistant") > 2 * roles.count("user") > 0
    lines = corpus.import_lines().splitlines()
    assert len(lines) == sum(len(s["turns"]) for s in corpus.sessions.values())


def test_message_recall_is_the_share_of_evidence_found() -> None:
    gold = {("a", 1), ("b", 0)}
    ranked = [("a", 0), ("a", 1), ("c", 2), ("d", 0), ("e", 0), ("b", 0)]
    scores = eval_common.message_metrics(ranked, gold)
    assert scores == {"msg_recall@1": 0.0, "msg_recall@5": 0.5, "msg_recall@10": 1.0}


def test_a_variant_sets_search_constants_only_while_applied() -> None:
    from recall.search import fusion
    from recall.semantic import nearest

    before = (nearest.FLOOR, fusion.RRF_K)
    variant = eval_common.Variant("v:floor=0.4,rrf_k=20,fusion=0.3/0.7,exact=0")
    with variant.applied():
        assert (nearest.FLOOR, fusion.RRF_K) == (0.4, 20)
    assert before == (nearest.FLOOR, fusion.RRF_K)
    assert variant.fusion == "0.3/0.7" and not variant.exact
