"""recall's own log: where hooks report what went wrong, since they must stay silent."""

from __future__ import annotations

import os
import time

from recall import config

_MAX_BYTES = 1_000_000


def log(message: str) -> None:
    """Append one line to recall.log (rotating at ~1 MB); never raises."""
    try:
        path = config.log_path()
        path.parent.mkdir(parents=True, exist_ok=True)
        try:
            if path.stat().st_size > _MAX_BYTES:
                os.replace(path, path.with_suffix(".log.1"))
        except FileNotFoundError:
            pass
        stamp = time.strftime("%Y-%m-%dT%H:%M:%S%z")
        from recall.privacy.redaction import redact_text  # a logged error may quote a secret

        line = " ".join(redact_text(message).split())
        with open(path, "a", encoding="utf-8", errors="replace") as fh:
            fh.write(f"{stamp} [{os.getpid()}] {line}\n")
    except Exception:
        pass
