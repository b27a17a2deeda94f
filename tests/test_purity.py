"""The pure packages stay pure (STYLE: "a layered house").

`lanmatch/rules/`, `lanmatch/bots/` (and `protocol/`, `table/` once they exist)
do no I/O, read no clock, start no threads and never touch the global random
generator: only `random.Random(seed)` instances. That is what makes "same seed +
same actions = same game" hold. This test reads their source with `ast` (it
imports nothing) and names the file and line of every breach.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

import pytest

import lanmatch

PACKAGE_ROOT = Path(lanmatch.__file__).resolve().parent
PURE_PACKAGES = ("rules", "bots", "protocol", "table")
FORBIDDEN_MODULES = frozenset(
    {
        "trio",
        "asyncio",
        "socket",
        "zeroconf",
        "prompt_toolkit",
        "time",
        "datetime",
        "threading",
        "os",
        "subprocess",
    }
)
# lanmatch's own impure layers: importing them would bring I/O in by the back door
IMPURE_LAYERS = ("lanmatch.net", "lanmatch.store", "lanmatch.console", "lanmatch.cli")


@dataclass(frozen=True)
class Violation:
    path: str
    line: int
    message: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.message}"


def _resolve(module: str | None, level: int, package: str | None) -> str | None:
    """The absolute name of `from <level dots><module> import ...` in `package`."""
    if level == 0:
        return module
    if package is None:
        return None
    parts = package.split(".")
    if level - 1 > len(parts):
        return None
    base = parts[: len(parts) - (level - 1)]
    return ".".join(base + ([module] if module else []))


def _forbidden(name: str | None) -> str | None:
    """Why importing the absolute module `name` is not allowed, or None."""
    if not name:
        return None
    top = name.split(".")[0]
    if top in FORBIDDEN_MODULES:
        return f"imports {name!r} (I/O, clocks or threads have no place in a pure package)"
    for layer in IMPURE_LAYERS:
        if name == layer or name.startswith(layer + "."):
            return f"imports {name!r}, an impure layer"
    return None


def check_source(
    source: str, path: str = "<string>", package: str | None = None
) -> list[Violation]:
    """Every purity breach in `source`, as (path, line, message).

    `package` is the dotted package the module lives in (to resolve relative
    imports). Raises SyntaxError if `source` does not parse.
    """
    tree = ast.parse(source, filename=path)
    out: list[Violation] = []

    def flag(node: ast.AST, message: str) -> None:
        out.append(Violation(path, getattr(node, "lineno", 0), message))

    random_modules: set[str] = set()  # names bound to the `random` module
    random_classes: set[str] = set()  # names bound to `random.Random`
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                why = _forbidden(alias.name)
                if why:
                    flag(node, why)
                if alias.name == "random":
                    random_modules.add(alias.asname or "random")
        elif isinstance(node, ast.ImportFrom):
            name = _resolve(node.module, node.level, package)
            why = _forbidden(name)
            if why:
                flag(node, why)
            if name == "random":
                for alias in node.names:
                    if alias.name == "Random":
                        random_classes.add(alias.asname or "Random")
                    else:
                        flag(
                            node,
                            f"'from random import {alias.name}' reaches the global random "
                            "generator; use a random.Random(seed) instance",
                        )
            elif not why and (name == "lanmatch" or (name or "").startswith("lanmatch.")):
                for alias in node.names:  # from lanmatch import net
                    why = _forbidden(f"{name}.{alias.name}")
                    if why:
                        flag(node, why)

    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id in random_modules
        ):
            if node.attr == "Random":
                random_classes.add(f"{node.value.id}.Random")
            else:
                flag(
                    node,
                    f"'{node.value.id}.{node.attr}' uses the global random generator; "
                    "use a random.Random(seed) instance",
                )
        elif isinstance(node, ast.Call):
            func = node.func
            fname = ast.unparse(func)
            if fname in ("__import__", "importlib.import_module") and node.args:
                arg = node.args[0]
                if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                    why = _forbidden(arg.value)
                    if why:
                        flag(node, f"dynamically {why}")
    # an unseeded Random() seeds itself from the OS: not reproducible
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and not node.args and not node.keywords:
            fname = ast.unparse(node.func)
            if fname in random_classes or (
                fname.endswith(".Random") and fname.split(".")[0] in random_modules
            ):
                flag(
                    node, f"'{fname}()' without a seed is seeded from the OS; pass the game's seed"
                )
    return sorted(out, key=lambda v: (v.line, v.message))


def pure_files(root: Path = PACKAGE_ROOT) -> list[Path]:
    """The modules of the pure packages under the `lanmatch` package at `root`."""
    files: list[Path] = []
    for pkg in PURE_PACKAGES:
        d = root / pkg
        if d.is_dir():
            files += sorted(d.rglob("*.py"))
    return files


def check_file(file: Path, root: Path = PACKAGE_ROOT) -> list[Violation]:
    rel = file.relative_to(root.parent)
    package = ".".join(rel.with_suffix("").parts[:-1])
    return check_source(file.read_text(encoding="utf-8"), str(rel), package)


FILES = pure_files()


def test_the_pure_packages_are_found():
    names = {str(f.relative_to(PACKAGE_ROOT.parent)) for f in FILES}
    assert {
        "lanmatch/rules/__init__.py",
        "lanmatch/rules/colormatch.py",
        "lanmatch/bots/__init__.py",
        "lanmatch/protocol/framing.py",
        "lanmatch/protocol/messages.py",
        "lanmatch/table/referee.py",
        "lanmatch/table/room.py",
        "lanmatch/table/effects.py",
        "lanmatch/table/lobby.py",
        "lanmatch/table/session.py",
    } <= names


@pytest.mark.parametrize("file", FILES, ids=[str(f.relative_to(PACKAGE_ROOT)) for f in FILES])
def test_pure_module_does_no_io_and_no_global_random(file):
    violations = check_file(file)
    assert not violations, "purity breached:\n" + "\n".join(map(str, violations))


# ----------------------------------------------------------- the checker itself

BAD = [
    ("import os\n", 1, "'os'"),
    ("import os.path as p\n", 1, "'os.path'"),
    ("x = 1\nfrom time import monotonic\n", 2, "'time'"),
    ("import msgpack, trio\n", 1, "'trio'"),
    ("from asyncio import sleep\n", 1, "'asyncio'"),
    ("import socket\n", 1, "'socket'"),
    ("from zeroconf import Zeroconf\n", 1, "'zeroconf'"),
    ("import prompt_toolkit.shortcuts\n", 1, "'prompt_toolkit.shortcuts'"),
    ("import datetime\n", 1, "'datetime'"),
    ("import threading\n", 1, "'threading'"),
    ("import subprocess\n", 1, "'subprocess'"),
    ("def f():\n    import socket\n    return socket\n", 2, "'socket'"),
    ("import random\nx = random.random()\n", 2, "'random.random'"),
    ("import random\n\nrandom.shuffle([1, 2])\n", 3, "'random.shuffle'"),
    ("import random\nrandom.seed(1)\n", 2, "'random.seed'"),
    ("import random as r\nr.choice([1])\n", 2, "'r.choice'"),
    ("import random\npick = random.randint\n", 2, "'random.randint'"),
    ("import random\nrandom.SystemRandom().random()\n", 2, "'random.SystemRandom'"),
    ("from random import choice\n", 1, "from random import choice"),
    ("from random import Random, shuffle\n", 1, "from random import shuffle"),
    ("from random import *\n", 1, "from random import *"),
    ("import random\nrng = random.Random()\n", 2, "without a seed"),
    ("from random import Random as R\nrng = R()\n", 2, "without a seed"),
    ("__import__('subprocess')\n", 1, "dynamically"),
    ("import importlib\nimportlib.import_module('threading')\n", 2, "dynamically"),
    ("from lanmatch.net import host\n", 1, "impure layer"),
    ("from lanmatch import store\n", 1, "impure layer"),
]


@pytest.mark.parametrize(("source", "line", "fragment"), BAD)
def test_checker_reports_the_breach_and_its_line(source, line, fragment):
    violations = check_source(source, "bad.py")
    assert violations, f"no violation found in:\n{source}"
    assert any(v.line == line and fragment in v.message for v in violations), "\n".join(
        map(str, violations)
    )
    assert str(violations[0]).startswith("bad.py:")


def test_checker_resolves_relative_imports():
    src = "from ..net import host\nfrom . import cards\n"
    violations = check_source(src, "lanmatch/rules/x.py", package="lanmatch.rules")
    assert [(v.line, "lanmatch.net" in v.message) for v in violations] == [(1, True)]


GOOD = """\
import random
from random import Random
from dataclasses import dataclass
import timeit  # a different module than time
from . import cards
from lanmatch.rules.errors import IllegalAction

rng = random.Random(7)
rng.shuffle([1, 2])
rng.choice([1, 2])
other = Random("seed")
self_time = object()
def f(obj):
    return obj.random.choice([1]), obj.time
"""


def test_checker_accepts_seeded_instances_and_harmless_names():
    assert check_source(GOOD, "good.py", package="lanmatch.rules") == []


def test_a_breach_in_a_module_on_disk_is_found_with_file_and_line(tmp_path):
    """The file walk and the checker together: plant bad modules in a copy of
    the layout and find them, with their file and line."""
    root = tmp_path / "lanmatch"
    (root / "rules").mkdir(parents=True)
    (root / "rules" / "planted.py").write_text(
        "import random\n\n\ndef roll():\n    return random.randint(1, 6)\n"
    )
    (root / "table").mkdir()
    (root / "table" / "clock.py").write_text("from ..net import host\n")
    (root / "net").mkdir()
    (root / "net" / "host.py").write_text("import trio\n")  # impure layer: not walked
    files = pure_files(root)
    assert [f.relative_to(root).as_posix() for f in files] == ["rules/planted.py", "table/clock.py"]
    violations = [str(v) for f in files for v in check_file(f, root)]
    assert violations == [
        "lanmatch/rules/planted.py:5: 'random.randint' uses the global random generator; "
        "use a random.Random(seed) instance",
        "lanmatch/table/clock.py:1: imports 'lanmatch.net', an impure layer",
    ]
