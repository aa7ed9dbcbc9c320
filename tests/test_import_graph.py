"""The package's import graph, read with ``ast``: the command line sits on top of the library.

Only ``refdp/cli/`` builds parsers (argparse); the library, ``refdp.audit``
included, never imports the command line, so that it can be vendored and
called without it.  Every import counts, including those inside functions.
"""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Dict, List, Set

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "refdp"


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _imports(source: str, name: str, is_package: bool) -> Set[str]:
    """What module ``name`` imports: ``import a.b`` gives ``a.b``; ``from a import b`` gives ``a`` and ``a.b``.

    Relative imports are resolved against the module's package (``name``
    itself when ``is_package``, for an ``__init__.py``).
    """
    package = name.split(".") if is_package else name.split(".")[:-1]
    found: Set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - node.level + 1]
                origin = ".".join(base + ([node.module] if node.module else []))
            else:
                origin = node.module or ""
            found.add(origin)
            found.update(f"{origin}.{alias.name}" for alias in node.names)
    return found


def _graph() -> Dict[str, Set[str]]:
    return {
        _module_name(path): _imports(path.read_text(encoding="utf-8"), _module_name(path), path.name == "__init__.py")
        for path in sorted(PACKAGE.rglob("*.py"))
    }


def _within(module: str, package: str) -> bool:
    return module == package or module.startswith(package + ".")


def test_the_graph_sees_the_packages() -> None:
    graph = _graph()
    assert "refdp.cli" in graph and "refdp.cli.audit" in graph and "refdp.audit.learner" in graph
    assert "argparse" in graph["refdp.cli._command"]
    assert "refdp.audit.learner" in graph["refdp.cli.audit"]


def test_audit_imports_neither_argparse_nor_the_command_line() -> None:
    offenders = {
        module: sorted(m for m in imports if m == "argparse" or _within(m, "refdp.cli"))
        for module, imports in _graph().items()
        if _within(module, "refdp.audit")
    }
    assert {m: found for m, found in offenders.items() if found} == {}


def test_only_the_command_line_imports_argparse() -> None:
    importers = sorted(m for m, imports in _graph().items() if "argparse" in imports)
    assert importers and all(_within(m, "refdp.cli") for m in importers), importers


def test_the_library_does_not_import_the_command_line() -> None:
    importers = sorted(
        m for m, imports in _graph().items()
        if not _within(m, "refdp.cli") and any(_within(i, "refdp.cli") for i in imports)
    )
    assert importers == ["refdp.__main__"]


def _module_edges() -> Dict[str, Set[str]]:
    """Edges between refdp's modules (an import of a name inside a module counts as the module)."""
    graph = _graph()
    return {module: {i for i in imports if i in graph and i != module} for module, imports in graph.items()}


def _cycle(edges: Dict[str, Set[str]]) -> List[str]:
    """One cycle of the graph as a list of modules, or [] when there is none (depth-first search)."""
    state: Dict[str, int] = {}
    path: List[str] = []

    def visit(module: str) -> List[str]:
        state[module] = 1
        path.append(module)
        for target in sorted(edges[module]):
            if state.get(target) == 1:
                return path[path.index(target):] + [target]
            if target not in state:
                found = visit(target)
                if found:
                    return found
        state[module] = 2
        path.pop()
        return []

    for module in sorted(edges):
        if module not in state:
            found = visit(module)
            if found:
                return found
    return []


def test_the_import_graph_has_no_cycle() -> None:
    assert _cycle(_module_edges()) == []
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]


def test_layers_look_down_only() -> None:
    # The counting engines sit below the algorithms; the model (refdp.tree) below the registry.
    edges = _module_edges()
    for package, above in (("refdp.fast", "refdp.algorithms"), ("refdp.engine", "refdp.algorithms"),
                           ("refdp.engine", "refdp.fast"), ("refdp.tree", "refdp.algorithms"),
                           ("refdp.mechanisms", "refdp.engine")):
        wrong = sorted((m, i) for m, targets in edges.items() if _within(m, package)
                       for i in targets if _within(i, above))
        assert wrong == [], (package, above, wrong)


@pytest.mark.parametrize("source, expected", [
    ("import argparse\n", {"argparse"}),
    ("def f() -> None:\n    from refdp.cli import main\n", {"refdp.cli", "refdp.cli.main"}),
    ("from . import _command\n", {"refdp.cli", "refdp.cli._command"}),
    ("from ..errors import RefdpError\n", {"refdp.errors", "refdp.errors.RefdpError"}),
])
def test_imports_are_read_inside_functions_and_relative_to_the_package(source: str, expected: Set[str]) -> None:
    assert _imports(source, "refdp.cli.x", is_package=False) == expected
    assert _imports(source, "refdp.cli", is_package=True) == expected
