"""Outside `lanmatch/rules/`, no code tests a game or a table by its name.

Every fact about a game or a table lives in its declaration (the registry,
`lanmatch/rules/registry.py`); code elsewhere reads a field. This test reads
every module outside `rules/` with `ast` and fails on a comparison (`==`,
`!=`, `in`, `not in`, a `match` case) of anything with the name of a
registered game or table, naming the file and line.
"""

from __future__ import annotations

import ast
from pathlib import Path

import lanmatch
from lanmatch.rules import GAMES

ROOT = Path(lanmatch.__file__).resolve().parent
NAMES = frozenset(GAMES) | frozenset(t for g in GAMES.values() for t in g.tables)


def _names_in(node: ast.AST) -> list[str]:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value] if node.value in NAMES else []
    if isinstance(node, ast.Tuple | ast.List | ast.Set):
        return [n for e in node.elts for n in _names_in(e)]
    return []


def name_tests(source: str, path: str = "<string>") -> list[str]:
    out = []
    for node in ast.walk(ast.parse(source, path)):
        if isinstance(node, ast.Compare):
            names = [n for part in (node.left, *node.comparators) for n in _names_in(part)]
            if names:
                out.append(f"{path}:{node.lineno}: compares with {', '.join(sorted(set(names)))}")
        elif isinstance(node, ast.match_case):
            names = _names_in(getattr(node.pattern, "value", ast.Constant(None)))
            if names:
                out.append(f"{path}:{node.pattern.lineno}: matches {', '.join(names)}")
    return out


def test_no_code_outside_rules_tests_a_game_or_table_by_its_name():
    found = []
    for path in sorted(ROOT.rglob("*.py")):
        rel = path.relative_to(ROOT.parent)
        if rel.parts[1] == "rules":
            continue
        found += name_tests(path.read_text(encoding="utf-8"), str(rel))
    assert not found, "\n".join(found)


def test_the_checker_finds_name_tests():
    source = '''
if game == "dominoes": pass
if table in ("standard", "toll"): pass
if x.table != "cards": pass
ok = spec.call == "standard_call" or mode == "match"
'''
    assert name_tests(source) == [
        "<string>:2: compares with dominoes",
        "<string>:3: compares with standard, toll",
        "<string>:4: compares with cards",
    ]
