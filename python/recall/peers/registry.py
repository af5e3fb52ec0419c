"""The peers named in config: look them up, add and remove them, and reach them.

A name is what `--computer` takes. `local` (or this computer's own name)
means this computer; `all` means this computer and every peer; `team` is the
team's index (docs/team.md), never a peer.
"""

from __future__ import annotations

from recall import config
from recall.errors import ConfigError, UsageError
from recall.peers.client import PeerError, Target, url_problem
from recall.record import ConversionError, Record, convert
from recall.search.request import TEAM

LOCAL = "local"
ALL = "all"
RESERVED = (LOCAL, ALL, TEAM)


def peers() -> list[config.PeerConfig]:
    return list(config.load_config().peers)


def find(name: str) -> config.PeerConfig:
    for peer in peers():
        if peer.name == name:
            return peer
    raise UsageError(f"no peer named {name!r}{_known_note()}")


def _known_note() -> str:
    names = [p.name for p in peers()]
    return (
        f" (peers: {', '.join(names)}; or local)"
        if names
        else " (no peers yet: `recall peers add`)"
    )


def is_local(name: str) -> bool:
    return name == LOCAL or name == config.computer_name()


def resolve(names: list[str]) -> tuple[bool, list[config.PeerConfig]]:
    """Whether this computer is asked, and which peers, for `--computer NAMES`."""
    if ALL in names:
        return True, peers()
    local = any(is_local(n) for n in names)
    chosen: list[config.PeerConfig] = []
    for name in names:
        if not is_local(name) and all(p.name != name for p in chosen):
            chosen.append(find(name))
    return local, chosen


def target(peer: config.PeerConfig) -> Target:
    """How to reach `peer`; PeerError when its token file cannot be read."""
    from recall.peers.auth import read_token

    token = None
    if peer.token_file:
        try:
            token = read_token(peer.token_file)
        except ConfigError as exc:
            raise PeerError(str(exc)) from None
    return Target(peer.url, token, peer.timeout, peer.ca_file)


def check_name(name: str) -> str:
    if name in RESERVED or not name or not all(c.isalnum() or c in "-_." for c in name):
        raise UsageError(
            f"{name!r} cannot name a peer: use letters, digits, - _ . (not local, all or team)"
        )
    return name


def save(new: list[config.PeerConfig]) -> str:
    from recall.peers.configfile import write_managed

    return str(write_managed(config.load_config().serve, new))


def add(peer: config.PeerConfig) -> str:
    check_name(peer.name)
    if peer.name == config.computer_name():
        raise UsageError(f"{peer.name!r} is this computer's own name: give the peer another")
    problem = url_problem(peer.url)  # the URL is checked before anything is written
    if problem is not None:
        raise UsageError(f"{peer.url!r} cannot be a peer's URL: {problem}")
    if any(p.name == peer.name for p in peers()):
        raise UsageError(f"a peer named {peer.name!r} exists: `recall peers remove` it first")
    return save([*peers(), peer])


def remove(name: str) -> str:
    find(name)
    return save([p for p in peers() if p.name != name])


def decode(data: object, cls: type[Record]) -> Record:
    """A peer's JSON as `cls`, ignoring fields a newer recall added (the JSON is additive)."""
    if not isinstance(data, dict):
        raise PeerError("the answer is not an object")
    known = {k: v for k, v in data.items() if k in cls._record_fields}
    try:
        return convert(known, cls)
    except ConversionError as exc:
        raise PeerError(f"the answer does not fit: {exc}") from None
