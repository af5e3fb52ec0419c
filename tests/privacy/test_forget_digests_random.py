"""Random histories of chats, digests and forgets: once the day is digested again, the
daily log holds every message of the surviving sessions exactly once and nothing of a
forgotten one (issue 21, item 5: forget regenerates what it takes back)."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from clihelp import call
from digesthelp import DAY, chat_file, configure


@pytest.mark.parametrize("seed", range(8))
def test_forget_then_digest_again_leaves_each_surviving_message_once(
    seed: int, capsys: pytest.CaptureFixture[str], tmp_path: Path, recall_home: Path
) -> None:
    rng = random.Random(seed)
    configure(tmp_path, recall_home, "max_tokens = 60\n")  # a few messages a digest
    chats: dict[str, list[tuple[str, str]]] = {f"s{n}": [] for n in range(4)}
    gone: set[str] = set()
    for _ in range(24):
        alive = [s for s in chats if s not in gone]
        if not alive:
            break
        action = rng.random()
        if action < 0.6:
            name = rng.choice(alive)
            chats[name].append(("user", f"{name} says {name}m{len(chats[name])}"))
            src = chat_file(tmp_path, name, chats[name])
            assert call(capsys, "ingest", "--format", "jsonl", str(src))[0] == 0
        elif action < 0.92 or len(alive) < 3:
            assert call(capsys, "digest", "--date", DAY)[0] == 0
        elif any(chats[s] for s in alive):
            name = rng.choice([s for s in alive if chats[s]])
            code, _, err = call(capsys, "forget", name)
            assert code == 0, err
            gone.add(name)
    while True:
        code, out, err = call(capsys, "digest", "--date", DAY, "--json")
        assert code == 0, err
        if not json.loads(out)["messages"]:
            break
    log_path = recall_home / "daily" / f"{DAY}.md"
    log = log_path.read_text() if log_path.exists() else ""
    for name, turns in chats.items():
        for _, text in turns:
            want = 0 if name in gone else 1
            assert log.count(f"User: {text}\n") == want, (seed, name, text, log)
