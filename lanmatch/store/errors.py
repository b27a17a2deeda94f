"""What the store refuses, as exceptions with a sentence for a person.

Every refusal is a `StoreError` whose message names what was refused and
why; nothing was written when one is raised (each operation is one
transaction). Failures of sqlite itself (a full disk, an interrupted
statement, a broken file) surface as `sqlite3.Error`, also after a rollback.
"""

from __future__ import annotations


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


__all__ = [
    "BadName",
    "InsufficientCoins",
    "LogMismatch",
    "MatchClosed",
    "NoStore",
    "NotAStore",
    "ReplayError",
    "SchemaTooNew",
    "StoreBusy",
    "StoreError",
    "UnknownMatch",
    "UnknownProfile",
    "WrongKey",
]
