"""Instructions per step of bench/engine.py's cells, counted by callgrind.

    python bench/engine_instr.py PYTHON [PYTHON ...] [--rlcard-python P] [--games N]

For each PYTHON (a venv's python: its lanmatch is the tree measured) it runs
`bench/engine.py`'s own `lanmatch_cell` (standard, 4 players, the same policy)
under `valgrind --tool=callgrind` twice, for 0 and for N games (default 200),
and prints (instructions of the N-game run - those of the 0-game run) / steps.
With --rlcard-python it does the same for the RLCard env and bare cells (1
and N/2 games). Instruction counts do not depend on the machine's load, so two
trees can be compared on a shared machine; they are not times (an instruction
of the interpreter loop and one of numpy do not cost the same).
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
from pathlib import Path

import callgrind

HERE = Path(__file__).resolve().parent

LANMATCH = """
import sys
sys.path.insert(0, {here!r})
import engine
engine.warm_up()
r = engine.lanmatch_cell("standard", 4, 1e9, {games}, 1, 10000)
print("STEPS", r["steps"])
"""
RLCARD = """
import sys
sys.path.insert(0, {here!r})
import engine
engine.rlcard_cell({kind!r}, 4, 1e9, 1, 1, 10000)
r = engine.rlcard_cell({kind!r}, 4, 1e9, {games}, 1, 10000)
print("STEPS", r["steps"])
"""


def count(python: str, code: str) -> tuple[int, int]:
    """(steps, instructions) of one callgrind run of `code`."""
    out = subprocess.run(
        [*callgrind.COMMAND, python, "-c", code],
        capture_output=True,
        text=True,
        cwd="/tmp",
        check=True,
    )
    steps = int(re.search(r"^STEPS (\d+)", out.stdout, re.M).group(1))
    instr = callgrind.collected(out.stderr)
    return steps, instr


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("pythons", nargs="*", help="venv pythons whose lanmatch to measure")
    ap.add_argument("--rlcard-python", help="the RLCard venv's python")
    ap.add_argument("--games", type=int, default=200)
    args = ap.parse_args()
    for py in args.pythons:
        s0, i0 = count(py, LANMATCH.format(here=str(HERE), games=0))
        s1, i1 = count(py, LANMATCH.format(here=str(HERE), games=args.games))
        print(f"lanmatch standard 4p ({py}): {s1 - s0} steps, {(i1 - i0) // (s1 - s0):,} instructions/step")
    if args.rlcard_python:
        for kind in ("env", "bare"):
            s0, i0 = count(args.rlcard_python, RLCARD.format(here=str(HERE), kind=kind, games=1))
            s1, i1 = count(args.rlcard_python, RLCARD.format(here=str(HERE), kind=kind, games=args.games // 2))
            print(f"RLCard {kind} 4p: {s1 - s0} steps, {(i1 - i0) // (s1 - s0):,} instructions/step")
    return 0


if __name__ == "__main__":
    sys.exit(main())
