"""The store's place in the layers: it imports the rules and nothing above
them, and no import cycle in the whole package passes through it.

Read with `ast` from the source (imports inside functions included), as
tests/test_purity.py does for the pure packages.
"""

from __future__ import annotations

import ast
from pathlib import Path

import lanmatch

ROOT = Path(lanmatch.__file__).resolve().parent


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def import_graph() -> dict[str, set[str]]:
    """Every lanmatch module to the lanmatch modules it imports (a name imported
    from a package counts as its submodule when there is one)."""
    modules = {module_name(p): p for p in ROOT.rglob("*.py")}
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        out: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Import):
                out |= {a.name for a in node.names}
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    up = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                    base = ".".join(up + ([base] if base else []))
                out |= {f"{base}.{a.name}" if f"{base}.{a.name}" in modules else base for a in node.names}
        graph[name] = {m for m in out if m in modules and m != name}
    return graph


def cycles_through(graph: dict[str, set[str]], prefix: str) -> list[list[str]]:
    """The import cycles that pass through a module starting with `prefix`."""
    found = []
    for start in sorted(m for m in graph if m.startswith(prefix)):
        stack = [(start, [start])]
        seen: set[str] = set()
        while stack:
            node, path = stack.pop()
            for nxt in sorted(graph[node]):
                if nxt == start:
                    found.append(path + [start])
                elif nxt not in seen:
                    seen.add(nxt)
                    stack.append((nxt, path + [nxt]))
    return found


def test_no_import_cycle_passes_through_the_store():
    assert cycles_through(import_graph(), "lanmatch.store") == []


def test_the_store_imports_the_rules_and_nothing_above_them():
    graph = import_graph()
    above = ("lanmatch.console", "lanmatch.net", "lanmatch.report", "lanmatch.cli", "lanmatch.table",
             "lanmatch.protocol", "lanmatch.bots", "lanmatch.sim")
    wrong = {m: sorted(d for d in deps if d.startswith(above))
             for m, deps in graph.items() if m.startswith("lanmatch.store")}
    assert {m: d for m, d in wrong.items() if d} == {}


def test_the_schema_knows_nothing_of_the_store_that_uses_it():
    assert import_graph()["lanmatch.store.schema"] == set()


def test_the_report_and_the_profile_file_live_outside_the_store():
    graph = import_graph()
    assert "lanmatch.store.report" not in graph and "lanmatch.store.profile_file" not in graph
    assert "lanmatch.console.render" in graph["lanmatch.report"]
    assert "lanmatch.report" in graph["lanmatch.cli"]
    assert "lanmatch.net.profile" in graph["lanmatch.console.app"]
    assert not [m for m in graph["lanmatch.net.profile"] if not m.startswith("lanmatch.store")]
