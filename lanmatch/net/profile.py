"""The player's side of a profile: a small file that remembers name and key.

    from lanmatch.net.profile import ensure_profile
    me = ensure_profile("Ann")      # made on first use, the same ever after
    me.name, me.key                 # sent in `hello` (net/client.py's `profile`)

The file is `$XDG_CONFIG_HOME/lanmatch/profile.json` (default
`~/.config/lanmatch/profile.json`): `{"name": ..., "key": ...}`, mode 0600 in a
0700 directory. The key is 128 random bits (`secrets`), made once; a host keeps
only its hash and recognises the player by it on return (`Store.profile`).
The file is written to a temporary file first and renamed into place, so a
crash never leaves half a file.

This is the peer's side (the console and bot nodes), so it lives in `net/`,
not in the host's store. It takes two things from the store: the rule for a
profile's name (`check_name`, so that a name saved here is one every host
accepts) and `config_dir()`; `ProfileFileError` is a `StoreError`, so one
`except StoreError` covers a bad name and a bad file.
"""

from __future__ import annotations

import json
import os
import secrets
from dataclasses import dataclass
from pathlib import Path

from lanmatch.store.db import check_name
from lanmatch.store.errors import BadName, StoreError
from lanmatch.store.paths import config_dir

FILE_NAME = "profile.json"


class ProfileFileError(StoreError):
    """The profile file cannot be read or written."""


@dataclass(frozen=True)
class LocalProfile:
    name: str
    key: str


def profile_path() -> Path:
    return config_dir() / FILE_NAME


def load_profile(path: str | os.PathLike[str] | None = None) -> LocalProfile | None:
    """The profile saved on this machine, or None when there is none yet.

    Raises:
        ProfileFileError: the file exists but is not a profile file.
    """
    path = Path(path) if path is not None else profile_path()
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except OSError as e:
        raise ProfileFileError(f"Cannot read the profile file {path}: {e.strerror or e}.") from None
    try:
        data = json.loads(text)
        name, key = data["name"], data["key"]
        if not isinstance(name, str) or not isinstance(key, str) or len(key) < 16:
            raise ValueError
    except (ValueError, KeyError, TypeError):
        raise ProfileFileError(f"{path} is not a lanmatch profile file; move it away to make a new profile.") from None
    return LocalProfile(name, key)


def save_profile(profile: LocalProfile, path: str | os.PathLike[str] | None = None) -> Path:
    """Write the profile file (0600), atomically. Returns its path.

    Raises:
        ProfileFileError: it cannot be written.
    """
    path = Path(path) if path is not None else profile_path()
    tmp = path.with_name(f".{path.name}.{secrets.token_hex(4)}.tmp")
    try:
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump({"name": profile.name, "key": profile.key}, f)
            f.write("\n")
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except OSError as e:
        tmp.unlink(missing_ok=True)
        raise ProfileFileError(f"Cannot write the profile file {path}: {e.strerror or e}.") from None
    return path


def ensure_profile(name: str | None = None, path: str | os.PathLike[str] | None = None) -> LocalProfile:
    """The profile on this machine, made (with a fresh random key) on first use.

    `name` is used only when the file does not exist yet (default: the login
    name); an existing profile keeps its name and key.

    Raises:
        ProfileFileError: the file cannot be read or written.
        BadName: `name` cannot be a profile name.
    """
    found = load_profile(path)
    if found is not None:
        return found
    if name is None:
        import getpass

        try:
            name = getpass.getuser()
        except (KeyError, OSError):
            name = "Player"
    made = LocalProfile(check_name(name), secrets.token_hex(16))
    save_profile(made, path)
    return made


# BadName, StoreError and config_dir are re-exported: what the console needs of
# the store for a player's own profile comes through here (the console imports
# net/, never the host's store package).
__all__ = [
    "FILE_NAME", "BadName", "LocalProfile", "ProfileFileError", "StoreError", "config_dir", "ensure_profile",
    "load_profile", "profile_path", "save_profile",
]
