"""Where lanmatch keeps its files (XDG base directories).

- `default_data_dir()`: the host's store, `$XDG_DATA_HOME/lanmatch`
  (default `~/.local/share/lanmatch`). `lanmatch host --data DIR` overrides it.
- `config_dir()`: a player's own settings, `$XDG_CONFIG_HOME/lanmatch`
  (default `~/.config/lanmatch`); the profile file lives there.

An XDG variable that is unset, empty or not an absolute path is ignored, as
the XDG Base Directory specification says.
"""

from __future__ import annotations

import os
from pathlib import Path

DB_NAME = "lanmatch.sqlite3"


def _xdg(var: str, fallback: str) -> Path:
    value = os.environ.get(var, "")
    if value and os.path.isabs(value):
        return Path(value)
    return Path.home() / fallback


def default_data_dir() -> Path:
    """The host's data directory when `--data` is not given."""
    return _xdg("XDG_DATA_HOME", ".local/share") / "lanmatch"


def config_dir() -> Path:
    """The directory of a player's own lanmatch settings (the profile file)."""
    return _xdg("XDG_CONFIG_HOME", ".config") / "lanmatch"


def db_path(data_dir: str | os.PathLike[str]) -> Path:
    """The store's file inside a data directory."""
    return Path(data_dir) / DB_NAME


__all__ = ["DB_NAME", "config_dir", "db_path", "default_data_dir"]
