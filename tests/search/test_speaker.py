"""A question about "my" things finds what the user said, not the reply that repeats it.

"What colour did I repaint my bedroom walls?": the user said it in passing, and
the assistant's answer repeats it with more of the topic around it, so by words
they tie and by meaning the echo wins. Hybrid `--messages` now favours the
user's own message when a question speaks in the first person singular
(`search.speaker`, `fusion.SPEAKER_BONUS`), and every result says who wrote it.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from clihelp import call, call_json
from recall.search import bar
from recall.search.fusion import fuse
from recall.search.results import Result
from recall.search.speaker import USER, aimed_at


@pytest.mark.parametrize(
    "question",
    [
        "What colour did I repaint my bedroom walls?",
        "how long have i had my cat",
        "what did I ask about file names in the export?",
        "I’m sure I said which source to use for exchange rates",
        "MY gin-to-vermouth ratio",
        "Iʼm sure I said it",  # U+02BC, as some keyboards type it
    ],
)
def test_a_question_in_the_first_person_is_about_the_user(question: str) -> None:
    assert aimed_at(question) == USER


@pytest.mark.parametrize(
    "question",
    [
        "can you remind me what you suggested for the garnish?",  # spoken to the assistant
        "what did we decide about retries?",  # both sides
        "why does the cache expire after ten minutes",
        "my_config my-app myself_test",  # identifiers that only start like "my"
        "don't retry on 4xx",
        "what did the assistant tell me about the cache?",  # names the other side
        "how did I fix the slow products endpoint?",  # a solution: the assistant's words
        "why did I pick Redis over memcached?",
        "what did I decide about Postgres?",
        "what did u tell me",
        "for i in range(10) off by one",  # a loop variable
        "the I/O scheduler",
        "my.cnf and ~/my/path",
        "send it to me@example.com",
        "i.e. the cache",
    ],
)
def test_other_questions_are_about_no_one_side(question: str) -> None:
    assert aimed_at(question) is None


def _message(index: int, role: str, matched: str, relevance: float) -> Result:
    return Result(
        "walls", "a", None, "pc", None, None, 1.0, f"message {index}", "session", index,
        matched, relevance, relevance < 1.0, role,
    )  # fmt: skip


def _said_and_echoed(about: str | None) -> list[tuple[str, int | None]]:
    # by words the two tie (each holds the same share of the question's rarity) and the
    # user's sentence is keyword's first; by meaning the echo stands out more
    words = [_message(2, "user", bar.SOME, 2.0), _message(3, "assistant", bar.SOME, 2.0)]
    meaning = [_message(3, "assistant", bar.MEANING, 1.3), _message(2, "user", bar.MEANING, 0.9)]
    out = fuse([words, meaning], "rrf", limit=5, by_message=True, about=about)
    return [(r.role, r.message_index) for r in out]


def test_the_users_own_words_come_before_the_reply_that_repeats_them() -> None:
    assert _said_and_echoed(None)[0] == ("assistant", 3)
    assert _said_and_echoed(USER) == [("user", 2), ("assistant", 3)]


def test_a_users_message_that_holds_none_of_the_words_is_not_lifted() -> None:
    # "how did I fix the slow endpoint?": the assistant's reply holds the fix; the user's
    # "ok fix it", near by meaning only, must not pass it for being the user's
    words = [_message(1, "assistant", bar.SOME, 2.0)]
    meaning = [_message(2, "user", bar.MEANING, 1.2), _message(1, "assistant", bar.MEANING, 0.2)]
    out = fuse([words, meaning], "rrf", limit=5, by_message=True, about=USER)
    assert [(r.role, r.message_index) for r in out] == [("assistant", 1), ("user", 2)]


def test_a_weak_hit_of_the_users_is_not_lifted_over_an_answer() -> None:
    # the user's message holds one common word of the question: below the bar, it stays
    # below the assistant's answer found by meaning
    words = [_message(0, "user", bar.SOME, 0.3)]
    meaning = [_message(1, "assistant", bar.MEANING, 1.4), _message(0, "user", bar.MEANING, 0.8)]
    out = fuse([words, meaning], "rrf", limit=1, by_message=True, about=USER)
    assert [(r.role, r.weak) for r in out] == [("assistant", False)]


def test_sessions_are_not_reordered_by_who_wrote_their_best_message() -> None:
    words = [_message(2, "user", bar.SOME, 2.0)]
    meaning = [_message(3, "assistant", bar.MEANING, 1.3)]
    plain = fuse([words, meaning], "rrf", limit=5)
    aimed = fuse([words, meaning], "rrf", limit=5, about=USER)
    assert [r.score for r in aimed] == [r.score for r in plain]


def test_every_message_result_says_who_wrote_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    turns = [
        ("user", "By the way, I repainted my bedroom walls sage green last weekend."),
        ("assistant", "Sage green bedroom walls sound calming! Here are some decor ideas."),
    ]
    src = tmp_path / "chat.jsonl"
    src.write_text(
        "".join(
            json.dumps({"session": "walls", "role": role, "text": text}) + "\n"
            for role, text in turns
        ),
        encoding="utf-8",
    )
    assert call(capsys, "ingest", "--format", "jsonl", str(src))[0] == 0
    doc = call_json(capsys, "search", "bedroom walls", "--messages", "--mode", "keyword")
    roles = {r["message_index"]: r["role"] for r in doc["results"]}
    assert roles == {0: "user", 1: "assistant"}
    (session,) = call_json(capsys, "search", "sage", "green", "--mode", "keyword")["results"]
    assert session["role"] in ("user", "assistant")
    code, out, _ = call(capsys, "search", "repainted", "--messages", "--mode", "keyword")
    said = " ".join(out.split())
    assert code == 0 and "said by the user" in said and "said by the assistant" not in said
