"""Where the console writes what must never reach the screen as a traceback.

`log_path()` is `$XDG_CACHE_HOME/lanmatch/console.log` (default
`~/.cache/lanmatch/console.log`); `write_log(text)` appends to it. Both
consoles (`quick.py`, `app.py`) use it, and `--help` names the path.
"""

from __future__ import annotations

import datetime
import os
from pathlib import Path


def log_path() -> Path:
    """Where unexpected errors are written: `$XDG_CACHE_HOME/lanmatch/console.log`."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "lanmatch" / "console.log"


def write_log(text: str) -> Path:
    """Append `text` (with a timestamp) to the console log; return its path.

    Raises:
        OSError: the log cannot be written.
    """
    path = log_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    stamp = datetime.datetime.now().isoformat(timespec="seconds")
    with path.open("a", encoding="utf-8") as f:
        f.write(f"--- {stamp}\n{text.rstrip()}\n")
    return path
