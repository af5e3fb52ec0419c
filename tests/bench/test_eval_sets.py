"""The evaluation sets (agent decisions, LoCoMo, mixed sources) hold what their questions
claim, follow their protocols, and score as defined."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest

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


def test_locomo_half_follows_the_protocol() -> None:
    import eval_locomo

    convs = eval_locomo.load()
    assert [c["sample_id"] for c in convs] == [
        "conv-26",
        "conv-30",
        "conv-41",
        "conv-42",
        "conv-43",
    ]
    asked = [q for c in convs for q, _ in eval_locomo.questions(c)]
    # the README's 760: categories 1-4 with evidence; category 5 (no answer) skipped
    assert len(asked) == 760 and {q["category"] for q in asked} == {1, 2, 3, 4}
    conv = convs[0]
    lines = [json.loads(x) for x in eval_locomo.import_lines(conv).splitlines()]
    first = lines[0]
    speaker_a = conv["conversation"]["speaker_a"]
    assert first["title"] == "conv-26 session 1" and first["project"].endswith("/conv-26")
    assert first["text"].startswith(f"{speaker_a}: ") and first["role"] == "user"
    assert first["timestamp"] == "2023-05-08T13:56:00+00:00"  # "1:56 pm on 8 May, 2023"
    assert {x["role"] for x in lines if not x["text"].startswith(speaker_a)} == {"assistant"}
    assert any(" [shares " in x["text"] for x in lines)


def test_locomo_malformed_evidence_is_read_as_meant() -> None:
    import eval_locomo

    known = {(8, 6), (9, 17), (11, 26), (1, 3)}
    q = {"evidence": ["D8:6; D9:17", "D:11:26", "D", "D10:19", "D1:3"]}
    assert eval_locomo.evidence(q, known) == {(8, 6), (9, 17), (11, 26), (1, 3)}


def test_locomo_scores_count_distinct_sessions_and_evidence_turns() -> None:
    import eval_locomo

    sessions = [3, 3, 3, 1, 2, 4, 5, 7]  # sessions 3 and 7 hold the evidence
    turns = [(3, 1), (3, 2), (1, 1), (9, 9), (7, 4), (7, 5)]
    got = eval_locomo.scores(sessions, turns, {(3, 2), (7, 5)})
    assert got == {"R_all@5": 0.0, "R_all@10": 1.0, "turn_R@5": 0.5}


def test_plain_bm25_baseline_ranks_a_session_by_its_best_turn() -> None:
    import eval_locomo

    conv = {
        "conversation": {
            "speaker_a": "Ann",
            "speaker_b": "Bo",
            "session_1_date_time": "1:00 pm on 1 May, 2023",
            "session_1": [{"speaker": "Ann", "dia_id": "D1:1", "text": "hello there"}],
            "session_2_date_time": "2:00 pm on 2 May, 2023",
            "session_2": [
                {"speaker": "Bo", "dia_id": "D2:1", "text": "I adopted a greyhound"},
                {"speaker": "Ann", "dia_id": "D2:2", "text": "lovely"},
            ],
        }
    }
    assert eval_locomo.baseline(conv).ranked("When did Bo adopt the greyhound?")[0] == (2, 1)


def test_mixed_set_answers_are_each_kind_and_compete_with_other_sources() -> None:
    import eval_sources

    mixed = eval_sources.MixedSet(eval_sources.DATA.read_text(encoding="utf-8"))
    kinds = [eval_sources.kind_of(golds) for _, golds in mixed.questions.values()]
    assert {k: kinds.count(k) for k in set(kinds)} == {"memory": 9, "file": 11, "session": 11}
    texts = {
        "session": [" ".join(t for _, t in mixed.turns(s)) for s in mixed.sessions],
        "memory": [" ".join(m["body"]) for m in mixed.memories.values()],
        "file": list(mixed.files.values()),
    }
    for qid, (question, golds) in mixed.questions.items():
        words = {w for w in re.findall(r"[a-z]{4,}", question.lower()) if w not in STOP}
        others = [
            t.lower() for k, ts in texts.items() if k != eval_sources.kind_of(golds) for t in ts
        ]
        # another kind of source holds a word of the question: the answers compete
        assert any(w in t for w in words for t in others), qid
    assert any("MEMORY.md" in g for _, gs in mixed.questions.values() for g in gs)


def test_a_mixed_question_naming_nothing_is_refused() -> None:
    import eval_sources

    text = "@@ memory m1 | - | fact | 5\nsomething\n@@ question q1 | memory:m2 | what?\n"
    with pytest.raises(SystemExit, match="names nothing"):
        eval_sources.MixedSet(text)


def test_a_file_gold_matches_its_path_and_heading_only() -> None:
    import eval_sources

    gold = "file:atlas/CLAUDE.md#Atlas › Testing"
    assert eval_sources.matches("file:/tmp/p/atlas/CLAUDE.md#Atlas › Testing", gold, {})
    assert not eval_sources.matches("file:/tmp/p/atlas/CLAUDE.md#Atlas › Releases", gold, {})
    assert not eval_sources.matches("file:/tmp/p/beacon/CLAUDE.md#Atlas › Testing", gold, {})
    assert eval_sources.matches("memory:7", "memory:m1", {"m1": "7"})


STOP = {"what", "which", "when", "where", "does", "should", "have", "with", "from", "that"}


def test_every_mixed_answer_is_indexed_where_its_label_says() -> None:
    """Built as a user would build it, each right answer is found by the default search."""
    import eval_common
    import eval_sources

    mixed = eval_sources.MixedSet(eval_sources.DATA.read_text(encoding="utf-8"))
    with eval_common.throwaway_home() as home:
        ids = eval_sources.build(home, mixed, embed=False)
        assert sorted(ids) == sorted(mixed.memories)
        ranks = eval_sources.score(mixed, ids, ("--mode", "keyword"))
    assert {q: r for q, (r, _) in ranks.items() if r is None} == {}
