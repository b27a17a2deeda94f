"""What the bench's instruction counts share: the valgrind command that
counts a process's instructions (nothing written to disk), and the count read
back from valgrind's report. Used by `engine_instr.py`, `hostwork.py` and
`net.py instr`."""

from __future__ import annotations

import re

COMMAND = ("valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null")


def collected(stderr: str) -> int:
    """The instructions valgrind reports for the run whose stderr this is."""
    return int(re.search(r"Collected : (\d+)", stderr).group(1))
