"""The house rules of `python/recall` (docs/architecture.md, "Layers"), checked on its source.

Every import counts, at the top of a module or inside a function: a lazy
import is still a dependency. A keyword search is also run in a fresh
process to prove `recall.semantic` stays unloaded. Each file is parsed once
per session (`_tree`), however many rules read it.
"""

from __future__ import annotations

import ast
from functools import cache
from pathlib import Path

import pytest

from clihelp import call
from daemons import modules_after
from paths import REPO

PACKAGE = REPO / "python" / "recall"


def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {_module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}
NATIVE = "recall._core"
"""The Rust extension: a built library, not a source file, but imported like one."""


@cache
def _tree(path: Path) -> ast.Module:
    """`path` parsed: once per session, for every rule that reads it."""
    return ast.parse(path.read_text(encoding="utf-8"))


@cache
def _imports(path: Path, top_level_only: bool = False) -> frozenset[str]:
    """The `recall…` modules `path` imports (packages as themselves)."""
    tree = _tree(path)
    nodes = tree.body if top_level_only else list(ast.walk(tree))
    out: set[str] = set()
    for node in nodes:
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("recall"):
            for alias in node.names:
                full = f"{node.module}.{alias.name}"
                out.add(full if full in MODULES or full == NATIVE else node.module)
        elif isinstance(node, ast.Import):
            out.update(a.name for a in node.names if a.name.startswith("recall"))
    return frozenset(out)


def _importers(prefix: str) -> dict[str, set[str]]:
    """Each module and the imports of it that start with `prefix`."""
    found = {}
    for name, path in MODULES.items():
        hits = {i for i in _imports(path) if i == prefix or i.startswith(prefix + ".")}
        if hits:
            found[name] = hits
    return found


@pytest.mark.core_free
def test_the_source_tree_was_found() -> None:
    assert "recall.store.writer" in MODULES and "recall.search.keyword" in MODULES


@pytest.mark.core_free
def test_the_store_imports_neither_privacy_nor_agents() -> None:
    for layer in ("recall.privacy", "recall.agents"):
        users = {m for m in _importers(layer) if m.startswith("recall.store")}
        assert not users, f"store modules importing {layer}: {sorted(users)}"


@pytest.mark.core_free
def test_only_accel_imports_the_twin() -> None:
    users = {m for m in _importers("recall._twin") if not m.startswith("recall._twin")}
    assert users == {"recall._accel"}


@pytest.mark.core_free
def test_only_accel_imports_the_native_core() -> None:
    users = set(_importers(NATIVE))
    assert users == {"recall._accel"}


def _semantic_only_in(package: str, allowed: str) -> None:
    """`package`'s modules never import `recall.semantic` at load time, and only
    `allowed` does so at all (inside a function)."""
    for name, path in MODULES.items():
        if not name.startswith(package):
            continue
        top = {i for i in _imports(path, top_level_only=True) if i.startswith("recall.semantic")}
        assert not top, f"{name} imports {sorted(top)} at load time"
        if name != allowed:
            lazy = {i for i in _imports(path) if i.startswith("recall.semantic")}
            assert not lazy, f"{name} imports {sorted(lazy)}"


@pytest.mark.core_free
def test_search_loads_semantic_only_inside_the_mode_choice() -> None:
    """Keyword search modules never import `recall.semantic`; `modes` does so in a function."""
    _semantic_only_in("recall.search", "recall.search.modes")


@pytest.mark.core_free
def test_no_import_loop_between_modules() -> None:
    """Modules import each other in one direction (counting imports inside functions)."""
    graph = {m: {i for i in _imports(p) if i in MODULES and i != m} for m, p in MODULES.items()}
    state: dict[str, int] = {}

    def visit(node: str, trail: list[str]) -> None:
        state[node] = 1
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                loop = [*trail[trail.index(nxt) :], nxt] if nxt in trail else [node, nxt]
                pytest.fail("import loop: " + " -> ".join(loop))
            if nxt not in state:
                visit(nxt, [*trail, nxt])
        state[node] = 2

    for module in sorted(graph):
        if module not in state:
            visit(module, [module])


@pytest.mark.core_free
def test_every_folder_says_what_it_owns() -> None:
    for init in PACKAGE.rglob("__init__.py"):
        doc = ast.get_docstring(_tree(init))
        assert doc, f"{init.relative_to(REPO)} has no docstring saying what the folder owns"


def _loaded_after(argv: list[str], env: dict[str, str]) -> list[str]:
    return sorted(m for m in modules_after(argv, env=env) if m.startswith("recall."))


def test_a_keyword_search_never_enters_semantic(
    recall_home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    src = tmp_path / "chat.jsonl"
    src.write_text('{"session": "s1", "role": "user", "text": "kafka retry budget"}\n')
    assert call(capsys, "ingest", "--format", "jsonl", str(src))[0] == 0
    loaded = _loaded_after(["search", "kafka", "--mode", "keyword"], {})
    assert "recall.search.keyword" in loaded  # the probe saw a real search
    assert not [m for m in loaded if m.startswith("recall.semantic")], loaded
    (recall_home / "config.toml").write_text('embedding = "none"\n')
    loaded = _loaded_after(["search", "kafka"], {})
    assert "recall.search.keyword" in loaded
    assert not [m for m in loaded if m.startswith("recall.semantic")], loaded


@pytest.mark.core_free
def test_the_mcp_sdk_is_never_a_runtime_import() -> None:
    """`recall mcp` is a server of our own: the SDK (pydantic, starlette, …) is for tests."""
    for name, path in MODULES.items():
        for node in ast.walk(_tree(path)):
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            else:
                continue
            sdk = [n for n in names if n == "mcp" or n.startswith("mcp.")]
            assert not sdk, f"{name} imports the MCP SDK ({sdk})"


@pytest.mark.core_free
def test_search_never_imports_the_memory_layer() -> None:
    """`search/` reads memories and chunks itself; `memory/` writes them and sits above it."""
    users = {m for m in _importers("recall.memory") if m.startswith("recall.search")}
    assert not users, f"search modules importing recall.memory: {sorted(users)}"


@pytest.mark.core_free
def test_memory_loads_semantic_only_in_its_vectors_module() -> None:
    _semantic_only_in("recall.memory", "recall.memory.vectors")


@pytest.mark.core_free
def test_peers_sit_below_the_surfaces_and_above_search() -> None:
    """`peers/` (client, protocol, merging) imports neither the daemon nor the CLI; only
    surfaces (`cli/`, `serve/`, `doctor/`) import `peers/` or `serve/`."""
    for layer in ("recall.serve", "recall.cli"):
        users = {m for m in _importers(layer) if m.startswith("recall.peers")}
        assert not users, f"peers modules importing {layer}: {sorted(users)}"
    surfaces = ("recall.cli", "recall.serve", "recall.peers", "recall.doctor", "recall.mcp")
    surfaces += ("recall.context", "recall.setup")
    for layer in ("recall.peers", "recall.serve"):
        users = {m for m in _importers(layer) if not m.startswith(surfaces)}
        assert not users, f"modules below the surfaces importing {layer}: {sorted(users)}"


@pytest.mark.core_free
def test_the_team_layer_is_the_only_importer_of_psycopg_and_sits_below_the_surfaces() -> None:
    """Only `team/` imports psycopg (an optional extra: docs/team.md), and only inside
    functions, so a user without a team loads nothing of it; `team/` imports neither the
    surfaces nor `peers/`, and nothing but a surface, and the fan-out that asks the team as
    one more source of a search (`peers.fanout`), imports `team/`."""
    for name, path in MODULES.items():
        for node in ast.walk(_tree(path)):
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            else:
                continue
            if any(n == "psycopg" or n.startswith("psycopg.") for n in names):
                assert name.startswith("recall.team"), f"{name} imports psycopg"
        if name.startswith("recall.team"):
            top = [
                n.module
                for n in _tree(path).body
                if isinstance(n, ast.ImportFrom) and (n.module or "").startswith("psycopg")
            ] + [
                a.name
                for n in _tree(path).body
                if isinstance(n, ast.Import)
                for a in n.names
                if a.name.startswith("psycopg")
            ]
            assert not top, f"{name} imports psycopg at load time"
    above = ("recall.cli", "recall.serve", "recall.peers", "recall.mcp", "recall.doctor")
    for layer in above:
        users = {m for m in _importers(layer) if m.startswith("recall.team")}
        assert not users, f"team modules importing {layer}: {sorted(users)}"
    surfaces = ("recall.cli", "recall.serve", "recall.mcp", "recall.doctor", "recall.context")
    users = {m for m in _importers("recall.team") if not m.startswith(("recall.team", *surfaces))}
    users.discard("recall.peers.fanout")
    assert not users, f"modules below the surfaces importing recall.team: {sorted(users)}"


@pytest.mark.core_free
def test_nothing_below_the_cli_imports_the_cli() -> None:
    """`recall.cli` is a surface over the engine (`search.engine`), never its home: the
    daemon, MCP, context, peers and everything else reach search without it."""
    users = {m for m in _importers("recall.cli") if not m.startswith("recall.cli")}
    users.discard("recall.__main__")  # `python -m recall` is the command line itself
    assert not users, f"modules outside recall.cli importing it: {sorted(users)}"


@pytest.mark.core_free
def test_every_surface_searches_through_the_engine() -> None:
    """The CLI, MCP, the daemon's routes and context call `search.engine.search` (the CLI
    and MCP through `peers.warm.search_here`, which asks a warm daemon first); only the
    engine calls the ranking's entry (`search.sources.run`)."""
    for surface in ("recall.cli.search", "recall.serve.routes", "recall.peers.warm"):
        assert "recall.search.engine" in _imports(MODULES[surface]), surface
    for surface in ("recall.cli.search", "recall.mcp.history"):
        assert "recall.peers.warm" in _imports(MODULES[surface]), surface
    assert "recall.search.engine" in _imports(MODULES["recall.context.gather"])
    runners = {m for m, hits in _importers("recall.search.sources").items() if hits}
    assert runners <= {"recall.search.engine", "recall.peers.merge"}, sorted(runners)
    # the team's index is one more source of the fan-out, never a pipeline of a surface's
    askers = {m for m in _importers("recall.team.ask") if not m.startswith("recall.team")}
    assert askers == {"recall.peers.fanout"}, sorted(askers)
