"""What the store refuses, and how it fails: exceptions with a sentence for a person.

Everything the store raises at its boundary, beyond `ValueError` for bad
arguments, is a `StoreError`, so a caller catches that one type:

- a refusal (`WrongKey`, `InsufficientCoins`, `MatchClosed`, ...) names what
  was refused and why;
- `StoreFailed` is sqlite itself failing (the file is locked, read-only,
  full, damaged or closed, the statement was interrupted); its message names
  the file and what went wrong;
- `MigrationFailed`: an old file could not be upgraded (left at its last
  complete version).

Nothing was written when any of them is raised: each operation is one
transaction, rolled back before the exception leaves the store. sqlite's
own error is kept as `__cause__` (and in `sqlite_errorname`).
"""

from __future__ import annotations

import os
import sqlite3


class StoreError(Exception):
    """The store refused an operation; `str(e)` is a sentence for a person."""


class NoStore(StoreError):
    """There is no store at that path (and it was not to be created)."""


class NotAStore(StoreError):
    """The file exists but is not a lanmatch store (another program's, or not sqlite)."""


class SchemaTooNew(StoreError):
    """The file was written by a newer lanmatch; it is left untouched."""

    def __init__(self, path: str, found: int, ours: int):
        super().__init__(
            f"{path} holds a lanmatch store of schema version {found}, newer than this "
            f"lanmatch understands (version {ours}); it was left untouched. Upgrade lanmatch, "
            f"or point --data at another directory."
        )
        self.path = path
        self.found = found
        self.ours = ours


class StoreBusy(StoreError):
    """Another process holds the store's host lock."""


class BadName(StoreError):
    """A profile name that cannot be used."""


class WrongKey(StoreError):
    """The name belongs to a profile whose key is different."""


class UnknownProfile(StoreError):
    """No profile with that name or id."""


class InsufficientCoins(StoreError):
    """A player holds less than the stake (nothing was posted)."""


class UnknownMatch(StoreError):
    """No match with that id."""


class MatchClosed(StoreError):
    """The match is finished or abandoned: it takes no more actions, leaves or payouts."""


class LogMismatch(StoreError):
    """An action or an outcome disagrees with what the store already holds or replays."""


class ReplayError(StoreError):
    """A stored match cannot be replayed (the engine refuses a recorded action)."""


class MigrationFailed(StoreError, ValueError):
    """An old store could not be upgraded: a migration failed on what the file
    holds (a row it cannot read, a constraint the old rows break) or on the
    file itself. The file is left at its last complete version. It is also a
    `ValueError`, which is what a malformed old row raised before this class."""


class StoreFailed(StoreError, sqlite3.Error):
    """sqlite itself failed; the operation was rolled back.

    `str(e)` names the file and says what happened in words; `__cause__` is
    sqlite's exception and `sqlite_errorname` its error code's name
    (`"SQLITE_BUSY"`, `"SQLITE_FULL"`, ...; None when sqlite gave none, as for
    a closed store). Catch `StoreError` (or this class, to tell a failure from
    a refusal). A `StoreFailed` is also an `sqlite3.Error`, and a
    `StoreDatabaseError`, `StoreOperationalError` or `StoreIntegrityError` is
    also the `sqlite3` class of that name, so that code written when sqlite's
    errors crossed the boundary still catches them.
    """

    def __init__(self, message: str, errorname: str | None = None):
        super().__init__(message)
        self.sqlite_errorname = errorname


class StoreDatabaseError(StoreFailed, sqlite3.DatabaseError):
    """sqlite's `DatabaseError`: e.g. a damaged file ("database disk image is malformed")."""


class StoreOperationalError(StoreFailed, sqlite3.OperationalError):
    """sqlite's `OperationalError`: locked, read-only, full, an I/O error, interrupted."""


class StoreIntegrityError(StoreFailed, sqlite3.IntegrityError):
    """A constraint of the schema refused a write (the schema held where the code slipped)."""


# sqlite's primary result codes, in words (sqlite_errorname is "SQLITE_" + one of these, maybe + "_DETAIL")
_WHAT = {
    "BUSY": "it is locked by another program (another lanmatch, or an sqlite shell in a transaction)",
    "LOCKED": "it is locked by another connection",
    "READONLY": "it cannot be written (a read-only file or directory)",
    "FULL": "the disk is full",
    "IOERR": "the disk reported an error",
    "CORRUPT": "the file is damaged",
    "NOTADB": "the file is damaged (it is no longer an sqlite database)",
    "CANTOPEN": "the file cannot be opened",
    "PERM": "permission was denied",
    "INTERRUPT": "the operation was interrupted",
    "CONSTRAINT": "the store's schema refused the change (a lanmatch bug)",
    "NOMEM": "sqlite ran out of memory",
}


def store_failed(e: sqlite3.Error, path: str | os.PathLike[str]) -> StoreFailed:
    """sqlite's error `e` on the store at `path` as the `StoreFailed` to raise (`from e`)."""
    name = getattr(e, "sqlite_errorname", None)
    primary = name.split("_")[1] if name and name.count("_") >= 1 else ""
    if isinstance(e, sqlite3.ProgrammingError) and name is None:
        what = "the store is closed or was used wrongly (a lanmatch bug)"
    else:
        what = _WHAT.get(primary, "sqlite failed")
    cls = (
        StoreIntegrityError if isinstance(e, sqlite3.IntegrityError)
        else StoreOperationalError if isinstance(e, sqlite3.OperationalError)
        else StoreDatabaseError if isinstance(e, sqlite3.DatabaseError)
        else StoreFailed
    )
    return cls(f"The store {path} failed: {what} (sqlite: {e}); nothing was changed.", name)


__all__ = [
    "BadName",
    "InsufficientCoins",
    "LogMismatch",
    "MatchClosed",
    "MigrationFailed",
    "NoStore",
    "NotAStore",
    "ReplayError",
    "SchemaTooNew",
    "StoreBusy",
    "StoreDatabaseError",
    "StoreError",
    "StoreFailed",
    "StoreIntegrityError",
    "StoreOperationalError",
    "UnknownMatch",
    "UnknownProfile",
    "WrongKey",
    "store_failed",
]
