"""The package's import graph (grimp): no cycle between its top-level parts (ingest, store, index,
search, topics, api, web, cli, ...), and none between its files.
Which part may import which is the layers contract in pyproject.toml [tool.importlinter], checked
by `lint-imports` in the lint tier (tests/test_lint.py); docs/architecture.md states it."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import grimp
import networkx as nx
import pytest

import papersift


@pytest.fixture(scope="module")
def module_graph() -> nx.DiGraph:
    """papersift's modules and the imports between them, function-level imports included."""
    graph = grimp.build_graph("papersift", cache_dir=None)
    return nx.DiGraph([(module, imported) for module in graph.modules
                       for imported in graph.find_modules_directly_imported_by(module)])


def package_graph(module_graph: nx.DiGraph) -> nx.DiGraph:
    part = lambda module: ".".join(module.split(".")[:2])  # noqa: E731 - papersift.<part>
    return nx.DiGraph([(part(module), part(imported)) for module, imported in module_graph.edges
                       if part(module) != part(imported)])


def file_cycles(module_graph: nx.DiGraph) -> list[frozenset[str]]:
    """Each set of modules that import one another, directly or not."""
    return [frozenset(component) for component in nx.strongly_connected_components(module_graph)
            if len(component) > 1]


def test_no_import_cycles_between_parts(module_graph):
    cycles = list(nx.simple_cycles(package_graph(module_graph)))
    assert not cycles, f"import cycles between papersift's parts: {cycles}"


def test_no_import_cycles_between_files(module_graph):
    # web/ pages share web/render.py (the page machinery) instead of importing routes.py, which
    # imports them to mount their routes (issue #30's last knot)
    cycles = [sorted(cycle) for cycle in file_cycles(module_graph)]
    assert not cycles, f"file-level import cycles in src/papersift (move the shared names to a module both import): {cycles}"


def test_the_graph_holds_function_level_imports(module_graph):
    # A cycle is usually closed by an import inside a function (each of the five #30 found was);
    # fetch/update.py imports the people package only there.
    assert module_graph.has_edge("papersift.fetch.update", "papersift.people.identity")


def test_file_cycles_finds_a_cycle_and_no_false_one():
    graph = nx.DiGraph([("papersift.index.rows", "papersift.index.lexical"), ("papersift.search.a", "papersift.store")])
    assert file_cycles(graph) == []
    graph.add_edge("papersift.index.lexical", "papersift.index.rows")
    assert file_cycles(graph) == [frozenset({"papersift.index.rows", "papersift.index.lexical"})]


def test_every_part_is_a_regular_package():
    # A folder without __init__.py is a namespace package, which the import graph does not
    # list: papersift/web had none, and its cycle with the API went unseen.
    root = Path(papersift.__file__).parent
    folders = [path for path in root.iterdir() if path.is_dir() and any(path.glob("*.py"))]
    assert folders and not [path.name for path in folders if not (path / "__init__.py").is_file()]


def test_docs_architecture_lists_the_layers_of_the_import_contract():
    # docs/architecture.md's block of layers is the contract's list, in order (its right column is prose).
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # the same parser, before it joined the standard library
        import tomli as tomllib

    root = Path(__file__).resolve().parents[1]
    contract = tomllib.loads((root / "pyproject.toml").read_text())["tool"]["importlinter"]["contracts"][0]
    block = (root / "docs" / "architecture.md").read_text().split("The layers, top to bottom")[1].split("```")[1]
    documented = [re.split(r"\s{2,}", line.strip())[0] for line in block.strip().splitlines()]
    assert contract["type"] == "layers" and documented == contract["layers"]
