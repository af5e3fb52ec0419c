"""Reaching the team's Postgres: the DSN from config, the password from the environment
or a file (never config.toml), psycopg 3 imported only here and only when asked.

A DSN that carries a password is refused: config files get shared, backed up
and pasted into issues. TLS is the DSN's business (`sslmode=verify-full
sslrootcert=…`); recall adds a connect timeout, a statement timeout and its
application name, and nothing else.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import TYPE_CHECKING, Any

from recall.config import TeamConfig, load_config
from recall.errors import ConfigError, RecallError

if TYPE_CHECKING:
    import psycopg

INSTALL = "the team index needs psycopg 3: pip install 'recall-sessions[team]'"
TEAM = "team"
"""The name `--computer` takes for the team's index, and results from it carry."""


class TeamError(RecallError):
    """The team's database cannot be reached, refused something, or is not set up."""

    exit_code = 1


def settings() -> TeamConfig:
    """The `[team]` table; ConfigError when no team is configured."""
    team = load_config().team
    if not (team.dsn or "").strip():
        raise ConfigError("no team index is configured: set dsn in [team] (docs/team.md)")
    if not 0 < team.timeout <= 3600:  # NaN fails too
        raise ConfigError(f"[team] timeout must be seconds between 0 and 3600, not {team.timeout}")
    return team


def configured() -> bool:
    """Whether a `[team]` DSN is set (nothing is imported to find out); a blank one is not."""
    return bool((load_config().team.dsn or "").strip())


def driver() -> Any:
    """The psycopg module; ConfigError with the install line when it is missing."""
    try:
        import psycopg
    except ImportError:
        raise ConfigError(INSTALL) from None
    return psycopg


def password(team: TeamConfig) -> str | None:
    """The password from `password_env`, else `password_file` (which must not be readable
    by others), else None (libpq may still find one in ~/.pgpass)."""
    if team.password_env:
        value = os.environ.get(team.password_env)
        if value is None:
            raise ConfigError(f"[team] password_env names {team.password_env}, which is not set")
        return value
    if team.password_file:
        path = Path(team.password_file).expanduser()
        try:
            mode = path.stat().st_mode
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise ConfigError(f"cannot read [team] password_file {path}: {exc}") from None
        if os.name == "posix" and mode & (stat.S_IRWXG | stat.S_IRWXO):
            raise ConfigError(f"[team] password_file {path} is readable by others: chmod 600 it")
        return text.strip("\r\n")
    return None


def checked_dsn(dsn: str) -> dict[str, str]:
    """The DSN's parts; ConfigError when it cannot be parsed or holds a password."""
    from psycopg.conninfo import conninfo_to_dict

    try:
        parts = conninfo_to_dict(dsn)
    except Exception as exc:  # psycopg.ProgrammingError: a malformed DSN
        raise ConfigError(f"[team] dsn cannot be read: {_one_line(exc)}") from None
    if parts.get("password"):
        raise ConfigError(
            "[team] a dsn holds a password: remove it and set password_env or password_file"
        )
    return {k: str(v) for k, v in parts.items() if v is not None}


def connect(team: TeamConfig | None = None, read: bool = False) -> psycopg.Connection[Any]:
    """A connection to the team's database as this person's own role (`read`: to
    `read_dsn` when one is set, for searches); TeamError says why not."""
    team = team or settings()
    psycopg = driver()
    dsn = (team.read_dsn if read else None) or team.dsn
    assert dsn is not None
    parts = checked_dsn(dsn)
    secret = password(team)
    if secret is not None:
        parts["password"] = secret
    millis = max(1, int(team.timeout * 1000))
    parts.setdefault("application_name", "recall")
    parts["connect_timeout"] = str(max(2, int(team.timeout + 0.999)))
    parts["options"] = f"{parts.get('options', '')} -c statement_timeout={millis}".strip()
    try:
        return psycopg.connect(**parts)  # type: ignore[no-any-return]
    except psycopg.Error as exc:
        raise TeamError(f"team index: cannot connect: {_one_line(exc)}") from None


def _one_line(exc: BaseException) -> str:
    text = " ".join(str(exc).split())
    return text[:300] or type(exc).__name__


def failure(exc: BaseException) -> TeamError:
    """A database error as one line (psycopg's carry several, with hints)."""
    return TeamError(f"team index: {_one_line(exc)}")
