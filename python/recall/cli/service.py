"""`recall service install|uninstall|status`: run `recall serve` at login, as the user.

A systemd user unit on Linux, a launchd agent on macOS. The file is written
and shown; unless `--no-start`, the service manager is then asked to load
and start it (its own words are shown when it refuses).
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

UNIT = "recall.service"
LABEL = "dev.recall.serve"


def add_parser(subs: Any) -> None:
    p = subs.add_parser("service", help="run `recall serve` at login (systemd user unit, launchd)")
    p.add_argument("action", choices=("install", "uninstall", "status"))
    p.add_argument(
        "--no-start",
        action="store_true",
        help="only write or remove the file; leave the manager be",
    )
    p.add_argument(
        "--platform", choices=("linux", "macos"), help="which kind of file (default: this system's)"
    )
    p.set_defaults(run=run)


def _platform(asked: str | None) -> str:
    from recall.errors import UsageError

    if asked:
        return asked
    if sys.platform == "darwin":
        return "macos"
    if sys.platform.startswith("linux"):
        return "linux"
    raise UsageError(
        "recall service knows systemd (Linux) and launchd (macOS); run `recall serve` yourself here"
    )


def _command() -> list[str]:
    return [sys.executable, "-m", "recall", "serve"]


def unit_path() -> Path:
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "systemd" / "user" / UNIT


def plist_path() -> Path:
    return Path.home() / "Library" / "LaunchAgents" / f"{LABEL}.plist"


def _quote(arg: str) -> str:
    if arg and all(c.isalnum() or c in "/._-+=:@" for c in arg):
        return arg
    return '"' + arg.replace("\\", "\\\\").replace('"', '\\"') + '"'


def systemd_unit() -> str:
    from recall.config import recall_environment

    env = "".join(
        f"Environment={_quote(f'{k}={v}')}\n" for k, v in sorted(recall_environment().items())
    )
    return (
        "[Unit]\n"
        "Description=recall: peer API, index worker and warm model (recall serve)\n"
        "After=network-online.target\n\n"
        "[Service]\n"
        f"ExecStart={' '.join(_quote(a) for a in _command())}\n"
        f"{env}"
        "Restart=on-failure\n"
        "RestartSec=5\n"
        "KillSignal=SIGTERM\n"
        "TimeoutStopSec=90\n\n"
        "[Install]\n"
        "WantedBy=default.target\n"
    )


def launchd_plist() -> str:
    import plistlib

    from recall.config import data_dir, recall_environment

    doc: dict[str, Any] = {
        "Label": LABEL,
        "ProgramArguments": _command(),
        "RunAtLoad": True,
        "KeepAlive": {"SuccessfulExit": False},
        "StandardErrorPath": str(data_dir() / "serve.log"),
        "ProcessType": "Background",
    }
    if recall_environment():
        doc["EnvironmentVariables"] = recall_environment()
    return plistlib.dumps(doc).decode()


def _manager(argv: list[str]) -> str | None:
    """Run a service-manager command; None when it worked, else what went wrong."""
    if shutil.which(argv[0]) is None:
        return f"{argv[0]} is not on PATH"
    done = subprocess.run(argv, capture_output=True, text=True, timeout=60, check=False)
    if done.returncode != 0:
        return f"`{' '.join(argv)}` failed: {(done.stderr or done.stdout).strip()[:300]}"
    return None


def _no_user_bus(problem: str) -> bool:
    """Whether systemctl failed for want of a systemd user session (no user bus: a
    container, `su`, an SSH login without a session), not for the unit itself."""
    signs = ("Failed to connect to bus", "DBUS_SESSION_BUS_ADDRESS", "XDG_RUNTIME_DIR")
    return any(sign in problem for sign in signs)


def _without_systemd(path: Path, action: str) -> str:
    """One line for `service install|uninstall` where no systemd user session is running."""
    if action == "install":
        return (
            f"no systemd user session here (systemctl --user cannot reach the user bus), "
            f"so {path} is written but not started: in a login session run "
            f"`systemctl --user enable --now {UNIT}` (for it to run without one, as root: "
            f"`loginctl enable-linger $USER`), or just run `recall serve`"
        )
    return f"no systemd user session here to stop {UNIT} in; its unit file is removed"


def run(args: argparse.Namespace) -> int:
    kind = _platform(args.platform)
    path = unit_path() if kind == "linux" else plist_path()
    if args.action == "status":
        return _status(kind, path)
    if args.action == "install":
        text = systemd_unit() if kind == "linux" else launchd_plist()
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        print(f"wrote {path}:\n\n{text}")
        steps = (
            [
                ["systemctl", "--user", "daemon-reload"],
                ["systemctl", "--user", "enable", "--now", UNIT],
            ]
            if kind == "linux"
            else [["launchctl", "load", "-w", str(path)]]
        )
    else:
        if not path.exists():
            print(f"nothing to remove: {path} does not exist")
            return 0
        steps = (
            [["systemctl", "--user", "disable", "--now", UNIT]]
            if kind == "linux"
            else [["launchctl", "unload", "-w", str(path)]]
        )
    if args.no_start:
        shown = "; ".join(" ".join(s) for s in steps)
        print(f"not touching the service manager (--no-start); to do it yourself: {shown}")
    else:
        for step in steps:
            problem = _manager(step)
            if problem and kind == "linux" and _no_user_bus(problem):
                problem = _without_systemd(path, args.action)
            if problem:
                sys.stderr.write(f"recall: {problem}\n")
                if args.action == "install":
                    return 1
                break
    if args.action == "uninstall":
        path.unlink()
        print(f"removed {path}")
    return 0


def _status(kind: str, path: Path) -> int:
    from recall.peers.protocol import HEALTH
    from recall.peers.warm import local_daemon

    print(f"service file: {path} ({'present' if path.exists() else 'absent'})")
    daemon = local_daemon()
    if daemon is None:
        print("daemon: not running (no live serve.json in the data folder)")
        return 1
    from recall.peers.client import PeerError

    try:
        data = daemon.get_json(HEALTH)
    except PeerError as exc:
        print(f"daemon: not answering at {daemon.url}: {exc}")
        return 1
    who, held = data.get("computer"), data.get("sessions")
    print(f"daemon: running at {daemon.url}, computer {who}, {held} sessions")
    return 0
