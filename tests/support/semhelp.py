"""Helpers for the semantic-search tests: a small conversation corpus and a local HTTP server."""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

# Sessions whose words differ from the questions asked of them.
CORPUS = {
    "s-pandas": [
        ("user", "Our nightly report is slow. We load the CSV with pandas and group by region."),
        ("assistant", "Use categorical dtypes and read only the needed columns."),
    ],
    "s-retry": [
        ("user", "How should the payment client retry failed charges?"),
        ("assistant", "Exponential backoff with full jitter, at most six attempts."),
    ],
    "s-garden": [
        ("user", "My tomato plants have yellow leaves, what should I water them with?"),
        ("assistant", "Water at the base in the morning and check the soil drainage."),
    ],
    "s-prefs": [
        ("user", "Remember my editor preferences: dark theme, vim keys, 4-space indents."),
        ("assistant", "Noted your preferences."),
    ],
}


def model_files() -> Any:
    """The model a `needs_model` test embeds with: the real one when installed, else the
    tiny test model (conftest points RECALL_MODEL_DIR at it)."""
    from recall.semantic.manifest import load_manifest, locate

    return locate(load_manifest(), os.environ.get("RECALL_MODEL_DIR"))


def write_import(path: Path, corpus: dict[str, list[tuple[str, str]]] = CORPUS) -> Path:
    lines = []
    for n, (session, turns) in enumerate(corpus.items()):
        for i, (role, text) in enumerate(turns):
            stamp = f"2026-03-0{n + 1}T10:00:{i:02d}+00:00"
            lines.append(
                json.dumps({"session": session, "role": role, "text": text, "timestamp": stamp})
            )
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


Handler = Callable[[BaseHTTPRequestHandler], None]


@contextmanager
def http_server(
    get: dict[str, bytes] | None = None,
    post: Handler | None = None,
    ranges: bool = False,
    sent: list[int] | None = None,
) -> Iterator[str]:
    """A loopback server for the duration of a test: GET serves `get`, POST calls `post`.

    With `ranges`, a `Range: bytes=a-b` (or `bytes=-n`) request gets 206 and
    just those bytes, as PyPI's file host does. `sent` collects body sizes.
    """
    files = get or {}

    class _H(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            body = files.get(self.path)
            if body is None:
                self.send_error(404)
                return
            wanted = self.headers.get("Range", "")
            if ranges and wanted.startswith("bytes="):
                first, _, last = wanted.removeprefix("bytes=").partition("-")
                if not first:
                    start, end = max(0, len(body) - int(last)), len(body) - 1
                else:
                    start, end = int(first), int(last) if last else len(body) - 1
                body = body[start : end + 1]
                self.send_response(206)
            else:
                self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
            if sent is not None:
                sent.append(len(body))

        def do_POST(self) -> None:
            if post is None:
                self.send_error(405)
                return
            post(self)

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), _H)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)
