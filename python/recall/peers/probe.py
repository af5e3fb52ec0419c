"""`recall peers test`: is a peer reachable, does it take our token, what does it hold."""

from __future__ import annotations

import time

from recall import config
from recall.peers.client import PeerError
from recall.peers.protocol import HEALTH
from recall.peers.registry import target
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


def probe(peer: config.PeerConfig) -> Probe:
    out = Probe(peer.name, peer.url)
    started = time.perf_counter()
    try:
        data = target(peer).get_json(HEALTH)
    except PeerError as exc:
        out.error = str(exc)
        return out
    out.latency_ms = round((time.perf_counter() - started) * 1000, 1)
    if not isinstance(data, dict):
        out.error = "the health answer is not an object"
        return out
    out.computer, out.version, out.api = data.get("computer"), data.get("version"), data.get("api")
    if "sessions" not in data:  # health answers everyone; the counts only a valid token
        out.error = "reachable, but the token was refused (or none is set: --token-file)"
        return out
    out.sessions = data.get("sessions")
    return out
