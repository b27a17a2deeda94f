"""Small JSON files of the player's machine (seats, known hosts): read as
given or taken as empty, written whole and private.

A file is written to a temporary file renamed into place (a crash never
leaves half of it; no fsync: these hold seats and pins, not coins), mode 0600
in a 0700 directory. A file that cannot be read is logged and taken as
empty; one that cannot be written is logged, and the caller goes on.
"""

from __future__ import annotations

import json
import logging
import os
import secrets
from pathlib import Path
from typing import Any

log = logging.getLogger("lanmatch.files")


def read_json(path: Path, what: str) -> Any:
    """The file's data, or None (missing, or unreadable: logged as `what`)."""
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as e:
        log.warning("the %s file %s cannot be read (%s): taken as empty", what, path, e)
        return None


def write_private_json(path: Path, data: Any, what: str) -> bool:
    """Write `data` to `path` whole, mode 0600; False (logged as `what`) if it cannot."""
    tmp = path.with_name(f".{path.name}.{secrets.token_hex(4)}.tmp")
    try:
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump(data, f)
            f.write("\n")
        os.replace(tmp, path)
        return True
    except OSError as e:
        tmp.unlink(missing_ok=True)
        log.warning("the %s file %s cannot be written: %s", what, path, e.strerror or e)
        return False
