"""The whole package keeps its layers (docs/architecture.md, "Who may import whom").

Every `import` of every module of `lanmatch` (those inside functions too: a
lazy import is still a dependency) is read with `ast`, nothing is imported.
Each module belongs to a layer; a layer may import only the layers listed for
it below, and the graph of modules has no cycle. A failure names the file,
the line and the rule it breaks.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import lanmatch

ROOT = Path(lanmatch.__file__).resolve().parent

# layer -> the layers it may import (itself included where it has several modules)
ALLOWED: dict[str, set[str]] = {
    "rules": {"rules"},
    "bots": {"rules", "bots"},
    "protocol": {"rules", "protocol"},
    "table": {"rules", "bots", "protocol", "table"},
    "store": {"rules", "store", "ratings"},
    "net": {"rules", "bots", "protocol", "table", "store", "net", "version"},
    "console": {"rules", "protocol", "table", "net", "console", "version"},
    "sim": {"rules", "bots", "table"},
    "report": {"rules", "store", "console", "table", "ratings"},
    "cli": {"rules", "bots", "protocol", "table", "store", "net", "console", "sim", "report", "version", "cli", "ratings"},
    "ratings": set(),  # lanmatch/ratings.py: Glicko-2, pure arithmetic
    "version": set(),  # lanmatch/__init__.py: __version__, which every layer may read
    "main": {"cli"},  # lanmatch/__main__.py
}


def layer_of(module: str) -> str:
    parts = module.split(".")
    if parts == ["lanmatch"]:
        return "version"
    sub = parts[1]
    if sub == "__main__":
        return "main"
    return sub


def modules() -> dict[str, Path]:
    out = {}
    for path in sorted(ROOT.rglob("*.py")):
        rel = path.relative_to(ROOT.parent).with_suffix("")
        parts = list(rel.parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join(parts)] = path
    return out


def imports_of(module: str, path: Path, known: set[str], typing_too: bool = True) -> list[tuple[int, str]]:
    """(line, lanmatch module) for every import of a lanmatch module in `path`
    (without those under `if TYPE_CHECKING:` when `typing_too` is false: they
    are names for annotations, not imports that run)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    if not typing_too:
        for node in ast.walk(tree):
            if isinstance(node, ast.If) and getattr(node.test, "id", getattr(node.test, "attr", "")) == "TYPE_CHECKING":
                node.body = []
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found: list[tuple[int, str]] = []

    def add(line: int, name: str) -> None:
        # the longest known module that `name` names (a name may be an attribute)
        while name and name not in known:
            name = name.rpartition(".")[0]
        if name:
            found.append((line, name))

    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                if a.name.split(".")[0] == "lanmatch":
                    add(node.lineno, a.name)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            if target.split(".")[0] != "lanmatch":
                continue
            for a in node.names:
                full = f"{target}.{a.name}"
                add(node.lineno, full if full in known else target)
    return found


def graph(typing_too: bool = True) -> dict[str, list[tuple[int, str]]]:
    mods = modules()
    known = set(mods)
    return {m: imports_of(m, p, known, typing_too) for m, p in mods.items()}


def layer_breaches(g: dict[str, list[tuple[int, str]]]) -> list[str]:
    """`module:line: layer/ imports dep (layer/)` for every import the table forbids."""
    out = []
    for m, deps in g.items():
        mine = layer_of(m)
        for line, dep in deps:
            theirs = layer_of(dep)
            if theirs != mine and theirs != "version" and theirs not in ALLOWED[mine]:
                out.append(f"{m}:{line}: {mine}/ imports {dep} ({theirs}/)")
    return out


def cycles(g: dict[str, list[tuple[int, str]]]) -> list[list[str]]:
    """Every strongly connected set of two or more modules (Tarjan), plus self-imports."""
    edges = {m: sorted({d for _, d in deps}) for m, deps in g.items()}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    found: list[list[str]] = []
    counter = [0]

    def visit(v: str) -> None:
        work = [(v, iter(edges.get(v, ())))]
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        while work:
            node, it = work[-1]
            for w in it:
                if w not in index:
                    index[w] = low[w] = counter[0]
                    counter[0] += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(edges.get(w, ()))))
                    break
                if w in on:
                    low[node] = min(low[node], index[w])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    comp = []
                    while True:
                        w = stack.pop()
                        on.discard(w)
                        comp.append(w)
                        if w == node:
                            break
                    if len(comp) > 1 or node in edges.get(node, ()):
                        found.append(sorted(comp))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return found


def _package_parent_edges_removed(g):
    """A module's import of its own package's `__init__` (which re-exports it)
    is how Python loads a package, not a dependency cycle: drop those edges."""
    return {m: [(line, d) for line, d in deps if not (m.startswith(d + ".") and layer_of(d) == layer_of(m))]
            for m, deps in g.items()}


def test_every_module_is_in_a_known_layer():
    assert {layer_of(m) for m in modules()} <= set(ALLOWED), sorted({layer_of(m) for m in modules()} - set(ALLOWED))


def test_imports_only_point_down_the_layers():
    breaches = layer_breaches(graph())
    assert not breaches, "\n".join(breaches)


def test_the_module_graph_has_no_cycle():
    found = cycles(_package_parent_edges_removed(graph(typing_too=False)))
    assert not found, "\n".join(" <-> ".join(c) for c in found)


@pytest.mark.parametrize(
    ("g", "expect"),
    [
        ({"lanmatch.a": [(1, "lanmatch.b")], "lanmatch.b": [(1, "lanmatch.a")]}, [["lanmatch.a", "lanmatch.b"]]),
        ({"lanmatch.a": [(1, "lanmatch.b")], "lanmatch.b": []}, []),
        ({"lanmatch.a": [(1, "lanmatch.b")], "lanmatch.b": [(1, "lanmatch.c")], "lanmatch.c": [(2, "lanmatch.a")]},
         [["lanmatch.a", "lanmatch.b", "lanmatch.c"]]),
    ],
)
def test_the_cycle_finder_finds_cycles(g, expect):
    assert cycles(g) == expect


def test_the_layer_rule_catches_an_upward_import():
    g = {
        "lanmatch.rules.x": [(3, "lanmatch.console.render"), (4, "lanmatch.rules.cards")],
        "lanmatch.store.db": [(9, "lanmatch.console.render")],
        "lanmatch.console.render": [(1, "lanmatch.rules.cards")],
    }
    assert layer_breaches(g) == [
        "lanmatch.rules.x:3: rules/ imports lanmatch.console.render (console/)",
        "lanmatch.store.db:9: store/ imports lanmatch.console.render (console/)",
    ]
