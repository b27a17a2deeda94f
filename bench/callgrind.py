"""What the bench's instruction counts share: the valgrind command that
counts a process's instructions (nothing written to disk), and the count read
back from valgrind's report. Used by `engine_instr.py`, `hostwork.py` and
`net.py instr`.

The process runs with `PYTHONHASHSEED=0`: with string hashes drawn afresh
for every process, where keys fall in a dict or a set changes from run to
run, and so did the counts (`hostwork.py --instructions`: 537,564 to
546,083 for the same tree; with the seed fixed, the same count to the
instruction, run after run)."""

from __future__ import annotations

import re

COMMAND = ("env", "PYTHONHASHSEED=0", "valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null")


def collected(stderr: str) -> int:
    """The instructions valgrind reports for the run whose stderr this is."""
    return int(re.search(r"Collected : (\d+)", stderr).group(1))
