"""The reconciliation worker: `recall sync`'s own code on start and every few minutes,
then the embedding of what is new, then (when a team's index is configured, docs/team.md)
a push of what changed.

Embedding a year of history takes hours, so the worker does it as background
work: on its own thread at a lower priority (`nice` 10, Linux sets it per
thread), with one onnxruntime thread (the query encoder the daemon keeps warm
for searches), newest sessions first, and paused while a search is answered
(`SEARCHES`): between two groups of chunks it waits until no search is running.

Idempotent (sync and embed both are), never two passes at once (a lock taken
without waiting), never in a request's way (requests only read, and readers
never wait for the write lock). Asked to stop, it stops at the next commit
boundary: sync and embed report progress between transactions, and the
progress callback is where it raises.
"""

from __future__ import annotations

import os
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from typing import Any

from recall.errors import RecallError


class _Stopping(Exception):
    """Raised from a progress callback, between two transactions."""


class Searches:
    """How many searches the daemon is answering: background embedding waits for none."""

    def __init__(self) -> None:
        self._count = 0
        self._idle = threading.Condition()

    @contextmanager
    def running(self) -> Iterator[None]:
        with self._idle:
            self._count += 1
        try:
            yield
        finally:
            with self._idle:
                self._count -= 1
                self._idle.notify_all()

    def wait_idle(self, stopping: threading.Event, most_s: float = 30.0) -> None:
        """Return once no search is running (or after `most_s`: a stuck request must not
        starve the index), or at once when the worker is asked to stop."""
        deadline = time.monotonic() + most_s
        with self._idle:
            while self._count and not stopping.is_set():
                left = deadline - time.monotonic()
                if left <= 0:
                    return
                self._idle.wait(min(left, 0.5))


SEARCHES = Searches()
"""The daemon's searches (`routes.search` runs inside `SEARCHES.running()`)."""

NICE = 10
"""How much lower the worker thread runs than the daemon's request threads."""


def lower_priority() -> None:
    """Lower the calling thread's CPU priority. On Linux `setpriority` takes a thread id
    and affects that thread alone; elsewhere it would lower the whole daemon (requests
    too), so it is left alone there."""
    if not sys.platform.startswith("linux"):
        return
    with suppress(OSError):
        os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), NICE)


class Worker:
    def __init__(self, computer: str, every_s: float, log: Callable[[str], None]) -> None:
        self.computer = computer
        self.every_s = every_s
        self.log = log
        self.stopping = threading.Event()
        self.busy = threading.Lock()
        self.thread: threading.Thread | None = None
        self.state: dict[str, Any] = {"passes": 0, "running": False}

    def start(self) -> None:
        self.thread = threading.Thread(target=self._loop, name="recall-worker", daemon=True)
        self.thread.start()

    def stop(self, wait_s: float = 60.0) -> bool:
        """Ask the pass in progress to stop at its next commit; True once it has."""
        self.stopping.set()
        if self.thread is not None:
            self.thread.join(wait_s)
            return not self.thread.is_alive()
        return True

    def _loop(self) -> None:
        lower_priority()
        while not self.stopping.is_set():
            self.run_once()
            if self.stopping.wait(max(1.0, self.every_s)):
                return

    def _check(self, done: int, total: int) -> None:
        if self.stopping.is_set():
            raise _Stopping

    def run_once(self) -> bool:
        """One pass: sync, then embed. False when a pass was already running."""
        if not self.busy.acquire(blocking=False):
            return False
        started = time.monotonic()
        self.state.update(running=True, last_started=time.time())
        try:
            touched = self._sync()
            embedded = self._embed()
            self.state.update(last_sessions_touched=touched, last_embedded=embedded)
            self.state.pop("last_error", None)
            if touched or embedded:
                self.log(f"worker: {touched} sessions updated, {embedded} messages embedded")
            self._push()
        except _Stopping:
            self.log("worker: stopped at a commit boundary")
        except RecallError as exc:
            self.state["last_error"] = str(exc)
            self.log(f"worker: {exc}")
        except Exception as exc:  # the daemon keeps serving; the next pass tries again
            self.state["last_error"] = f"{type(exc).__name__}: {exc}"
            self.log(f"worker: {type(exc).__name__}: {exc}")
        finally:
            self.state.update(
                running=False,
                passes=self.state["passes"] + 1,
                last_seconds=round(time.monotonic() - started, 3),
            )
            self.busy.release()
        return True

    def _sync(self) -> int:
        from recall.store import open_writer
        from recall.sync import sync

        with open_writer() as store:
            report = sync(store, self.computer, progress=self._check)
        if report.disk_full:
            raise RecallError("disk full: sync stopped; it will try again")
        return report.sessions_touched

    def _push(self) -> None:
        """Push to the team's index when configured; a failure is logged and kept in the
        state (health shows it), and the next pass tries again."""
        from recall.config import load_config

        team = load_config().team
        if not team.dsn or not team.push_after_sync or self.stopping.is_set():
            return
        from recall.team.jobs import push

        try:
            report = push(progress=lambda _n: self._check(0, 0))
        except RecallError as exc:
            self.state["team_error"] = str(exc)
            self.log(f"worker: {exc}")
            return
        self.state.pop("team_error", None)
        self.state["last_team_push"] = time.time()
        if report.sessions or report.deleted:
            self.log(
                f"worker: team index: {report.sessions} sessions sent, {report.deleted} deleted"
            )

    def _embed(self) -> int:
        from recall.config import embedding_provider, load_config

        if embedding_provider() == "none" or self.stopping.is_set():
            return 0
        from recall.semantic import ModelError
        from recall.semantic.embedjob import embed_pending
        from recall.semantic.provider import get_encoder
        from recall.store import open_writer

        try:  # one thread, and the model searches keep warm: background work
            encoder = get_encoder(query=True)
        except ModelError:
            return 0

        def between(_tick: object) -> None:
            self._check(0, 0)
            SEARCHES.wait_idle(self.stopping)
            self._check(0, 0)

        with open_writer() as store:
            roles = load_config().embed_roles
            report = embed_pending(store, encoder, roles, progress=between)
        return int(report.messages)
