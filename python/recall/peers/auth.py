"""The daemon's token: made once, kept in a 0600 file, and only its hash in config.

A request's `Authorization: Bearer …` value is hashed and compared with the
configured hash by `hmac.compare_digest`, over bytes, so neither the length
nor the content of a wrong token shows in the response time.

Before the CLI hands the token to the daemon serve.json names, the listener
proves it holds the token too: the CLI sends a fresh random challenge to
health, the daemon answers with an HMAC of it keyed by the token and bound to
the port it listens on (`proof`). A process that took a dead daemon's port,
or relays to a daemon on another port, cannot answer, and gets no token.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import secrets
from pathlib import Path

from recall import config
from recall.errors import ConfigError

CHALLENGE_HEADER = "Recall-Challenge"
PROOF_HEADER = "Recall-Proof"


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


def new_challenge() -> str:
    return secrets.token_hex(16)


def valid_challenge(text: str | None) -> bool:
    """Whether a challenge header is one `new_challenge` could make (32–128 hex digits)."""
    if not text or not 32 <= len(text) <= 128:
        return False
    return all(c in "0123456789abcdef" for c in text)


def proof(token: str, challenge: str, port: int) -> str:
    """What only a holder of `token` listening on `port` answers to `challenge`."""
    message = f"recall-daemon-proof\n{challenge}\n{port}".encode("ascii")
    return hmac.new(token.encode("ascii"), message, hashlib.sha256).hexdigest()
