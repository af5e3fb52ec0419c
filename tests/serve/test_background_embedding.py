"""The daemon embeds as background work: a niced thread that waits while searches run."""

from __future__ import annotations

import os
import sys
import threading
import time

import pytest

from recall.serve.worker import NICE, Searches, lower_priority


def test_background_embedding_waits_while_a_search_runs() -> None:
    searches = Searches()
    stopping = threading.Event()
    done = threading.Event()

    def embedder() -> None:
        searches.wait_idle(stopping)
        done.set()

    with searches.running():
        thread = threading.Thread(target=embedder)
        thread.start()
        time.sleep(0.3)
        assert not done.is_set()  # paused: a search is being answered
    assert done.wait(2.0)  # and on again as soon as it is answered
    thread.join()


def test_asked_to_stop_it_does_not_wait_for_searches() -> None:
    searches = Searches()
    stopping = threading.Event()
    stopping.set()
    with searches.running():
        started = time.monotonic()
        searches.wait_idle(stopping)
    assert time.monotonic() - started < 0.5


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="per-thread nice is Linux's")
def test_the_worker_thread_alone_runs_at_a_lower_priority() -> None:
    before = os.getpriority(os.PRIO_PROCESS, threading.get_native_id())
    seen: list[int] = []

    def worker() -> None:
        lower_priority()
        seen.append(os.getpriority(os.PRIO_PROCESS, threading.get_native_id()))

    thread = threading.Thread(target=worker)
    thread.start()
    thread.join()
    assert seen == [min(19, before + NICE)]
    assert os.getpriority(os.PRIO_PROCESS, threading.get_native_id()) == before
