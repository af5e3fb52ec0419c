"""Fake secrets of real shapes, and agent transcripts that carry them.

Every secret is generated here from a seeded RNG (never a real credential).
`Secret.needle` is what must never reach the index; `Secret.text` is how a
person or a tool would paste it into a conversation.
"""

from __future__ import annotations

import base64
import json
import os
import random
import string
from pathlib import Path

import msgspec

from recall import config

ALNUM = string.ascii_letters + string.digits
UPPER_NUM = string.ascii_uppercase + string.digits
URLSAFE = ALNUM + "-_"
B64 = ALNUM + "+/"
HEX = "0123456789abcdef"


class Secret(msgspec.Struct):
    kind: str
    needle: str
    text: str


def _r(rng: random.Random, chars: str, n: int) -> str:
    return "".join(rng.choice(chars) for _ in range(n))


def _password(rng: random.Random) -> str:
    return (
        _r(rng, string.ascii_letters, 6)
        + _r(rng, string.digits, 3)
        + rng.choice("!@#%^&*")
        + _r(rng, ALNUM, 4)
    )


def _pem(rng: random.Random, kind: str, sep: str = "\n") -> str:
    body = sep.join(_r(rng, B64, 64) for _ in range(6))
    return f"-----BEGIN {kind}-----{sep}{body}{sep}-----END {kind}-----"


def secrets(seed: int = 5) -> list[Secret]:
    """At least 20 formats; each call with the same seed gives the same secrets."""
    rng = random.Random(seed)
    out: list[Secret] = []

    def add(kind: str, needle: str, template: str) -> None:
        out.append(Secret(kind, needle, template.format(s=needle)))

    add("openai", "sk-proj-" + _r(rng, URLSAFE, 64), "export OPENAI_API_KEY={s}")
    add(
        "anthropic", "sk-ant-api03-" + _r(rng, URLSAFE, 93) + "AA", "use this key: {s} for the test"
    )
    add("aws-key-id", "AKIA" + _r(rng, UPPER_NUM, 16), "aws_access_key_id = {s}")
    add("aws-secret", _r(rng, B64, 40), "aws_secret_access_key = {s}")
    add("gcp-api-key", "AIza" + _r(rng, URLSAFE, 35), "const key = '{s}';")
    sa = _pem(rng, "PRIVATE KEY", "\\n")
    add("gcp-service-account", sa, '{{"type": "service_account", "private_key": "{s}\\n"}}')
    add(
        "github-classic",
        "ghp_" + _r(rng, ALNUM, 36),
        "git remote set-url origin https://{s}@github.com/o/r",
    )
    add(
        "github-fine",
        "github_pat_" + _r(rng, ALNUM, 22) + "_" + _r(rng, ALNUM, 59),
        "GH_TOKEN={s} gh pr list",
    )
    add("github-app", "ghs_" + _r(rng, ALNUM, 36), "the installation token ({s}) expired")
    add("gitlab", "glpat-" + _r(rng, URLSAFE, 20), "PRIVATE-TOKEN: {s}")
    add(
        "slack-bot",
        f"xoxb-{_r(rng, string.digits, 12)}-{_r(rng, string.digits, 13)}-{_r(rng, ALNUM, 24)}",
        "SLACK_BOT_TOKEN={s}",
    )
    hook = f"T{_r(rng, UPPER_NUM, 8)}/B{_r(rng, UPPER_NUM, 10)}/{_r(rng, ALNUM, 24)}"
    add("slack-webhook", hook, "post to https://hooks.slack.com/services/{s} when done")
    add("stripe-live", "sk_live_" + _r(rng, ALNUM, 24), 'Stripe.api_key = "{s}"')
    add("stripe-restricted", "rk_live_" + _r(rng, ALNUM, 24), "restricted key {s}")
    add(
        "huggingface",
        "hf_" + _r(rng, string.ascii_letters, 34),
        "huggingface-cli login --token {s}",
    )
    add("npm", "npm_" + _r(rng, ALNUM, 36), "//registry.npmjs.org/:_authToken={s}")
    add("rsa-private-key", _pem(rng, "RSA PRIVATE KEY"), "here is the key file:\n{s}\nkeep it safe")
    add("openssh-private-key", _pem(rng, "OPENSSH PRIVATE KEY"), "{s}")
    header = base64.urlsafe_b64encode(b'{"alg":"HS256","typ":"JWT"}').rstrip(b"=").decode()
    payload = (
        base64.urlsafe_b64encode(json.dumps({"sub": _r(rng, HEX, 12)}).encode())
        .rstrip(b"=")
        .decode()
    )
    add("jwt", f"{header}.{payload}.{_r(rng, URLSAFE, 43)}", "cookie session={s}; Path=/")
    add("url-password", _password(rng), "DATABASE_URL=postgres://app:{s}@db.internal:5432/prod")
    add("bearer", _r(rng, ALNUM, 40), 'curl -H "Authorization: Bearer {s}" https://api.internal/v1')
    basic = base64.b64encode(f"admin:{_password(rng)}".encode()).decode()
    add("basic-auth", basic, "Authorization: Basic {s}")
    add("env-password", _password(rng), "DB_PASSWORD={s}")
    add("json-password", _password(rng), '{{"user": "root", "password": "{s}"}}')
    add("yaml-secret", _r(rng, ALNUM, 32), "client_secret: {s}")
    add("generic-near-key", _r(rng, ALNUM, 40), "my deploy token is {s} please rotate it")
    add("sendgrid", f"SG.{_r(rng, URLSAFE, 22)}.{_r(rng, URLSAFE, 43)}", "SENDGRID={s}")
    add("pypi", "pypi-AgEIcHlwaS5vcmc" + _r(rng, URLSAFE, 60), "twine upload -p {s}")
    add("telegram", f"{_r(rng, string.digits, 10)}:AA{_r(rng, URLSAFE, 33)}", "bot = Bot('{s}')")
    # forms an adversarial review found uncaught (issue 11)
    add("url-password-no-user", _password(rng), "REDIS_URL=redis://:{s}@cache.internal:6379/0")
    add("curl-user", _password(rng), "curl -u deploy:{s} https://artifacts.internal/upload")
    add("docker-login", _password(rng), "docker login -u ci -p {s} registry.internal")
    key_id = "AKIA" + _r(rng, UPPER_NUM, 16)
    add("aws-pair", _r(rng, B64, 40), "aws " + key_id + " / {s}")
    # last: the corpus also writes the last needle, bare, into a git branch name
    add("age", "AGE-SECRET-KEY-1" + _r(rng, "QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L".upper(), 58), "{s}")
    return out


def tokens(needle: str) -> list[str]:
    """The pieces FTS would index from a secret (runs of 12+ letters and digits), lowercased."""
    runs, cur = [], ""
    for ch in needle + " ":
        if ch.isalnum():
            cur += ch
        else:
            if len(cur) >= 12:
                runs.append(cur.lower())
            cur = ""
    return runs


# --- transcripts in each agent's format ----------------------------------------


def claude_transcript(path: Path, sid: str, cwd: str, items: list[Secret]) -> None:
    # the summary names the session's last message, so it is the session's title
    leaf = f"{sid}-assistant-{len(items) - 1}"
    lines = [{"type": "summary", "summary": f"deploy notes {items[0].text}", "leafUuid": leaf}]
    for n, s in enumerate(items):
        for role, text in (
            ("user", f"please use {s.text}"),
            ("assistant", f"Configured: {s.text}"),
        ):
            content = text if role == "user" else [{"type": "text", "text": text}]
            lines.append(
                {
                    "type": role,
                    "timestamp": f"2026-01-02T10:{n:02d}:0{0 if role == 'user' else 5}.000Z",
                    "sessionId": sid,
                    "cwd": cwd,
                    "gitBranch": f"fix/{items[-1].needle}",
                    "message": {"role": role, "content": content},
                    "uuid": f"{sid}-{role}-{n}",
                }
            )
    write_jsonl(path, lines)


def codex_transcript(path: Path, sid: str, cwd: str, items: list[Secret]) -> None:
    lines: list[dict[str, object]] = [
        {
            "type": "session_meta",
            "timestamp": "2026-01-02T10:00:00Z",
            "payload": {
                "id": sid,
                "cwd": cwd,
                "originator": "codex_cli_rs",
                "timestamp": "2026-01-02T10:00:00Z",
            },
        }
    ]
    for n, s in enumerate(items):
        for role, kind in (("user", "input_text"), ("assistant", "output_text")):
            lines.append(
                {
                    "type": "response_item",
                    "timestamp": f"2026-01-02T10:{n:02d}:01Z",
                    "payload": {
                        "type": "message",
                        "role": role,
                        "content": [{"type": kind, "text": f"{role} says {s.text}"}],
                    },
                }
            )
    write_jsonl(path, lines)


def gemini_transcript(path: Path, sid: str, items: list[Secret]) -> None:
    lines: list[dict[str, object]] = [
        {
            "sessionId": sid,
            "projectHash": "0" * 64,
            "startTime": "2026-01-02T10:00:00.000Z",
            "lastUpdated": "2026-01-02T10:00:00.000Z",
            "kind": "main",
        }
    ]
    for n, s in enumerate(items):
        lines.append(
            {
                "id": f"u{n}",
                "timestamp": f"2026-01-02T10:{n:02d}:00.000Z",
                "type": "user",
                "content": [{"text": f"note: {s.text}"}],
            }
        )
        lines.append(
            {
                "id": f"a{n}",
                "timestamp": f"2026-01-02T10:{n:02d}:05.000Z",
                "type": "gemini",
                "content": f"Stored {s.text}",
                "thoughts": [],
                "model": "gemini-test",
            }
        )
    write_jsonl(path, lines)


def write_jsonl(path: Path, lines: list[dict[str, object]]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")


def agent_files(root: Path, items: list[Secret]) -> dict[str, Path]:
    """One transcript per agent under `root`, each carrying every secret."""
    claude = (
        root / ".claude" / "projects" / "-work-app" / "11111111-2222-4333-8444-555555555555.jsonl"
    )
    claude_transcript(claude, "11111111-2222-4333-8444-555555555555", "/work/app", items)
    codex = (
        root
        / ".codex"
        / "sessions"
        / "2026"
        / "01"
        / "02"
        / "rollout-2026-01-02T10-00-00-0199aaaa-bbbb-7ccc-8ddd-eeeeffff0000.jsonl"
    )
    codex_transcript(codex, "0199aaaa-bbbb-7ccc-8ddd-eeeeffff0000", "/work/api", items)
    gemini = root / ".gemini" / "tmp" / "app" / "chats" / "session-2026-01-02T10-00-gem00001.jsonl"
    gemini_transcript(gemini, "gem00001-0000-4000-8000-000000000001", items)
    return {"claude": claude, "codex": codex, "gemini": gemini}


PATHLESS = {"url-password", "url-password-no-user"}
"""Forms a path cannot hold: the OS folds the `//` of `scheme://` into `/`, and what is
left is no longer a URL. The log test covers them by logging their text directly."""


def unreadable_in_folders(projects: Path, items: list[Secret]) -> list[Path]:
    """For each secret, a transcript that sync passes over (its name is not UTF-8) in a
    folder whose path carries the secret as typed, as a Claude project folder can."""
    made = []
    for n, s in enumerate(items):
        if s.kind in PATHLESS:
            continue
        folder = Path(f"{projects}/-p{n}/{s.text} end")  # a `/` in the text makes subfolders
        folder.mkdir(parents=True, exist_ok=True)
        name = os.fsencode(folder) + b"/caf\xe9.jsonl"
        with open(name, "wb") as fh:
            fh.write(b"{}\n")
        made.append(folder)
    return made


def write_config(home: Path, text: str) -> None:
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.toml").write_text(text, encoding="utf-8")
    config._load.cache_clear()


def db_bytes(home: Path) -> bytes:
    """The database file and its WAL, lowercased (FTS keeps tokens in lower case)."""
    data = b""
    for name in ("recall.db", "recall.db-wal"):
        path = home / name
        if path.exists():
            data += path.read_bytes()
    return data.lower()


def leaks(blob: str | bytes, items: list[Secret]) -> list[str]:
    """Kinds of secret whose value, or any 12+ character token of it, appears in `blob`."""
    low = blob.lower() if isinstance(blob, str) else blob.decode("utf-8", "replace")
    found = []
    for s in items:
        if s.needle.lower() in low or any(t in low for t in tokens(s.needle)):
            found.append(s.kind)
    return found
