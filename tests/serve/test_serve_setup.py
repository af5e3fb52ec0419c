"""Setting up: the token, the bind rule, peers in config, the service file, the warm daemon."""

from __future__ import annotations

import json
import os
import plistlib
import stat
import time
from pathlib import Path

import pytest

from clihelp import call
from daemons import env_for, get, ingest_lines, recall, serve_one, start


@pytest.mark.core_free
def test_beyond_loopback_needs_a_token_and_the_token_file_is_private(
    recall_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = call(capsys, "serve", "--host", "0.0.0.0", "--port", "0")
    assert code == 2 and "refusing to listen on 0.0.0.0 beyond loopback without a token" in err
    assert not (recall_home / "serve.json").exists()

    recall_home.mkdir(exist_ok=True)
    (recall_home / "config.toml").write_text(
        '# my settings\n[search]\nfusion = "weighted"  # keep me\n\n[serve]\nport = 9100\n'
    )
    code, out, err = call(capsys, "serve", "--new-token")
    assert code == 0 and "mode 0600" in out
    token_file = recall_home / "serve.token"
    assert stat.S_IMODE(token_file.stat().st_mode) == 0o600
    token = token_file.read_text().strip()
    text = (recall_home / "config.toml").read_text()
    assert token not in text and "token_sha256" in text
    assert '# my settings\n[search]\nfusion = "weighted"  # keep me' in text
    assert "port = 9100" in text  # the rest of [serve] is kept
    from recall.config import load_config
    from recall.peers.auth import digest

    assert load_config().serve.token_sha256 == digest(token.encode())
    assert load_config().search.fusion == "weighted"


@pytest.mark.core_free
def test_peers_add_list_remove_keep_the_rest_of_config(
    recall_home: Path, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    recall_home.mkdir()
    (recall_home / "config.toml").write_text('computer = "lap"\n[agents.claude]\nenabled = false\n')
    tok = tmp_path / "desk.token"
    tok.write_text("abc123\n")
    assert (
        call(capsys, "peers", "add", "desk", "http://127.0.0.1:9001", "--token-file", str(tok))[0]
        == 0
    )
    assert (
        call(capsys, "peers", "add", "build-2", "https://build:8765/recall", "--timeout", "2")[0]
        == 0
    )
    code, _out, err = call(capsys, "peers", "add", "desk", "http://x:1")
    assert code == 2 and "exists" in err
    for bad in ("local", "all", "has space", ""):
        assert call(capsys, "peers", "add", bad, "http://x:1")[0] == 2
    assert call(capsys, "peers", "add", "ftp", "ftp://x")[0] == 2
    empty = tmp_path / "empty.token"
    empty.write_text("\n")
    assert call(capsys, "peers", "add", "e", "http://x:1", "--token-file", str(empty))[0] == 2
    peers = json.loads(call(capsys, "peers", "list", "--json")[1])
    assert [(p["name"], p["url"], p["timeout"]) for p in peers] == [
        ("desk", "http://127.0.0.1:9001", 5.0),
        ("build-2", "https://build:8765/recall", 2.0),
    ]
    text = (recall_home / "config.toml").read_text()
    assert "abc123" not in text and text.startswith(
        'computer = "lap"\n[agents.claude]\nenabled = false\n'
    )
    assert call(capsys, "peers", "remove", "desk")[0] == 0
    assert call(capsys, "peers", "remove", "desk")[0] == 2
    assert [p["name"] for p in json.loads(call(capsys, "peers", "list", "--json")[1])] == [
        "build-2"
    ]


@pytest.mark.parametrize(
    "url",
    [
        "http://127.0.0.1:99999",
        "http://127.0.0.1:abc",
        "http://[::1",
        "http://127.0.0.1:0",
        "http://127.0.0.1 :9001",
        "http://127.0.0.1:9001/\x01",
        'http://127.0.0.1:9001/"x',
        "http://user:pw@127.0.0.1:9001",
        "http://127.0.0.1:9001/?q=1",
        "http://127.0.0.1:9001/#top",
        "file:///etc/passwd",
        "127.0.0.1:9001",
    ],
)
@pytest.mark.core_free
def test_a_bad_peer_url_is_one_usage_line(
    url: str, recall_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _out, err = call(capsys, "peers", "add", "y", url)
    assert code == 2 and "Traceback" not in err and len(err.strip().splitlines()) == 1, err
    assert "cannot be a peer's URL" in err
    assert not (recall_home / "config.toml").exists()


def test_peers_test_reports_each_peer(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    d = serve_one(tmp_path, "desk", [{"session": "d1", "role": "user", "text": "hi"}])
    home = d.home
    try:
        wrong = tmp_path / "wrong.token"
        wrong.write_text("not-the-token\n")
        call(capsys, "peers", "add", "desk", d.url, "--token-file", str(home / "serve.token"))
        call(capsys, "peers", "add", "desk-bad", d.url, "--token-file", str(wrong))
        code, out, _ = call(capsys, "peers", "test")
        assert code == 1
        lines = out.splitlines()
        assert (
            lines[0].startswith("desk ")
            and "ok    desk, recall" in lines[0]
            and "1 sessions" in lines[0]
        )
        assert "FAIL  reachable, but the token was refused" in lines[1]
        code, out, _err = call(capsys, "peers", "test", "desk", "--json")
        report = json.loads(out)[0]
        assert (
            code == 0 and report["sessions"] == 1 and report["api"] == 1 and report["error"] is None
        )
    finally:
        d.stop()


@pytest.mark.core_free
def test_service_files_are_written_shown_and_removed(
    recall_home: Path, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    home = Path.home()  # the fake HOME of every test
    code, out, _ = call(capsys, "service", "install", "--platform", "linux", "--no-start")
    unit = home / ".config" / "systemd" / "user" / "recall.service"
    assert code == 0 and f"wrote {unit}" in out
    text = unit.read_text()
    assert "-m recall serve" in text and f"Environment=RECALL_HOME={recall_home}" in text
    assert "WantedBy=default.target" in text and text in out
    assert "systemctl --user enable --now recall.service" in out
    code, out, _err = call(capsys, "service", "status", "--platform", "linux")
    assert code == 1 and "present" in out and "not running" in out
    assert call(capsys, "service", "uninstall", "--platform", "linux", "--no-start")[0] == 0
    assert not unit.exists()

    assert call(capsys, "service", "install", "--platform", "macos", "--no-start")[0] == 0
    plist = home / "Library" / "LaunchAgents" / "dev.recall.serve.plist"
    doc = plistlib.loads(plist.read_bytes())
    assert doc["ProgramArguments"][-3:] == ["-m", "recall", "serve"]
    assert doc["EnvironmentVariables"]["RECALL_HOME"] == str(recall_home) and doc["RunAtLoad"]


@pytest.mark.core_free
@pytest.mark.skipif(os.name == "nt", reason="a POSIX shell script stands in for systemctl")
def test_service_install_without_a_systemd_user_session_says_what_to_do(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    fake = bin_dir / "systemctl"  # what systemctl --user says in a container or under `su`
    fake.write_text(
        "#!/bin/sh\necho 'Failed to connect to bus: No such file or directory' >&2\nexit 1\n"
    )
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", str(bin_dir))
    code, _, err = call(capsys, "service", "install", "--platform", "linux")
    unit = Path.home() / ".config" / "systemd" / "user" / "recall.service"
    assert code == 1 and unit.exists()
    assert len(err.strip().splitlines()) == 1
    assert "no systemd user session here" in err and "Failed to connect" not in err
    assert "systemctl --user enable --now recall.service" in err and "recall serve" in err
    code, _out, err = call(capsys, "service", "uninstall", "--platform", "linux")
    assert code == 0 and not unit.exists() and "its unit file is removed" in err


@pytest.mark.needs_model
def test_a_local_search_is_answered_by_the_warm_daemon(tmp_path: Path) -> None:
    user = tmp_path / "u"
    user.mkdir()
    home = tmp_path / "h"
    home.mkdir()
    env = env_for(home, "box", user, embedding="local")
    records = [
        {"session": f"s{i}", "role": "user", "text": t}
        for i, t in enumerate(
            ["the retry budget for kafka", "a recipe for bread", "pandas dataframes"]
        )
    ]
    ingest_lines(env, tmp_path / "x.jsonl", records)
    assert recall(env, "embed", "--quiet").returncode == 0
    cold = recall({**env, "RECALL_NO_DAEMON": "1"}, "search", "library for data analysis", "--json")
    d = start(home, "box", user, embedding="local")
    try:
        warm = recall(env, "search", "library for data analysis", "--json")
        text_warm = recall(env, "search", "library for data analysis")
        text_cold = recall({**env, "RECALL_NO_DAEMON": "1"}, "search", "library for data analysis")
    finally:
        d.stop()
    assert warm.returncode == cold.returncode == 0, warm.stderr
    assert json.loads(warm.stdout) == json.loads(cold.stdout)
    assert text_warm.stdout == text_cold.stdout and text_warm.stderr == text_cold.stderr
    assert d.log_text().count("GET /api/mirrors/search 200") == 2
    gone = recall(env, "search", "library for data analysis", "--json")  # no daemon: in-process
    assert json.loads(gone.stdout) == json.loads(cold.stdout)


def test_sigterm_lets_a_request_in_flight_finish(tmp_path: Path) -> None:
    import socket

    d = serve_one(tmp_path, "box", [{"session": "s1", "role": "user", "text": "in flight"}])
    home = d.home
    second = recall(env_for(home, "box", tmp_path / "user"), "serve", "--port", "0")
    assert (
        second.returncode == 2
        and f"a daemon already serves this index (pid {d.proc.pid}" in second.stderr
    )
    sock = socket.create_connection(("127.0.0.1", d.port), timeout=10)
    sock.sendall(b"GET /api/mirrors/s1 HTTP/1.1\r\nHost: localhost\r\n")  # half a request
    time.sleep(0.3)
    d.proc.terminate()
    time.sleep(0.5)
    assert d.proc.poll() is None  # still waiting for the request it accepted
    sock.sendall(f"Authorization: Bearer {d.token}\r\n\r\n".encode())
    reply = b""
    while chunk := sock.recv(65536):
        reply += chunk
    sock.close()
    assert reply.startswith(b"HTTP/1.0 200") and b"in flight" in reply
    assert d.proc.wait(30) == 0
    assert not (home / "serve.json").exists()
    assert "stopping: finishing requests in flight" in d.log_text()
    with pytest.raises(OSError):  # no longer listening
        socket.create_connection(("127.0.0.1", d.port), timeout=2).close()


@pytest.mark.core_free
def test_doctor_looks_at_the_token_files_and_how_peers_are_reached(
    recall_home: Path, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    def peers_check() -> dict[str, object]:
        _, out, _ = call(capsys, "doctor", "--json")
        found = [c for c in json.loads(out)["checks"] if c["name"] == "peers"]
        return found[0]  # type: ignore[no-any-return]

    assert peers_check()["status"] == "skip"
    assert call(capsys, "serve", "--new-token")[0] == 0
    tok = tmp_path / "desk.token"
    tok.write_text("abc\n")
    tok.chmod(0o600)
    call(capsys, "peers", "add", "desk", "http://127.0.0.1:9001", "--token-file", str(tok))
    check = peers_check()
    assert check["status"] == "ok", check
    tok.chmod(0o644)
    call(capsys, "peers", "add", "far", "http://10.1.2.3:8765", "--token-file", str(tok))
    (recall_home / "serve.token").write_text("another-token\n")
    check = peers_check()
    assert check["status"] == "warn"
    details = "\n".join(check["details"])  # type: ignore[arg-type]
    assert "does not hold the token whose hash is in config" in details
    assert "peer desk's token file can be read by other users" in details
    assert "peer far is reached over plain http beyond loopback" in details
    assert f"chmod 600 {tok}" in str(check["fix"])


def test_a_new_token_revokes_the_old_one_on_a_running_daemon(tmp_path: Path) -> None:
    user = tmp_path / "u"
    user.mkdir()
    home = tmp_path / "h"
    d = start(home, "box", user, "--no-worker")
    try:
        old = d.token
        assert get(d.port, "/api/mirrors/search?q=x", old)[0] == 200
        made = recall(env_for(home, "box", user), "serve", "--new-token")
        assert made.returncode == 0, made.stderr
        new = (home / "serve.token").read_text().strip()
        assert new != old
        assert get(d.port, "/api/mirrors/search?q=x", old)[0] == 401
        assert get(d.port, "/api/mirrors/search?q=x", new)[0] == 200
    finally:
        assert d.stop() == 0


@pytest.mark.core_free
def test_peers_and_a_new_token_edit_config_in_place(
    recall_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    recall_home.mkdir()
    original = (
        "# top\n"
        "[serve]\n"
        "# the port my firewall opens\n"
        "port = 9100  # keep\n"
        'token_sha256 = "' + "0" * 64 + '"\n'
        "\n"
        "[[peers]]\n"
        "# the desktop\n"
        'name = "desk"\n'
        'url = "http://127.0.0.1:9001"\n'
        "\n"
        "# search settings below\n"
        "[search]\n"
        'fusion = "weighted"  # mine\n'
    )
    config = recall_home / "config.toml"
    config.write_text(original)
    assert call(capsys, "peers", "add", "lab", "http://127.0.0.1:9002")[0] == 0
    added = config.read_text()
    assert added.startswith(original.split("\n# search settings")[0])
    assert added.endswith('\n# search settings below\n[search]\nfusion = "weighted"  # mine\n')
    assert 'name = "lab"' in added.split("# search settings")[0]
    assert call(capsys, "peers", "remove", "lab")[0] == 0
    assert config.read_text() == original
    assert call(capsys, "serve", "--new-token")[0] == 0
    token = config.read_text()
    assert "0" * 64 not in token
    before, after = original.split('token_sha256 = "' + "0" * 64 + '"\n')
    assert token.startswith(before + 'token_sha256 = "') and token.endswith(after)
    assert call(capsys, "peers", "remove", "desk")[0] == 0
    assert "# the port my firewall opens\nport = 9100  # keep\n" in config.read_text()
    assert "[search]\nfusion" in config.read_text() and "desk" not in config.read_text()
