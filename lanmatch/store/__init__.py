"""The host's store: profiles, play coins, stats and every match (sqlite, WAL).

    from lanmatch.store import Store, SeatSpec
    store = Store.open_dir(data_dir, lock=True)        # makes or migrates DIR/lanmatch.sqlite3
    ann = store.profile("Ann", key, now)               # made on first use with 1,000 coins
    m = store.begin_match(game="colormatch", table="classic", seed=seed, now=now,
                          seats=[SeatSpec.player(ann), SeatSpec.bot("medium")],
                          kind="coins", stake=50)      # every stake posted, same transaction
    store.record_action(m, index, seat, action, by)    # after every engine action, in order
    store.leave(m, seat, now)                          # forfeit + 10 % fee in a coin match
    store.finish_match(m, outcome, now)                # pot paid once, stats written, one transaction
    store.unfinished()                                 # after a crash: what to resume
    store.stats("Ann"); store.history(20); store.replay(m)

How this works. One sqlite file per data directory, in WAL mode. Each method
is one transaction, so an operation is all written or not at all whatever
kills the process. Coins move only as rows of an append-only ledger between
accounts (the bank that mints grants, the house, each match's pot, each
profile); the schema itself keeps balances equal to the ledger, never below
zero, and refuses a second payout of the same pot (`schema.py`). A match is
stored as its deal (game, table, players, options, seed) plus its actions in
order, so it can be dealt again and replayed (`replay.py`), which is how a
restarted host resumes its tables. The rules of who pays whom are in
`settle.py`; the host's side of it is described in docs/store.md.

Errors: a caller catches `StoreError` alone. Refusals are its subclasses
(`WrongKey`, `InsufficientCoins`, ...), and sqlite's own failures (a locked,
read-only, full or damaged file) leave the store as `StoreFailed`, after the
transaction was rolled back; bad arguments are `ValueError`.

Modules: `db` (the `Store`), `schema` (tables, invariants, frozen
migrations; imports nothing of lanmatch), `settle` (payouts, fees, stats
rows; pure), `replay` (deal and replay; pure), `records` (the values handed
out), `paths` (default directories), `errors`. The store imports the rules
(the game registry and the engines) and nothing above it: the text of
`lanmatch stats` and `lanmatch history` is `lanmatch/report.py`, and the
player's own profile file is `lanmatch/net/profile.py` (the peer's side).
"""

from __future__ import annotations

from lanmatch.store.db import (
    MatchSummary,
    ProfileStats,
    ProfileSummary,
    Store,
    Tally,
    held_by_a_host,
)
from lanmatch.store.errors import (
    BadName,
    InsufficientCoins,
    LogMismatch,
    MatchClosed,
    MigrationFailed,
    NoStore,
    NotAStore,
    ReplayError,
    SchemaTooNew,
    StoreBusy,
    StoreDatabaseError,
    StoreError,
    StoreFailed,
    StoreIntegrityError,
    StoreOperationalError,
    UnknownMatch,
    UnknownProfile,
    WrongKey,
)
from lanmatch.store.paths import config_dir, db_path, default_data_dir
from lanmatch.store.rating import BOT_RATINGS, BOT_RATINGS_BY_GAME, StoredRating, bot_rating
from lanmatch.store.records import (
    LedgerRow,
    LoggedAction,
    MatchRecord,
    Profile,
    SeatRecord,
    SeatSpec,
    Settlement,
    Transfer,
)
from lanmatch.store.replay import ReplayStep, deal, iter_replay, rebuild_game
from lanmatch.store.schema import SCHEMA_VERSION
from lanmatch.store.settle import LEAVING_FEE_PERCENT, NEW_PROFILE_COINS, leaving_fee

__all__ = [
    "LEAVING_FEE_PERCENT",
    "NEW_PROFILE_COINS",
    "SCHEMA_VERSION",
    "BadName",
    "InsufficientCoins",
    "LedgerRow",
    "LogMismatch",
    "LoggedAction",
    "MatchClosed",
    "MatchRecord",
    "MatchSummary",
    "MigrationFailed",
    "NoStore",
    "NotAStore",
    "Profile",
    "ProfileStats",
    "BOT_RATINGS",
    "BOT_RATINGS_BY_GAME",
    "StoredRating",
    "bot_rating",
    "ProfileSummary",
    "ReplayError",
    "ReplayStep",
    "SchemaTooNew",
    "SeatRecord",
    "SeatSpec",
    "Settlement",
    "Store",
    "held_by_a_host",
    "StoreBusy",
    "StoreDatabaseError",
    "StoreError",
    "StoreFailed",
    "StoreIntegrityError",
    "StoreOperationalError",
    "Tally",
    "Transfer",
    "UnknownMatch",
    "UnknownProfile",
    "WrongKey",
    "config_dir",
    "db_path",
    "deal",
    "default_data_dir",
    "iter_replay",
    "leaving_fee",
    "rebuild_game",
]
