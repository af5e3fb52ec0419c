"""Where recall keeps things and what the user configured.

Every `RECALL_*` environment variable is read here and nowhere else:

- `RECALL_HOME`: one directory for the database, the config and the logs
  (overrides the platform's data and config directories).
- `RECALL_COMPUTER`: the name this computer's results carry (default: hostname).
- `RECALL_IMPL`: `auto`, `rust` or `python` (`core_wanted`, for `recall._accel`).
- `RECALL_TEST_DEFERRED_BEGIN`: test-only (`deferred_begin_for_tests`, for
  `recall.store.db`); makes writers unsafe on purpose so the load test can
  prove it notices.
- `RECALL_MODEL_DIR`: a directory holding `model.onnx` and `tokenizer.json`
  to embed with (overrides `model_dir` in config).
- `RECALL_EMBEDDING`: `local`, `none` or `openai` (overrides `embedding`).
- `RECALL_DIGEST_CHILD`: set by `recall digest` in its summariser's environment;
  a hook that inherits it keeps that session out of the index (`digest_child`).
- `RECALL_NO_DAEMON`: `1` makes a local `recall search` run in-process even
  when `recall serve` is running (`use_daemon`; the benchmark's cold path).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from functools import cache
from pathlib import Path

from recall.errors import ConfigError
from recall.record import ConversionError, Record, convert, field


class AgentConfig(Record):
    roots: list[str] | None = None
    """Directories to scan instead of the agent's defaults."""
    enabled: bool = True


# Redaction and privacy settings (docs/privacy.md).
class ExtraPattern(Record):
    name: str
    """The label: matches become `[REDACTED:name]`."""
    pattern: str
    """A Python `re` pattern (run by Python whichever core is active); the secret
    is its first capture group that took part, else the whole match."""


class RedactConfig(Record):
    enabled: bool = True
    allow: list[str] = field(default_factory=list)
    """Exact strings never redacted (a public test key, a known fixture token)."""
    allow_patterns: list[str] = field(default_factory=list)
    """Python regexes: a secret that fully matches one is kept."""
    disable: list[str] = field(default_factory=list)
    """Labels of built-in rules to switch off, e.g. "stripe-key"."""
    extra: list[ExtraPattern] = field(default_factory=list)


class PrivacyConfig(Record):
    exclude_projects: list[str] = field(default_factory=list)
    """Globs over project directories; a matching project (or one below it) is never indexed."""
    ignore_marker: str = "recall:ignore"
    """A user message containing this (any case) keeps its whole session out of the index."""


# Semantic search settings (docs/semantic.md).
class EndpointConfig(Record):
    """An OpenAI-compatible `/v1/embeddings` server the user runs (embedding = "openai")."""

    url: str = "http://127.0.0.1:11434/v1"
    model: str = "all-minilm"
    api_key_env: str | None = None
    """Name of the environment variable holding the API key (never the key itself)."""
    timeout: float = 30.0


class SearchConfig(Record):
    fusion: str = "rrf"
    """How hybrid search merges keyword and semantic ranks: rrf, weighted, 0.4/0.6, 0.3/0.7."""
    decay: float = 0.0
    """Time decay λ per day (score × exp(-λ·age_days)); 0 turns it off, 0.01 halves in ~69 days."""
    weights: dict[str, float] = field(default_factory=dict)
    """Per-source weights of one search over every source (docs/memory.md): memory,
    memory_file, daily_log, file, message, session; those not given keep their defaults."""


# Daily digests (docs/memory.md).
class DigestConfig(Record):
    command: str | None = None
    """The summariser: a command that reads a prompt on stdin and prints the summary
    (`claude -p`, `llm`, `ollama run llama3`...). Unset: `recall digest` does nothing."""
    max_tokens: int = 12000
    """The most conversation a digest sends, in tokens (about 4 characters each)."""
    timeout: float = 600.0
    """Seconds the summariser may take before the digest gives up (and summarises nothing)."""
    facts: str = "review"
    """Where proposed facts go: "review" (a queue for `recall memory review`) or "memory"
    (straight into MEMORY.md as notes). Either way they are notes, never instructions."""


# `recall serve` and its peers (docs/serve.md).
class ServeConfig(Record):
    host: str = "127.0.0.1"
    port: int = 8765
    token_sha256: str | None = None
    """SHA-256 (hex) of the daemon's token; the token itself lives only in its 0600 file."""
    names: list[str] = field(default_factory=list)
    """Extra `Host` names the daemon answers to (besides loopback and this computer's name)."""
    tls_cert: str | None = None
    tls_key: str | None = None
    max_connections: int = 32
    request_timeout: float = 10.0
    """Seconds a client has to send its whole request head (and TLS handshake)."""
    sync_minutes: float = 5.0
    """How often the reconciliation worker runs after its first pass at start."""


class PeerConfig(Record):
    name: str
    url: str
    token_file: str | None = None
    """A file holding the peer's token (never the token itself)."""
    timeout: float = 5.0
    ca_file: str | None = None
    """For an https URL with a self-signed certificate: the certificate to trust."""


# A team's index on Postgres (docs/team.md).
class TeamConfig(Record):
    dsn: str | None = None
    """libpq connection string or URI, without a password (`sslmode=verify-full` over a
    network). Unset: no team index, and nothing ever leaves this computer."""
    read_dsn: str | None = None
    """Where searches and `show --team` go instead, e.g. a read replica (the same role and
    password); pushes always go to `dsn`."""
    password_env: str | None = None
    """Name of the environment variable holding the database password (never the password)."""
    password_file: str | None = None
    """A file (mode 0600) holding the database password; used when `password_env` is unset."""
    projects: list[str] = field(default_factory=list)
    """Globs over project directories whose sessions are pushed: nothing else ever is.
    Pushed sessions are readable by their person alone unless `share` covers them too."""
    share: list[str] = field(default_factory=list)
    """Globs (within `projects`) whose sessions every member of the team may read."""
    push_after_sync: bool = True
    """Whether `recall serve`'s worker pushes after each sync pass."""
    context: bool = False
    """Whether `recall context` (the prompt hook) looks prompts up in the team's index too:
    each prompt then waits on the network, never past the hook's own deadline."""
    timeout: float = 10.0
    """Seconds to connect, and the longest one statement may run."""


class Config(Record):
    computer: str | None = None
    agents: dict[str, AgentConfig] = field(default_factory=dict)
    # redaction and privacy (docs/privacy.md)
    redact: RedactConfig = field(default_factory=RedactConfig)
    privacy: PrivacyConfig = field(default_factory=PrivacyConfig)
    # semantic search (docs/semantic.md)
    embedding: str = "local"
    """local (the bundled MiniLM model), none (keywords only) or openai (an endpoint)."""
    model: str = "all-MiniLM-L6-v2"
    model_dir: str | None = None
    embed_roles: list[str] = field(default_factory=lambda: ["user", "assistant"])
    """Whose turns get vectors: the decisions are mostly in the assistant's replies."""
    endpoint: EndpointConfig = field(default_factory=EndpointConfig)
    search: SearchConfig = field(default_factory=SearchConfig)
    digest: DigestConfig = field(default_factory=DigestConfig)
    # across computers (docs/serve.md)
    serve: ServeConfig = field(default_factory=ServeConfig)
    peers: list[PeerConfig] = field(default_factory=list)
    # a team's index (docs/team.md)
    team: TeamConfig = field(default_factory=TeamConfig)


def data_dir() -> Path:
    """The directory holding the database (created on first write)."""
    home = os.environ.get("RECALL_HOME")
    if home:
        return Path(home).expanduser()
    if sys.platform == "win32":
        base = os.environ.get("LOCALAPPDATA") or str(Path.home() / "AppData" / "Local")
        return Path(base) / "recall"
    if sys.platform == "darwin":
        return Path.home() / "Library" / "Application Support" / "recall"
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "recall"


def config_path() -> Path:
    # Looked up for every stored string (redaction settings): cached on the
    # variables it depends on, which tests and users may change.
    env = os.environ
    return _config_path(
        env.get("RECALL_HOME"),
        env.get("APPDATA"),
        env.get("XDG_CONFIG_HOME"),
        env.get("HOME"),
        env.get("USERPROFILE"),
    )


@cache
def _config_path(
    home: str | None, appdata: str | None, xdg: str | None, _user: str | None, _profile: str | None
) -> Path:
    if home:
        return Path(home).expanduser() / "config.toml"
    if sys.platform == "win32":
        base = appdata or str(Path.home() / "AppData" / "Roaming")
        return Path(base) / "recall" / "config.toml"
    if sys.platform == "darwin":
        return Path.home() / "Library" / "Application Support" / "recall" / "config.toml"
    base = xdg or str(Path.home() / ".config")
    return Path(base) / "recall" / "config.toml"


def db_path() -> Path:
    return data_dir() / "recall.db"


def log_path() -> Path:
    return data_dir() / "recall.log"


@cache
def _load(path: Path) -> Config:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return Config()
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"cannot read config {path}: {exc}") from exc
    import tomllib  # only when a config file exists: hooks pay for every import

    try:
        raw = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"cannot read config {path}: {exc}") from exc
    try:
        return convert(raw, Config)
    except ConversionError as exc:
        raise ConfigError(f"bad config {path}: {exc}") from exc


def load_config() -> Config:
    return _load(config_path())


def computer_name() -> str:
    name = os.environ.get("RECALL_COMPUTER") or load_config().computer
    return name or _hostname().split(".")[0] or "localhost"


def _hostname() -> str:
    if hasattr(os, "uname"):  # free on POSIX; `socket` costs a hook ~1 ms to import
        return os.uname().nodename
    import socket

    return socket.gethostname()


# --- semantic search ---
def core_wanted() -> str:
    """`auto`, `rust` or `python`: which core `recall._accel` should load."""
    wanted = os.environ.get("RECALL_IMPL", "auto").strip().lower() or "auto"
    if wanted not in ("auto", "rust", "python"):
        raise ConfigError(f"RECALL_IMPL must be auto, rust or python, not {wanted!r}")
    return wanted


def deferred_begin_for_tests() -> bool:
    """Test-only: writers open deferred transactions, which the load test must catch."""
    return os.environ.get("RECALL_TEST_DEFERRED_BEGIN") == "1"


@contextmanager
def home_at(path: Path) -> Iterator[None]:
    """Point `RECALL_HOME` at `path` for the block (the demo's throwaway index)."""
    previous = os.environ.get("RECALL_HOME")
    os.environ["RECALL_HOME"] = str(path)
    try:
        yield
    finally:
        if previous is None:
            os.environ.pop("RECALL_HOME", None)
        else:
            os.environ["RECALL_HOME"] = previous


def embedding_provider() -> str:
    """`local`, `none` or `openai`: RECALL_EMBEDDING, else config (`auto` means local)."""
    value = (os.environ.get("RECALL_EMBEDDING") or load_config().embedding).strip().lower()
    value = "local" if value == "auto" else value
    if value not in ("local", "none", "openai"):
        raise ConfigError(f"embedding must be local, none or openai, not {value!r}")
    return value


def use_daemon() -> bool:
    """Whether a local search may be answered by a running `recall serve` (RECALL_NO_DAEMON)."""
    return os.environ.get("RECALL_NO_DAEMON", "") not in ("1", "true", "yes")


def recall_environment() -> dict[str, str]:
    """The RECALL_* variables set now, for a service that must see the same index and config."""
    return {k: v for k, v in os.environ.items() if k.startswith("RECALL_")}


def forget_loaded() -> None:
    """Drop the cached config, after recall itself rewrote the file."""
    _load.cache_clear()


def model_dir() -> str | None:
    return os.environ.get("RECALL_MODEL_DIR") or load_config().model_dir


DIGEST_CHILD = "RECALL_DIGEST_CHILD"


def digest_child() -> bool:
    """Whether this process runs inside a summariser `recall digest` started (docs/memory.md)."""
    return os.environ.get(DIGEST_CHILD) == "1"
