"""`recall show SESSION --computer NAME [--raw|--json]`: one mirror or transcript from a peer."""

from __future__ import annotations

from collections.abc import Iterator

from recall.errors import NotFoundError, RecallError
from recall.peers.client import PeerError, mirror_path, peer_text
from recall.peers.registry import decode, find, is_local, target
from recall.store.queries import Mirror


def is_remote(name: str) -> bool:
    """Whether `--computer NAME` names a peer, not this computer; unknown names: UsageError."""
    if is_local(name):
        return False
    find(name)
    return True


def _failed(name: str, exc: PeerError) -> RecallError:
    text = peer_text(str(exc), 400)  # it may quote the peer: one clean line
    if text.startswith("HTTP 404: "):
        return NotFoundError(f"{name}: {text.removeprefix('HTTP 404: ')}")
    return RecallError(f"{name}: {text}")


def fetch_mirror(name: str, session: str, agent: str | None = None) -> Mirror:
    peer = find(name)
    params = [("agent", agent)] if agent else None
    try:
        mirror = decode(target(peer).get_json(mirror_path(session), params), Mirror)
    except PeerError as exc:
        raise _failed(name, exc) from None
    assert isinstance(mirror, Mirror)
    return mirror


def fetch_transcript(name: str, session: str, agent: str | None = None) -> Iterator[bytes]:
    peer = find(name)
    path = mirror_path(session, transcript=True)
    if agent:
        from urllib.parse import urlencode

        path += "?" + urlencode({"agent": agent})
    try:
        stream = target(peer).stream(path)
        first = next(stream, b"")  # the status arrives with the first read: fail before printing
    except PeerError as exc:
        raise _failed(name, exc) from None
    yield first
    try:
        yield from stream
    except PeerError as exc:
        raise _failed(name, exc) from None
