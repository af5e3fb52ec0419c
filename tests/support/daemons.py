"""Real `recall serve` processes on loopback ports, each with its own RECALL_HOME, and raw sockets.

Every daemon binds port 0 (the kernel picks a free port) and is found through
the serve.json it writes. Its log goes to a file, read by tests that check
what is (not) logged. Every wait is bounded.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

START_S = 60.0


@dataclass
class Daemon:
    name: str
    home: Path
    proc: subprocess.Popen[bytes]
    port: int
    token: str
    log: Path

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def stop(self, sig: int = signal.SIGTERM, wait_s: float = 60.0) -> int:
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
        return self.proc.wait(wait_s)

    def log_text(self) -> str:
        return self.log.read_text(encoding="utf-8", errors="replace")


def env_for(home: Path, name: str, user_home: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("RECALL_")}
    env.update(
        RECALL_HOME=str(home),
        RECALL_COMPUTER=name,
        RECALL_EMBEDDING=extra.pop("embedding", "none"),
        HOME=str(user_home),
        RECALL_IMPL=os.environ.get("RECALL_IMPL", "auto"),
    )
    if "RECALL_MODEL_DIR" in os.environ:  # the tiny test model, for needs_model tests
        env["RECALL_MODEL_DIR"] = os.environ["RECALL_MODEL_DIR"]
    env.update(extra)
    return env


def recall(
    env: dict[str, str], *argv: str, timeout: float = 120
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "recall", *argv],
        capture_output=True,
        text=True,
        env=env,
        timeout=timeout,
        check=False,
    )


def ingest_lines(env: dict[str, str], path: Path, records: list[dict[str, str]]) -> None:
    """Index `records` (recall's JSONL import format) into env's RECALL_HOME."""
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    done = recall(env, "ingest", "--format", "jsonl", str(path))
    assert done.returncode == 0, done.stderr


def start(home: Path, name: str, user_home: Path, *args: str, **extra: str) -> Daemon:
    """`recall serve --port 0 ARGS` for `home`; returns once serve.json names its port."""
    home.mkdir(parents=True, exist_ok=True)
    env = env_for(home, name, user_home, **extra)
    log = home / "serve.log"
    state = home / "serve.json"
    with open(log, "wb") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "recall", "serve", "--port", "0", *args],
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT,
            env=env,
        )
    deadline = time.monotonic() + START_S
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise AssertionError(f"{name} exited {proc.returncode}: {log.read_text()}")
        try:
            data = json.loads(state.read_text())
            if data["pid"] == proc.pid:
                token = (home / "serve.token").read_text().strip()
                return Daemon(name, home, proc, int(data["port"]), token, log)
        except (OSError, ValueError, KeyError):
            pass
        time.sleep(0.05)
    proc.kill()
    raise AssertionError(f"{name} did not start within {START_S}s: {log.read_text()}")


def raw(
    port: int, data: bytes, timeout: float = 10.0, tls: object = None
) -> tuple[int | None, bytes]:
    """Send raw bytes; (status, whole reply) once the server closes, (None, b"") if it sent nothing."""
    sock = socket.create_connection(("127.0.0.1", port), timeout=timeout)
    try:
        sock.sendall(data)
        reply = b""
        while chunk := sock.recv(65536):
            reply += chunk
    except ConnectionResetError:
        reply = reply if "reply" in locals() else b""
    finally:
        sock.close()
    if not reply.startswith(b"HTTP/"):
        return None, reply
    return int(reply.split(b" ", 2)[1]), reply


def get(
    port: int, path: str, token: str | None = None, headers: dict[str, str] | None = None
) -> tuple[int | None, bytes]:
    lines = [f"GET {path} HTTP/1.1", f"Host: 127.0.0.1:{port}", "Connection: close"]
    if token is not None:
        lines.append(f"Authorization: Bearer {token}")
    lines += [f"{k}: {v}" for k, v in (headers or {}).items()]
    return raw(port, ("\r\n".join(lines) + "\r\n\r\n").encode("utf-8"))


def body_json(reply: bytes) -> object:
    return json.loads(reply.split(b"\r\n\r\n", 1)[1])


def serve_one(
    root: Path, name: str, records: list[dict[str, str]], config: str = "", **extra: str
) -> Daemon:
    """A daemon for computer `name` under `root`: its index holds `records`, its
    config.toml is `config`; `extra` are environment settings (`embedding="local"`)."""
    user = root / "user"
    user.mkdir(exist_ok=True)
    home = root / name
    home.mkdir()
    if config:
        (home / "config.toml").write_text(config, encoding="utf-8")
    ingest_lines(env_for(home, name, user, **extra), root / f"{name}.jsonl", records)
    return start(home, name, user, **extra)


def modules_after(
    argv: list[str], stdin: bytes = b"", env: dict[str, str] | None = None
) -> set[str]:
    """Every module a `recall ARGV` process had imported when it finished."""
    probe = (
        "import sys, runpy\n"
        "sys.argv = ['recall', *sys.argv[1:]]\n"
        "try:\n    runpy.run_module('recall', run_name='__main__')\n"
        "except SystemExit:\n    pass\n"
        "sys.stderr.write('\\nMODULES ' + ' '.join(sorted(sys.modules)))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe, *argv],
        input=stdin,
        capture_output=True,
        env={**os.environ, **(env or {})},
        timeout=120,
        check=False,
    )
    return set(done.stderr.decode().rpartition("\nMODULES ")[2].split())
