"""A ranking that does not depend on how much is asked for (issue 20).

The first k results of a search with limit n ≥ k are exactly the results of
the same search with limit k: in every scope, by session and by message, with
time decay, on generated corpora (hypothesis) and on the shared fixture
transcripts with 30 short queries. An agent asking for 3 gets the same best
answer as a person asking for 10. Both cores run this file (`scripts/test.sh`).
"""

from __future__ import annotations

import json
import os
import random
import re
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from clihelp import call
from paths import TRANSCRIPTS
from recall.record import to_builtins
from recall.search.engine import search
from recall.search.request import SCOPES, SearchRequest

VOCAB = [
    "kafka",
    "retry",
    "budget",
    "ledger",
    "schema",
    "deploy",
    "cache",
    "redis",
    "timeout",
    "jitter",
    "flaky",
    "test",
]
LIMITS = (1, 2, 3, 5, 10, 40)


def _results(text: str, limit: int, **kw: Any) -> list[dict[str, Any]]:
    """The results as JSON would carry them; under time decay without their scores, which
    move with the clock between two searches (the order is what must not move)."""
    outcome, _ = search(SearchRequest(text=text, limit=limit, **kw))
    found = [to_builtins(r) for r in outcome.output.results]
    if kw.get("decay"):
        for r in found:
            r.pop("score")
    return found


def _assert_prefixes(text: str, **kw: Any) -> None:
    """Every limit's results are the first results of every larger limit's."""
    by_limit = {n: _results(text, n, **kw) for n in LIMITS}
    for k in LIMITS:
        for n in LIMITS:
            if n >= k:
                assert by_limit[n][:k] == by_limit[k], (text, kw, k, n)


@contextmanager
def _fresh_home() -> Iterator[Path]:
    """A throwaway RECALL_HOME for one generated corpus (hypothesis runs many per test)."""
    saved = os.environ.get("RECALL_HOME")
    with tempfile.TemporaryDirectory(prefix="recall-limit-") as tmp:
        os.environ["RECALL_HOME"] = tmp
        try:
            yield Path(tmp)
        finally:
            if saved is None:
                os.environ.pop("RECALL_HOME", None)
            else:
                os.environ["RECALL_HOME"] = saved


def _quiet(*argv: str) -> None:
    import contextlib
    import io

    from recall.cli import main

    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        assert main(list(argv)) == 0, argv


words = st.lists(st.sampled_from(VOCAB), min_size=1, max_size=6).map(" ".join)
corpora = st.fixed_dictionaries(
    {
        "sessions": st.lists(st.lists(words, min_size=1, max_size=5), min_size=1, max_size=14),
        "memories": st.lists(words, max_size=5),
        "daily": st.lists(words, max_size=3),
    }
)
queries = st.lists(st.sampled_from([*VOCAB, "zzqx", "retyr", "-flaky"]), min_size=1, max_size=3)


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(corpus=corpora, query=queries, messages=st.booleans(), decay=st.sampled_from([0.0, 0.05]))
def test_the_first_k_results_are_the_same_whatever_the_limit(
    recall_home: Path, corpus: dict[str, Any], query: list[str], messages: bool, decay: float
) -> None:
    with _fresh_home() as home:
        lines = [
            json.dumps(
                {
                    "session": f"s{n}",
                    "role": "user" if i % 2 == 0 else "assistant",
                    "text": text,
                    "timestamp": f"2026-0{1 + n % 9}-1{i % 10}T10:00:00+00:00",
                }
            )
            for n, turns in enumerate(corpus["sessions"])
            for i, text in enumerate(turns)
        ]
        src = home / "corpus.jsonl"
        src.write_text("\n".join(lines) + "\n", encoding="utf-8")
        _quiet("ingest", "--format", "jsonl", str(src))
        for n, text in enumerate(corpus["memories"]):
            _quiet("remember", text, "-i", str(1 + n % 10))
        if corpus["daily"]:
            (home / "daily").mkdir()
            body = "\n\n".join(f"## Note {n}\n\n{t}" for n, t in enumerate(corpus["daily"]))
            (home / "daily" / "2026-02-01.md").write_text(f"# Day\n\n{body}\n", encoding="utf-8")
            _quiet("sync", "-q", "--no-embed")
        text = " ".join(query)
        if not re.search(r"(^|\s)[^-]", text):  # exclusions alone: a usage error, not a ranking
            return
        for scope in SCOPES:
            _assert_prefixes(text, scope=scope, messages=messages, mode="keyword", decay=decay)


SHORT_QUERIES = 30


def _short_queries(db: Any) -> list[str]:
    """30 short queries of words the fixture transcripts hold (seeded): one or two words,
    each found in at least three messages, so the searches have something to rank."""
    from recall.search.query import STOPWORDS

    counts: dict[str, int] = {}
    for (text,) in db.execute("SELECT text FROM messages"):
        for word in set(re.findall(r"[a-z]{4,12}", text.lower())):
            counts[word] = counts.get(word, 0) + 1
    pool = sorted(w for w, n in counts.items() if n >= 3 and w not in STOPWORDS)
    rng = random.Random(20)
    return [" ".join(rng.sample(pool, rng.randint(1, 2))) for _ in range(SHORT_QUERIES)]


@pytest.fixture(scope="module")
def fixture_index() -> Iterator[tuple[Path, list[str]]]:
    """The shared fixture transcripts (every agent recall reads) and three memories."""
    with _fresh_home() as home:
        os.environ["RECALL_COMPUTER"] = "testbox"
        for agent in ("claude", "codex", "gemini"):
            _quiet("ingest", "--agent", agent, str(TRANSCRIPTS / agent))
        _quiet("remember", "the test suite runs with pytest and two cores", "-i", "7")
        _quiet("remember", "release notes are written before the tag", "-i", "5")
        _quiet("remember", "the config file lives beside the index", "-i", "3")
        from recall.store import open_reader

        with open_reader() as store:
            found = _short_queries(store.conn)
        os.environ.pop("RECALL_COMPUTER", None)
        yield home, found


@pytest.mark.parametrize("scope", ["all", "sessions", "memories"])
@pytest.mark.parametrize("messages", [False, True])
def test_30_short_queries_over_real_transcripts_keep_their_best_results(
    fixture_index: tuple[Path, list[str]],
    scope: str,
    messages: bool,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    home, texts = fixture_index
    monkeypatch.setenv("RECALL_HOME", str(home))
    changed = []
    for text in texts:
        by_limit = {n: _results(text, n, scope=scope, messages=messages) for n in (1, 3, 10)}
        if by_limit[10][:1] != by_limit[1] or by_limit[10][:3] != by_limit[3]:
            changed.append(text)
    assert not changed, f"{len(changed)} of {len(texts)} queries change: {changed}"


def test_the_fixture_queries_find_something(
    fixture_index: tuple[Path, list[str]], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The 30 queries are a real check: most of them rank two results or more."""
    home, texts = fixture_index
    monkeypatch.setenv("RECALL_HOME", str(home))
    ranked = [len(_results(text, 10, mode="keyword")) for text in texts]
    assert sum(n >= 2 for n in ranked) >= 25, ranked


@pytest.mark.needs_model
@pytest.mark.parametrize("mode", ["semantic", "hybrid", None])
def test_search_by_meaning_keeps_its_best_results_whatever_the_limit(
    recall_home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], mode: str | None
) -> None:
    from semhelp import write_import

    assert (
        call(capsys, "ingest", "--format", "jsonl", str(write_import(tmp_path / "c.jsonl")))[0] == 0
    )
    call(capsys, "remember", "the payment client retries with jitter", "-i", "6")
    call(capsys, "remember", "my editor is vim with a dark theme", "-i", "4")
    assert call(capsys, "embed")[0] == 0
    for text in ("library for data analysis", "retry payments", "editor preferences"):
        for scope in ("all", "sessions", "memories"):
            for messages in (False, True):
                _assert_prefixes(text, scope=scope, messages=messages, mode=mode)
