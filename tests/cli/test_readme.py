"""The README's first two blocks are what a new user types: they must keep working."""

from __future__ import annotations

import re
import shlex
import tomllib

import pytest

from clihelp import call
from paths import REPO


def _blocks() -> list[list[str]]:
    """The README's shell blocks, each as its commands (comments and blanks dropped)."""
    text = (REPO / "README.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```sh\n(.*?)```", text, flags=re.DOTALL)
    out = []
    for block in blocks:
        lines = [line.split("#", 1)[0].strip() for line in block.splitlines()]
        out.append([line for line in lines if line])
    return out


def _distribution() -> str:
    with open(REPO / "pyproject.toml", "rb") as fh:
        return str(tomllib.load(fh)["project"]["name"])


def test_the_first_block_installs_this_package_then_syncs_and_demos() -> None:
    first = _blocks()[0]
    installs = [shlex.split(c) for c in first if c.startswith("pipx ")]
    assert [i[:2] for i in installs] == [["pipx", "install"]] * 2
    assert sorted(i[2] for i in installs) == sorted([_distribution(), "."])
    assert _distribution() == "recall-sessions"  # `recall` on PyPI is someone else's
    rest = [c for c in first if not c.startswith("pipx ")]
    assert rest == ["recall sync", "recall demo"]


def test_the_second_block_is_what_ci_runs() -> None:
    assert _blocks()[1] == ["bash scripts/test.sh"]
    ci = (REPO / ".ci" / "run").read_text(encoding="utf-8")
    assert "scripts/test.sh" in ci


@pytest.mark.parametrize("command", [c for c in _blocks()[0] if c.startswith("recall ")])
def test_each_recall_command_of_the_first_block_runs(
    command: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = call(capsys, *shlex.split(command)[1:])
    assert code == 0, err
    assert out.strip()


def test_a_source_install_uses_recalls_backend() -> None:
    with open(REPO / "pyproject.toml", "rb") as fh:
        build = tomllib.load(fh)["build-system"]
    assert build["build-backend"] == "recall_build"
    assert build["requires"] == []  # maturin is asked for only when cargo is there
    assert (REPO / build["backend-path"][0] / "recall_build" / "__init__.py").is_file()
