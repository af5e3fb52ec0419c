"""The daemon's token and the peers in config: files private, hashes matching, tokens not in clear.

No network: `recall peers test` asks the peers themselves.
"""

from __future__ import annotations

import ipaddress
import os
import stat
from urllib.parse import urlsplit

from recall import config
from recall.doctor.findings import OK, SKIP, WARN, Check, Context


def _loose(path: str) -> bool:
    """Whether a token file can be read by other users."""
    try:
        return bool(os.stat(os.path.expanduser(path)).st_mode & (stat.S_IRWXG | stat.S_IRWXO))
    except OSError:
        return False


def _clear_text_beyond_loopback(url: str) -> bool:
    parts = urlsplit(url)
    if parts.scheme != "http" or not parts.hostname:
        return False
    if parts.hostname == "localhost":
        return False
    try:
        return not ipaddress.ip_address(parts.hostname).is_loopback
    except ValueError:
        return True


def _serve_problems() -> list[tuple[str, str]]:
    from recall.errors import ConfigError
    from recall.peers.auth import digest, read_token, token_path

    want = config.load_config().serve.token_sha256
    if not want:
        return []
    path = token_path()
    try:
        token = read_token(path)
    except ConfigError:
        return [
            (
                f"the daemon's token file {path} is missing or unreadable",
                "`recall serve --new-token`, then give the new token to your peers",
            )
        ]
    out = []
    if digest(token.encode()) != want:
        out.append(
            (
                f"{path} does not hold the token whose hash is in config",
                "`recall serve --new-token`, then give the new token to your peers",
            )
        )
    if _loose(str(path)):
        out.append((f"{path} can be read by other users", f"chmod 600 {path}"))
    return out


def _peer_problems(peer: config.PeerConfig) -> list[tuple[str, str]]:
    out = []
    if not peer.token_file:
        out.append(
            (
                f"peer {peer.name} has no token file: its daemon will refuse every search",
                f"recall peers remove {peer.name}; recall peers add {peer.name} {peer.url} "
                "--token-file F",
            )
        )
    elif not os.path.isfile(os.path.expanduser(peer.token_file)):
        out.append(
            (
                f"peer {peer.name}'s token file {peer.token_file} is missing",
                f"copy the peer's serve.token to {peer.token_file}",
            )
        )
    elif _loose(peer.token_file):
        out.append(
            (
                f"peer {peer.name}'s token file can be read by other users",
                f"chmod 600 {peer.token_file}",
            )
        )
    if _clear_text_beyond_loopback(peer.url):
        out.append(
            (
                f"peer {peer.name} is reached over plain http beyond loopback: "
                "the token and results cross the network unencrypted",
                "use an SSH tunnel or a VPN, or https (docs/serve.md)",
            )
        )
    return out


def check_peers(ctx: Context) -> Check:
    cfg = config.load_config()
    if not cfg.serve.token_sha256 and not cfg.peers:
        return Check("peers", SKIP, "no daemon token and no peers (docs/serve.md)")
    problems = _serve_problems()
    for peer in cfg.peers:
        problems += _peer_problems(peer)
    what = f"{len(cfg.peers)} peers" + (", a daemon token" if cfg.serve.token_sha256 else "")
    if not problems:
        return Check("peers", OK, f"{what}; token files private")
    return Check(
        "peers",
        WARN,
        f"{what}; {len(problems)} to look at",
        fix="; ".join(dict.fromkeys(fix for _, fix in problems)),
        details=[why for why, _ in problems],
    )
