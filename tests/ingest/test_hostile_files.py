"""Files that used to stop, hang or exhaust recall: each is passed over, named, and logged.

Under a Claude agent root sit, beside good transcripts, a symlink to
/dev/zero, a FIFO, a file whose name is not UTF-8, a symlink loop and a
transcript with a 200 MB line, and two sessions sharing a line uuid with other
text. `recall sync` (a real process, on the core
this pass runs) must finish, index the good ones, name each file it passed
over, and stay under 500 MB of memory; a hook pointed at each returns 0 fast.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="FIFOs and /dev/zero are POSIX")

BIG_LINE = 200 * 1024 * 1024
PEAK_RSS_MB = 500


def _line(uuid: str, text: str, role: str = "user", session: str = "s") -> bytes:
    message = {"role": role, "content": text}
    record = {"type": role, "uuid": uuid, "sessionId": session, "message": message}
    return (json.dumps(record) + "\n").encode()


@pytest.fixture
def project(recall_home: Path) -> Path:
    home = Path(os.environ["HOME"])
    folder = home / ".claude" / "projects" / "-work-app"
    folder.mkdir(parents=True)
    return folder


def _hostile(folder: Path) -> dict[str, str]:
    """Write the corpus; returns each hostile file's name and the reason sync must give."""
    (folder / "good.jsonl").write_bytes(
        _line("g1", "the good session talks about kafka", session="good")
    )
    # two sessions whose lines share a uuid, with other text: both are kept
    (folder / "twin-a.jsonl").write_bytes(_line("same-uuid", "alpha says walrus", session="twin-a"))
    (folder / "twin-b.jsonl").write_bytes(_line("same-uuid", "beta says narwhal", session="twin-b"))
    os.symlink("/dev/zero", folder / "zero.jsonl")
    os.mkfifo(folder / "pipe.jsonl")
    bad_name = os.fsencode(folder) + b"/caf\xe9.jsonl"
    with open(bad_name, "wb") as fh:
        fh.write(_line("b1", "a latin-1 file name", session="badname"))
    os.symlink(folder / "loop-b.jsonl", folder / "loop-a.jsonl")
    os.symlink(folder / "loop-a.jsonl", folder / "loop-b.jsonl")
    with open(folder / "big.jsonl", "wb") as fh:
        fh.write(_line("h1", "before the huge line: zeppelin", session="big"))
        block = b"x" * (1 << 20)
        fh.write(b'{"type": "user", "message": {"content": "')
        for _ in range(BIG_LINE // len(block)):
            fh.write(block)
        fh.write(b'"}}\n')
        fh.write(_line("h2", "after the huge line: dirigible", session="big"))
    return {
        "zero.jsonl": "a character device",
        "pipe.jsonl": "a FIFO",
        "caf\\xe9.jsonl": "file name is not valid UTF-8",
        "loop-a.jsonl": "symlink loop",
        "loop-b.jsonl": "symlink loop",
    }


def _sync_with_peak_rss() -> tuple[subprocess.CompletedProcess[str], float]:
    """`recall sync` as its own process, and that process's peak RSS in MB."""
    probe = (
        "import resource, subprocess, sys\n"
        "done = subprocess.run([sys.executable, '-m', 'recall', 'sync', '--no-embed'],"
        " capture_output=True, text=True, timeout=600)\n"
        "sys.stdout.write(done.stdout)\n"
        "sys.stderr.write(done.stderr)\n"
        "peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss\n"
        "sys.stderr.write(f'\\nPEAK_KB={peak}\\n')\n"
        "sys.exit(done.returncode)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=900
    )
    peak_kb = int(done.stderr.rsplit("PEAK_KB=", 1)[1].split()[0])
    return done, peak_kb / 1024


def test_sync_passes_over_each_hostile_file_names_it_and_indexes_the_rest(
    project: Path, recall_home: Path
) -> None:
    expected = _hostile(project)
    done, peak_mb = _sync_with_peak_rss()
    assert done.returncode == 0, done.stderr
    for name, why in expected.items():
        assert any(name in line and why in line for line in done.stdout.splitlines()), (
            name,
            done.stdout,
        )
    assert "1 line over 64 MB" in done.stdout
    print(f"sync over the hostile corpus peaked at {peak_mb:.0f} MB")
    assert peak_mb < PEAK_RSS_MB, f"sync peaked at {peak_mb:.0f} MB"
    found = subprocess.run(
        [
            sys.executable,
            "-m",
            "recall",
            "search",
            "kafka zeppelin dirigible walrus narwhal",
            "--json",
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    ids = {r["session_id"] for r in json.loads(found.stdout)["results"]}
    assert {"good", "big", "twin-a", "twin-b"} <= ids
    log = (recall_home / "recall.log").read_text(encoding="utf-8")
    assert "pipe.jsonl" in log and "zero.jsonl" in log and "symlink loop" in log
    # a second run passes over the same files, still finishes, reads nothing new
    again, _ = _sync_with_peak_rss()
    assert again.returncode == 0 and "0 sessions updated" in again.stdout


def _hook_fast(path: str) -> None:
    """Run the hook on `path` (sent as an agent would: JSON, a byte that is not UTF-8 as a
    lone surrogate escape) and check it exits 0, silent, within a second."""
    payload = json.dumps({"session_id": "s", "transcript_path": path})
    took = []
    for _ in range(2):  # the better of two: the machine is shared, a hang is not noise
        start = time.monotonic()
        done = subprocess.run(
            [sys.executable, "-m", "recall", "ingest", "--event", "agent-stop"],
            input=payload,
            capture_output=True,
            text=True,
            timeout=60,
        )
        took.append(time.monotonic() - start)
        assert done.returncode == 0 and done.stdout == "", (path, done.stderr)
    assert min(took) < 1.0, f"the hook took {min(took):.2f} s on {path}"


def _session_texts(session: str) -> list[str]:
    from clihelp import run_json

    return [m["text"] for m in run_json("show", session)["messages"]]


def test_a_hook_pointed_at_each_hostile_file_exits_0_fast(project: Path, recall_home: Path) -> None:
    _hostile(project)
    targets = ["zero.jsonl", "pipe.jsonl", "loop-a.jsonl", "big.jsonl", "missing.jsonl"]
    targets += ["caf\udce9.jsonl", "twin-a.jsonl", "twin-b.jsonl"]
    for name in targets:
        _hook_fast(f"{project}/{name}")
    log = (recall_home / "recall.log").read_text(encoding="utf-8")
    assert "a FIFO" in log and "a character device" in log
    # the name that is not UTF-8 is passed over as sync passes it over, named escaped
    assert any(
        "caf\\xe9.jsonl" in line and "not valid UTF-8" in line for line in log.splitlines()
    ), log
    from clihelp import run_json

    assert run_json("search", "latin")["found"] == 0, "a hook indexed what sync refuses"
    # two sessions sharing a line uuid: each keeps its own text
    assert _session_texts("twin-a") == ["alpha says walrus"]
    assert _session_texts("twin-b") == ["beta says narwhal"]


def test_a_hook_on_a_file_rewritten_in_place_reads_it_again_fast(project: Path) -> None:
    path = project / "s.jsonl"
    first = _line("u0", "opening words " + "pad " * 300, session="s")
    path.write_bytes(first + _line("u1", "the old middle: sardine", session="s"))
    _hook_fast(str(path))
    path.write_bytes(  # same first KiB, other bytes where the old content ended, and longer
        first
        + _line("u2", "the new middle: anchovy", session="s")
        + _line("u3", "and more after it: mackerel", session="s")
    )
    _hook_fast(str(path))
    texts = _session_texts("s")
    assert any("anchovy" in t for t in texts) and any("mackerel" in t for t in texts)
    assert any("sardine" in t for t in texts)


def test_a_hook_whose_stdin_never_closes_gives_up_and_exits_0() -> None:
    start = time.monotonic()
    with subprocess.Popen(
        [sys.executable, "-m", "recall", "ingest", "--event", "agent-stop"],
        stdin=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    ) as proc:
        assert proc.stdin is not None
        proc.stdin.write(b'{"session_id": "s", ')  # half a payload; the pipe stays open
        proc.stdin.flush()
        try:
            code = proc.wait(timeout=30)
        finally:
            proc.kill()
    assert code == 0
    assert time.monotonic() - start < 10


def test_show_raw_of_a_transcript_that_became_a_fifo_is_one_clear_error(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from clihelp import call

    path = project / "s.jsonl"
    path.write_bytes(_line("u1", "soon a pipe", session="s"))
    assert call(capsys, "sync", "--no-embed")[0] == 0
    path.unlink()
    os.mkfifo(path)
    code, _, err = call(capsys, "show", "s", "--raw")
    assert code == 1 and "a FIFO" in err and len(err.strip().splitlines()) == 1


def test_a_file_rewritten_in_place_behind_its_first_kilobyte_is_read_again(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from clihelp import call, call_json

    path = project / "s.jsonl"
    first = _line("u0", "opening words " + "pad " * 300, session="s")
    assert len(first) > 1024
    path.write_bytes(first + _line("u1", "the old middle: sardine", session="s"))
    assert call(capsys, "sync", "--no-embed")[0] == 0
    # same first KiB, other bytes where the old content ended, and longer
    path.write_bytes(
        first
        + _line("u2", "the new middle: anchovy", session="s")
        + _line("u3", "and more after it: mackerel", session="s")
    )
    assert call(capsys, "sync", "--no-embed")[0] == 0
    texts = [m["text"] for m in call_json(capsys, "show", "s", "--json")["messages"]]
    # the bytes behind the old offset were read (before: only what came after it)
    assert any("anchovy" in t for t in texts) and any("mackerel" in t for t in texts)
    # what was indexed before stays: a mirror outlives what happens to its file
    assert any("sardine" in t for t in texts)


def test_a_half_written_line_longer_than_a_piece_waits_and_never_loops(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from clihelp import call, call_json

    path = project / "s.jsonl"
    with open(path, "wb") as fh:
        fh.write(_line("u1", "before the unfinished giant", session="s"))
        fh.write(b'{"type": "user", "message": {"content": "' + b"y" * (70 * 1024 * 1024))
    start = time.monotonic()
    code, out, err = call(capsys, "sync", "--no-embed")
    assert code == 0, err
    assert time.monotonic() - start < 60
    texts = [m["text"] for m in call_json(capsys, "show", "s", "--json")["messages"]]
    assert texts == ["before the unfinished giant"]
    with open(path, "ab") as fh:  # the agent finishes the line, and writes another
        fh.write(b'"}}\n' + _line("u2", "after the giant", session="s"))
    code, out, err = call(capsys, "sync", "--no-embed")
    assert code == 0 and "1 line over 64 MB" in out
    texts = [m["text"] for m in call_json(capsys, "show", "s", "--json")["messages"]]
    assert texts == ["before the unfinished giant", "after the giant"]


def test_ingest_of_a_folder_passes_over_what_sync_passes_over(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from clihelp import call, call_json

    (project / "good.jsonl").write_bytes(_line("g1", "kept: kafka", session="good"))
    with open(os.fsencode(project) + b"/caf\xe9.jsonl", "wb") as fh:
        fh.write(_line("b1", "a latin-1 file name", session="badname"))
    os.mkfifo(project / "pipe.jsonl")
    code, out, err = call(capsys, "ingest", "--agent", "claude", str(project))
    assert code == 0, err
    assert "ingested 1 sessions from 1 file" in out
    assert "caf\\xe9.jsonl: file name is not valid UTF-8" in out and "a FIFO" in out
    assert call_json(capsys, "search", "latin")["found"] == 0
    # a file asked for by name that cannot be read: one line, exit 1, no traceback
    code, _, err = call(capsys, "ingest", "--agent", "claude", str(project / "pipe.jsonl"))
    assert code == 1 and "a FIFO" in err and len(err.strip().splitlines()) == 1


def test_a_hook_or_ingest_on_a_fifo_outside_the_agent_folders_never_hangs(
    recall_home: Path, tmp_path: Path
) -> None:
    # outside an agent folder the agent is guessed from the file's first bytes:
    # that sniff must not open a FIFO blocking
    for name in ("fifo", "fifo.jsonl", "fifo.json", "rollout-x.jsonl"):
        os.mkfifo(tmp_path / name)
        _hook_fast(str(tmp_path / name))
        done = subprocess.run(
            [sys.executable, "-m", "recall", "ingest", str(tmp_path / name)],
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert done.returncode in (1, 2) and len(done.stderr.strip().splitlines()) == 1
