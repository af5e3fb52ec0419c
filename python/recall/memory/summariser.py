"""Running the user's summariser with bounds on everything it can send back.

The summariser is any command (an LLM CLI); a runaway one answering hundreds
of megabytes must not take recall's memory with it. Its answer is read up to
`MAX_ANSWER` bytes (past that it is stopped and nothing is digested), its
stderr keeps only its last `MAX_STDERR` bytes, and the whole run has one
deadline. It runs in its own process group, so stopping it stops what it
started too. Its answer is whole once it exits, so the pipes are read only
for `GRACE_S` more: a helper it left running with its stdout (one in a
session of its own, out of the group's reach) cannot keep the digest waiting.
"""

from __future__ import annotations

import contextlib
import os
import shlex
import signal
import subprocess
import threading
import time
from typing import IO

from recall.config import DIGEST_CHILD
from recall.errors import RecallError
from recall.textutil import printable

MAX_ANSWER = 1024 * 1024
"""Bytes of answer read: a day's summary is a few kilobytes; a megabyte is a runaway."""
MAX_STDERR = 64 * 1024
_CHUNK = 64 * 1024


Popen = subprocess.Popen[bytes]


def _stop(proc: Popen) -> None:
    """Kill the summariser and what it started (its own process group, on POSIX)."""
    killpg = getattr(os, "killpg", None)
    try:
        if killpg is None:
            proc.kill()
        else:
            killpg(proc.pid, getattr(signal, "SIGKILL", signal.SIGTERM))
    except OSError:
        with contextlib.suppress(OSError):
            proc.kill()


def _feed(pipe: IO[bytes], data: bytes) -> None:
    try:
        with pipe:
            pipe.write(data)
    except OSError:
        pass  # it stopped reading: its answer (or its status) says why


def _collect(pipe: IO[bytes], into: bytearray, keep: int | None, proc: Popen) -> None:
    """Read `pipe` to its end into `into`: the first MAX_ANSWER bytes and one more (then
    the summariser is stopped), or with `keep` its last `keep` bytes. The pipe is closed
    here, by its one reader, never under a read another thread is blocked in."""
    try:
        while chunk := os.read(pipe.fileno(), _CHUNK):
            into += chunk
            if keep is not None:
                del into[:-keep]
            elif len(into) > MAX_ANSWER:
                _stop(proc)
                return
    except OSError:
        pass
    finally:
        with contextlib.suppress(OSError):
            pipe.close()


def _last_line(stderr: bytes) -> str:
    lines = printable(stderr.decode("utf-8", errors="replace")).strip().splitlines()
    return " ".join(lines[-1].split())[:300] if lines else ""


GRACE_S = 1.0
"""How long the pipes are read once the summariser has exited: what it wrote is in them
already, and a helper it left running (holding them open) would keep the read waiting."""


def _settle(proc: Popen, readers: list[threading.Thread]) -> None:
    """Let the readers take what the exited summariser wrote; a helper it started that
    still holds a pipe is stopped with its process group, and one that left the group
    (its own session) is left to the reader thread, which closes the pipe when it ends."""
    for t in readers:
        t.join(GRACE_S)
    if any(t.is_alive() for t in readers):
        _stop(proc)
        for t in readers:
            t.join(GRACE_S)


def summarise(command: str, text: str, timeout: float) -> str:
    """The summariser's answer to `text`; RecallError when it fails, says nothing,
    takes over `timeout` seconds or answers more than MAX_ANSWER bytes."""
    try:
        argv = shlex.split(command)
    except ValueError as exc:
        raise RecallError(f"cannot read [digest] command {command!r}: {exc}") from None
    if not argv:
        raise RecallError("[digest] command is empty; nothing was digested")
    try:
        proc = subprocess.Popen(
            argv,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env={**os.environ, DIGEST_CHILD: "1"},
            start_new_session=True,
        )
    except FileNotFoundError:
        raise RecallError(
            f"the summariser {argv[0]!r} was not found; nothing was digested"
        ) from None
    except OSError as exc:
        raise RecallError(f"cannot start the summariser {argv[0]!r}: {exc.strerror}") from None
    assert proc.stdin and proc.stdout and proc.stderr
    answer, err = bytearray(), bytearray()
    timer = threading.Timer(timeout, _stop, (proc,))
    feeder = threading.Thread(target=_feed, args=(proc.stdin, text.encode("utf-8")), daemon=True)
    readers = [
        threading.Thread(target=_collect, args=(proc.stdout, answer, None, proc), daemon=True),
        threading.Thread(target=_collect, args=(proc.stderr, err, MAX_STDERR, proc), daemon=True),
    ]
    started = time.monotonic()
    timer.start()
    for t in [feeder, *readers]:
        t.start()
    try:
        status = proc.wait()
    except BaseException:
        _stop(proc)
        proc.wait()
        raise
    finally:
        timer.cancel()
    _settle(proc, readers)
    answer, err = bytearray(answer), bytearray(err)  # a reader still going adds nothing now
    if len(answer) > MAX_ANSWER:
        raise RecallError(
            f"the summariser answered over {MAX_ANSWER // 1024} KB, far more than a day's"
            " summary; it was stopped and nothing was digested"
        )
    if time.monotonic() - started >= timeout and status < 0:
        raise RecallError(f"the summariser took over {timeout:g} s; nothing was digested")
    if status != 0:
        why = _last_line(bytes(err))
        raise RecallError(
            f"the summariser exited with status {status}"
            + (f": {why}" if why else "")
            + "; nothing was digested"
        )
    out = printable(bytes(answer).decode("utf-8", errors="replace")).strip()
    if not out:
        raise RecallError("the summariser printed nothing; nothing was digested")
    return out
