"""Running the user's summariser with bounds on everything it can send back.

The summariser is any command (an LLM CLI); a runaway one answering hundreds
of megabytes must not take recall's memory with it. Its answer is read up to
`MAX_ANSWER` bytes (past that it is stopped and nothing is digested), its
stderr keeps only its last `MAX_STDERR` bytes, and the whole run has one
deadline. It runs in its own process group, so stopping it stops what it
started too (a helper holding its pipes open would otherwise keep the read
waiting).
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


def _stop(proc: subprocess.Popen[bytes]) -> None:
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


def _tail(pipe: IO[bytes], keep: bytearray) -> None:
    while chunk := os.read(pipe.fileno(), _CHUNK):
        keep += chunk
        del keep[:-MAX_STDERR]


def _last_line(stderr: bytes) -> str:
    lines = printable(stderr.decode("utf-8", errors="replace")).strip().splitlines()
    return " ".join(lines[-1].split())[:300] if lines else ""


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
    err = bytearray()
    timer = threading.Timer(timeout, _stop, (proc,))
    helpers = [
        threading.Thread(target=_feed, args=(proc.stdin, text.encode("utf-8")), daemon=True),
        threading.Thread(target=_tail, args=(proc.stderr, err), daemon=True),
    ]
    started = time.monotonic()
    timer.start()
    for t in helpers:
        t.start()
    answer = bytearray()
    try:
        while chunk := os.read(proc.stdout.fileno(), _CHUNK):
            answer += chunk
            if len(answer) > MAX_ANSWER:
                _stop(proc)
                break
        status = proc.wait()
    except BaseException:
        _stop(proc)
        proc.wait()
        raise
    finally:
        timer.cancel()
        proc.stdout.close()
    for t in helpers:
        t.join(timeout=5)
    for pipe in (proc.stdin, proc.stderr):
        with contextlib.suppress(OSError):
            pipe.close()
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
