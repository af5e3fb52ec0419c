"""`recall peers test`: is a peer reachable, does it take our token, what does it hold."""

from __future__ import annotations

import time

from recall import config
from recall.peers.client import PeerError, peer_text
from recall.peers.protocol import HEALTH
from recall.peers.registry import decode, target
from recall.record import Record


class Probe(Record):
    name: str
    url: str
    error: str | None = None
    computer: str | None = None
    version: str | None = None
    api: int | None = None
    sessions: int | None = None
    latency_ms: float | None = None


class Health(Record):
    """What a health answer may hold (a newer recall may add fields: they are ignored)."""

    ok: bool = True
    api: int | None = None
    version: str | None = None
    computer: str | None = None
    sessions: int | None = None


def probe(peer: config.PeerConfig) -> Probe:
    out = Probe(peer.name, peer.url)
    started = time.perf_counter()
    try:
        data = target(peer).get_json(HEALTH)
        health = decode(data, Health)
    except PeerError as exc:
        out.error = str(exc)
        return out
    assert isinstance(health, Health)
    out.latency_ms = round((time.perf_counter() - started) * 1000, 1)
    out.api, out.sessions = health.api, health.sessions
    out.computer = peer_text(health.computer, 80) if health.computer is not None else None
    out.version = peer_text(health.version, 40) if health.version is not None else None
    if not isinstance(data, dict) or "sessions" not in data:
        # health answers everyone; the counts only a valid token
        out.error = "reachable, but the token was refused (or none is set: --token-file)"
    return out
