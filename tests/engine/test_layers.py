"""The code's layers: every import (at the top of a module or inside a
function) goes down, or sideways within a layer, and no modules import each
other in a circle.  A function-local import may put off loading a module
(the command line loads only what a command needs), never dodge a circle."""

from __future__ import annotations

import ast
import functools
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
FOLDERS = {"engine": "uschess", "rules": "uschess.rules"}

#: From the ground up.  Readers of files need only the model, so they stand
#: low (the calendar reads reform files with them); writers of results
#: (store, exports) stand above rating.
LAYERS = [
    ("model", ["uschess.model", "uschess.errors", "uschess.formulas", "uschess.timecontrol",
               "uschess.collector"]),
    ("readers", ["uschess.io.files", "uschess.io.refusals", "uschess.io.textdata",
                 "uschess.io.yamlload",
                 "uschess.io.eventfile",
                 "uschess.io.formats", "uschess.io.fide_file", "uschess.io.reentry"]),
    ("rules", ["uschess.rules"]),
    ("calendar", ["uschess.calendar"]),
    ("rating", ["uschess.rating"]),
    ("writers", ["uschess.io.store", "uschess.io.store_schema", "uschess.io.store_connection",
                 "uschess.io.store_lock", "uschess.io.exports"]),
    ("apps", ["uschess.apps"]),
    ("commands", ["uschess.commands", "uschess.cli", "uschess.web", "uschess.__main__",
                  "uschess"]),
]


def _module(path: Path) -> str:
    rel = path.relative_to(ROOT)
    parts = [FOLDERS[rel.parts[0]], *rel.with_suffix("").parts[1:]]
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def _layer(module: str) -> int:
    best, rank = -1, None
    for i, (_, prefixes) in enumerate(LAYERS):
        for prefix in prefixes:
            if (module == prefix or module.startswith(prefix + ".")) and len(prefix) > best:
                best, rank = len(prefix), i
    assert rank is not None, f"{module} is in no layer of tests/engine/test_layers.py"
    return rank


@functools.lru_cache(maxsize=1)
def _imports() -> dict[Path, list[ast.Import | ast.ImportFrom]]:
    """Every import statement of every module, each file parsed once for the
    three tests."""
    return {path: [node for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
                   if isinstance(node, (ast.Import, ast.ImportFrom))]
            for folder in FOLDERS for path in sorted((ROOT / folder).rglob("*.py"))}


def _graph() -> dict[str, set[str]]:
    modules = {_module(p): p for p in _imports()}
    graph: dict[str, set[str]] = {m: set() for m in modules}
    for mod, path in modules.items():
        for node in _imports()[path]:
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module] + [f"{node.module}.{a.name}" for a in node.names]
            else:
                continue
            for name in names:
                # the longest known module the name refers to
                while name and name not in modules:
                    name = name.rpartition(".")[0]
                if name and name != mod and name != "uschess":
                    graph[mod].add(name)
    return graph


@pytest.mark.slow
def test_no_relative_imports():
    for path, nodes in _imports().items():
        for node in nodes:
            assert not (isinstance(node, ast.ImportFrom) and node.level), \
                f"{path.relative_to(ROOT)}:{node.lineno}: write imports as uschess.x"


def test_imports_go_down_the_layers():
    wrong = [f"{a} ({LAYERS[_layer(a)][0]}) imports {b} ({LAYERS[_layer(b)][0]})"
             for a, deps in _graph().items() for b in deps if _layer(b) > _layer(a)]
    assert not wrong, "\n".join(sorted(wrong))


def test_no_import_circles():
    graph = _graph()
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> None:
        state[node] = 1
        stack.append(node)
        for dep in sorted(graph[node]):
            if state.get(dep) == 1:
                circle = stack[stack.index(dep):] + [dep]
                raise AssertionError("import circle: " + " -> ".join(circle))
            if dep not in state:
                visit(dep)
        stack.pop()
        state[node] = 2

    for node in sorted(graph):
        if node not in state:
            visit(node)
