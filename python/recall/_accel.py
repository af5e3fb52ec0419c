"""The one place that imports `recall._core`: picks the Rust core or the twin.

`RECALL_IMPL=auto` (default) uses the Rust core when it is importable and built
from this same version, else the pure-Python twin; `rust` insists on the Rust
core (an error if it is missing); `python` forces the twin.
"""

from __future__ import annotations

from collections.abc import Callable
from types import ModuleType
from typing import Any

from recall import __version__
from recall.config import core_wanted
from recall.errors import ConfigError


def twin() -> ModuleType:
    """The pure-Python twin as one module with `recall._core`'s names (parity tests use it).

    Its ranking and redaction modules load here; the transcript readers on first parse.
    """
    if _TWIN:
        return _TWIN[0]
    from recall._twin import rank, redact, reminders

    module = ModuleType("recall._twin.core", "The twin, shaped like recall._core.")
    module.__dict__.update(
        __version__=__version__,
        strip_reminders=reminders.strip_reminders,
        tokenize=rank.tokenize,
        bm25_scores=rank.bm25_scores,
        dedup=rank.dedup,
        redact=redact.redact,
        secret_spans=redact.secret_spans,
        parse_transcript=_twin_parse,
    )
    _TWIN.append(module)
    return module


_TWIN: list[ModuleType] = []


def _twin_parse(*args: Any) -> Any:
    from recall._twin.transcript import parse_transcript

    return parse_transcript(*args)


NO_CORE = "this install has no Rust core (built without cargo, or the pure wheel)"


def _select() -> tuple[ModuleType, str, str]:
    """The core to use; the twin is imported only when chosen (hooks pay for imports)."""
    wanted = core_wanted()
    if wanted == "python":
        return twin(), "python", "RECALL_IMPL=python"
    try:
        from recall import _core  # type: ignore[attr-defined,unused-ignore]
    except ImportError as exc:
        if wanted == "rust":
            raise ConfigError(f"RECALL_IMPL=rust but the Rust core is not built: {exc}") from exc
        return twin(), "python", NO_CORE
    if _core.__version__ != __version__:
        reason = f"Rust core {_core.__version__} does not match recall {__version__}"
        if wanted == "rust":
            raise ConfigError(reason)
        return twin(), "python", reason
    return _core, "rust", "RECALL_IMPL=rust" if wanted == "rust" else "Rust core available"


core, IMPL, IMPL_REASON = _select()
"""The active core module, its name (`rust`/`python`) and why it was chosen."""

strip_reminders = core.strip_reminders

# Ranking where result lists meet (see `recall.search.rank`).
tokenize = core.tokenize
bm25_scores = core.bm25_scores
dedup = core.dedup

# --- secret redaction ---
redact: Callable[[str], str] = core.redact
secret_spans: Callable[[str], list[tuple[int, int, str]]] = core.secret_spans

# --- transcript parsing ---
parse_transcript = core.parse_transcript
"""Transcript bytes to plain records (see `_core.pyi`); `recall.agents.transcript` wraps it."""
