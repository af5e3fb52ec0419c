"""The daemon's token: made once, kept in a 0600 file, and only its hash in config.

A request's `Authorization: Bearer …` value is hashed and compared with the
configured hash by `hmac.compare_digest`, over bytes, so neither the length
nor the content of a wrong token shows in the response time.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import secrets
from pathlib import Path

from recall import config
from recall.errors import ConfigError


def token_path() -> Path:
    return config.data_dir() / "serve.token"


def digest(token: bytes) -> str:
    return hashlib.sha256(token).hexdigest()


def make_token() -> tuple[Path, str]:
    """Write a new random token to its file (0600, replaced atomically); returns (file, hash)."""
    path = token_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    token = secrets.token_urlsafe(32)
    tmp = path.with_name(f".{path.name}.{os.getpid()}")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        os.write(fd, token.encode("ascii") + b"\n")
    finally:
        os.close(fd)
    os.chmod(tmp, 0o600)  # whatever the umask
    os.replace(tmp, path)
    return path, digest(token.encode("ascii"))


def read_token(path: str | Path) -> str:
    """The token a file holds (its first line); ConfigError when it cannot be read."""
    try:
        text = Path(path).expanduser().read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"cannot read the token file {path}: {exc}") from None
    token = text.strip()
    if not token or not token.isascii() or any(c.isspace() for c in token):
        raise ConfigError(f"the token file {path} does not hold one token")
    return token


def check_bearer(header: str | None, expected_hex: str) -> bool:
    """Whether an Authorization header carries the token whose SHA-256 is `expected_hex`."""
    if not header:
        return False
    scheme, _, value = header.partition(" ")
    if scheme.lower() != "bearer":
        return False
    presented = value.strip().encode("latin-1", "replace")  # headers arrive as latin-1 text
    want = bytes.fromhex(expected_hex)
    return hmac.compare_digest(hashlib.sha256(presented).digest(), want)
