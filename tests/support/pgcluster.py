"""A throwaway PostgreSQL cluster for the team index's tests (and bench/team_bench.py).

`start()` runs Debian's PostgreSQL 15 binaries (scripts/install_postgres.sh
installs them, with pgvector) on a free loopback port, data in a fresh
temporary directory, password authentication over TCP. PostgreSQL refuses
to run as root, so as root the cluster runs as `nobody` (the directory is
handed to it). Durability is switched off: the data dies with the test.
`Missing` says, in one line, what is not installed.
"""

from __future__ import annotations

import os
import secrets
import shutil
import socket
import subprocess
import tempfile
import time
from pathlib import Path

PG_MAJOR = 15
ADMIN = "recall_admin"
DATABASE = "team"
INSTALL = "bash scripts/install_postgres.sh"


class Missing(RuntimeError):
    """PostgreSQL or pgvector is not installed here."""


def bindir() -> Path:
    found = Path(f"/usr/lib/postgresql/{PG_MAJOR}/bin")
    if not (found / "postgres").is_file():
        raise Missing(f"PostgreSQL {PG_MAJOR} is not installed at {found}: run `{INSTALL}`")
    share = Path(f"/usr/share/postgresql/{PG_MAJOR}/extension")
    for ext in ("vector", "pg_trgm"):
        if not (share / f"{ext}.control").is_file():
            raise Missing(f"the {ext} extension is not installed in {share}: run `{INSTALL}`")
    return found


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Cluster:
    def __init__(self) -> None:
        self.bin = bindir()
        self.root = Path(tempfile.mkdtemp(prefix="recall-pg-"))
        self.data = self.root / "data"
        self.password = secrets.token_urlsafe(16)
        self.port = 0
        self.as_user: list[str] = []
        if os.geteuid() == 0:  # postgres will not run as root
            import pwd

            nobody = pwd.getpwnam("nobody")
            os.chown(self.root, nobody.pw_uid, nobody.pw_gid)
            self.as_user = ["runuser", "-u", "nobody", "--"]

    def _run(self, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [*self.as_user, *args], capture_output=True, text=True, check=check, cwd=self.root
        )

    def start(self) -> Cluster:
        pwfile = self.root / "pw"
        pwfile.write_text(self.password + "\n")
        if self.as_user:
            import pwd

            nobody = pwd.getpwnam("nobody")
            os.chown(pwfile, nobody.pw_uid, nobody.pw_gid)
        self._run(
            str(self.bin / "initdb"),
            "-D",
            str(self.data),
            "-U",
            ADMIN,
            "--pwfile",
            str(pwfile),
            "-A",
            "scram-sha-256",
            "-E",
            "UTF8",
            "--locale",
            "C.UTF-8",
            "--no-sync",
        )
        for _ in range(5):
            self.port = _free_port()
            opts = (
                f"-c listen_addresses=127.0.0.1 -p {self.port} -k {self.root}"
                " -c fsync=off -c synchronous_commit=off -c full_page_writes=off"
                " -c shared_buffers=64MB -c max_connections=40"
            )
            done = self._run(
                str(self.bin / "pg_ctl"),
                "-D",
                str(self.data),
                "-l",
                str(self.root / "log"),
                "-o",
                opts,
                "-w",
                "-t",
                "60",
                "start",
                check=False,
            )
            if done.returncode == 0:
                break
        else:
            log = (self.root / "log").read_text(errors="replace")[-2000:]
            raise RuntimeError(f"postgres did not start: {done.stderr}\n{log}")
        self.sql(f"CREATE DATABASE {DATABASE}", db="postgres")
        return self

    def dsn(self, user: str = ADMIN, db: str = DATABASE) -> str:
        return f"host=127.0.0.1 port={self.port} dbname={db} user={user}"

    def connect(self, user: str = ADMIN, password: str | None = None, db: str = DATABASE):  # type: ignore[no-untyped-def]
        import psycopg

        return psycopg.connect(
            self.dsn(user, db), password=password or self.password, autocommit=True
        )

    def sql(self, statement: str, db: str = DATABASE) -> None:
        with self.connect(db=db) as conn:
            conn.execute(statement)  # type: ignore[arg-type]

    def add_person(self, name: str, password: str) -> None:
        """A login role for one person, member of the team's group role."""
        with self.connect() as conn:
            conn.execute(f"CREATE ROLE {name} LOGIN PASSWORD '{password}' IN ROLE recall_member")  # type: ignore[arg-type]

    def stop(self) -> None:
        self._run(
            str(self.bin / "pg_ctl"), "-D", str(self.data), "-m", "immediate", "stop", check=False
        )
        shutil.rmtree(self.root, ignore_errors=True)

    def wait_gone(self) -> None:
        for _ in range(50):
            if not (self.data / "postmaster.pid").exists():
                return
            time.sleep(0.1)


def start() -> Cluster:
    return Cluster().start()
