"""Downloading a model's files for users who have the internet, verified before use.

Each file streams into a temporary file beside its destination while its
sha256 is computed; only a file with the manifest's checksum is renamed into
place, so an interrupted or tampered download never becomes the model. A
source may be a zip (a PyPI wheel) with the file as one member: then only
that member's bytes are fetched, with HTTP range requests
(`semantic.remote_zip`), unless the server sends whole files only.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import urllib.request
import zipfile
from collections.abc import Callable
from pathlib import Path

from recall.semantic import ModelError
from recall.semantic.manifest import FileSpec, Manifest, cache_dir, sha256_file

TIMEOUT_S = 60
MAX_BYTES = 1 << 30

Progress = Callable[[str, int, int], None]


def _stream(url: str, out: Path, limit: int, progress: Progress | None, label: str) -> None:
    request = urllib.request.Request(url, headers={"User-Agent": "recall"})
    try:
        with urllib.request.urlopen(request, timeout=TIMEOUT_S) as resp, open(out, "wb") as fh:
            total = int(resp.headers.get("Content-Length") or 0)
            done = 0
            while block := resp.read(1 << 20):
                done += len(block)
                if done > limit:
                    raise ModelError(f"download of {label} from {url} exceeds {limit} bytes")
                fh.write(block)
                if progress:
                    progress(label, done, total)
    except OSError as exc:  # URLError, HTTPError, timeouts, disk errors
        raise ModelError(f"cannot download {label} from {url}: {exc}") from exc


def fetch_file(name: str, spec: FileSpec, dest: Path, progress: Progress | None = None) -> Path:
    """Download one file to `dest/name`, verified; returns its path."""
    if spec.url is None:
        raise ModelError(f"the manifest gives no download address for {name}")
    dest.mkdir(parents=True, exist_ok=True)
    target = dest / name
    fd, tmp_name = tempfile.mkstemp(prefix=f".{name}.", dir=dest)
    os.close(fd)
    tmp = Path(tmp_name)
    try:
        if spec.member is None:
            _stream(spec.url, tmp, max(spec.size * 2, 1 << 20), progress, name)
        elif not _fetch_member(spec.url, spec.member, tmp, progress, name):
            _fetch_archive(spec.url, spec.member, tmp, progress, name)
        digest = sha256_file(tmp)
        if digest != spec.sha256:
            raise ModelError(
                f"downloaded {name} has sha256 {digest[:12]}…, expected {spec.sha256[:12]}…: "
                "not using it"
            )
        os.replace(tmp, target)
    finally:
        tmp.unlink(missing_ok=True)
    return target


def _fetch_member(url: str, member: str, out: Path, progress: Progress | None, label: str) -> bool:
    """Fetch one member of the zip at `url` by range; False when the server sends whole
    files only (the caller then downloads the archive)."""
    from recall.semantic.remote_zip import NoRanges, find_member, stream_member

    def show(done: int, total: int) -> None:
        if progress:
            progress(label, done, total)

    try:
        entry = find_member(url, member)
        if entry.size > MAX_BYTES:
            raise ModelError(f"{label} in {url} is larger than {MAX_BYTES} bytes")
        with open(out, "wb") as fh:
            stream_member(url, entry, fh, show)
    except NoRanges:
        return False
    except KeyError:
        raise ModelError(f"{url} holds no {member}") from None
    except (OSError, ValueError) as exc:  # URLError, HTTPError, timeouts, a bad archive
        raise ModelError(f"cannot download {label} from {url}: {exc}") from exc
    return True


def _fetch_archive(url: str, member: str, out: Path, progress: Progress | None, label: str) -> None:
    """Download the whole zip at `url` and extract `member` (servers without ranges)."""
    raw = out.with_suffix(".zip")
    try:
        _stream(url, raw, MAX_BYTES, progress, label)
        _extract(raw, member, out, label)
    finally:
        raw.unlink(missing_ok=True)


def _extract(archive: Path, member: str, out: Path, label: str) -> None:
    try:
        with zipfile.ZipFile(archive) as zf, zf.open(member) as src, open(out, "wb") as dst:
            shutil.copyfileobj(src, dst, 1 << 20)
    except (zipfile.BadZipFile, KeyError) as exc:
        raise ModelError(f"the download for {label} is not the expected archive: {exc}") from exc


def fetch(
    manifest: Manifest, dest: Path | None = None, progress: Progress | None = None
) -> list[str]:
    """Download every file of `manifest` not already present and verified; names fetched."""
    dest = dest or cache_dir(manifest)
    fetched = []
    for name, spec in manifest.files.items():
        have = dest / name
        if have.is_file() and have.stat().st_size == spec.size and sha256_file(have) == spec.sha256:
            continue
        fetch_file(name, spec, dest, progress)
        fetched.append(name)
    return fetched
