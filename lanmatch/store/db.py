"""The `Store`: one sqlite file (WAL) holding profiles, coins, matches and stats.

How this works. Every public method is one transaction (`BEGIN IMMEDIATE`
... `COMMIT`, or a read snapshot), so an operation is either all written or
not at all, whatever kills the process in between. Coins move only as ledger
rows (`settle.py` says who pays whom); a trigger applies each row to the two
accounts' cached balances in the same statement, CHECK constraints keep
players and pots at or above zero, and unique keys make a second payout of
the same pot impossible (`schema.py` lists the invariants). A match is its
deal (game, table, players, options, seed) plus its actions in order, so any
match can be dealt again and replayed (`replay.py`); the host resumes live
matches from `unfinished()` after a crash.

Durability: the file is in WAL mode. Transactions that move coins (or make a
profile) commit with `synchronous=FULL`, so a payout reported done survives
even a power cut; recording actions commits with `synchronous=NORMAL`
(durable against a killed process, about a hundred times cheaper), and each
later FULL commit makes the actions before it durable too.

Time is an argument: every `now` is wall-clock seconds since the epoch
(`time.time()`), stored as given and shown by `lanmatch history`.

Threads: a `Store` serialises its methods with a lock and may be used from
worker threads (e.g. `trio.to_thread.run_sync`), one call at a time.

Errors: nothing of sqlite crosses the boundary. Every method turns sqlite's
errors into `StoreFailed` (a `StoreError`; errors.py) after rolling its
transaction back, so a caller catches `StoreError` alone (and `ValueError`
for bad arguments). Only `Store.conn`, used directly, raises sqlite's own.

Games: which games and tables exist is the game registry's
(`lanmatch.rules`): `begin_match` checks a match against it, so a game or a
table registered later is stored like the others.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import json
import os
import sqlite3
import threading
import urllib.parse
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lanmatch.rules import get_game, new_game
from lanmatch.store.errors import (
    BadName,
    InsufficientCoins,
    LogMismatch,
    MatchClosed,
    MigrationFailed,
    NoStore,
    NotAStore,
    SchemaTooNew,
    StoreBusy,
    StoreError,
    StoreFailed,
    UnknownMatch,
    UnknownProfile,
    WrongKey,
    store_failed,
)
from lanmatch.store.paths import db_path
from lanmatch.store.rating import StoredRating, rate_match, ratings_of, read_rating
from lanmatch.store.records import (
    BOT_LEVELS,
    SEAT_KINDS,
    Account,
    LedgerRow,
    MatchRecord,
    Profile,
    SeatSpec,
    Settlement,
    Transfer,
    dumps,
    load_match,
)
from lanmatch.store.replay import ReplayStep, iter_replay, rebuild_game
from lanmatch.store.schema import (
    APPLICATION_ID,
    MIGRATIONS,
    SCHEMA_VERSION,
    has_tables,
    read_version,
    upgrade,
)
from lanmatch.store.settle import (
    NEW_PROFILE_COINS,
    check_winners,
    fee_charged,
    payout_transfers,
    result_rows,
    stake_transfers,
)

NAME_MAX = 24
KEY_MIN = 16
KEY_MAX = 256
BANK, HOUSE = 1, 2  # account ids of the system accounts


def key_hash(key: str) -> str:
    """What the store keeps of a profile key: its SHA-256 (keys are 128 random bits)."""
    return hashlib.sha256(f"lanmatch-profile:{key}".encode()).hexdigest()


def check_name(name: Any) -> str:
    """A profile name, trimmed.

    Raises:
        BadName: not a string of 1-24 printable characters.
    """
    if not isinstance(name, str) or not name.strip():
        raise BadName("A profile name needs at least one character.")
    name = " ".join(name.split())
    if len(name) > NAME_MAX or not name.isprintable():
        raise BadName(f"A profile name is 1 to {NAME_MAX} printable characters, not {name!r}.")
    return name


# ------------------------------------------------------------------ reports


@dataclass(frozen=True)
class Tally:
    """Matches counted: played = won + lost + drawn + left; `coins` is the net."""

    played: int = 0
    won: int = 0
    lost: int = 0
    drawn: int = 0
    left: int = 0
    coins: int = 0


@dataclass(frozen=True)
class ProfileStats:
    profile: Profile
    balance: int
    total: Tally
    by_table: list[tuple[str, str, Tally]]  # (game, table, tally)
    by_bots: list[tuple[str, Tally]]  # (bot level of the opponents, tally)
    by_opponents: list[tuple[int, Tally]]
    by_kind: list[tuple[str, Tally]]  # practice | coins
    daily: list[tuple[str, int]]  # (date, fewest turns among that day's daily wins), newest first
    ratings: list[StoredRating] = field(default_factory=list)  # per game, by game name

    @property
    def daily_best(self) -> int | None:
        """The fewest turns among all daily wins."""
        return min((t for _, t in self.daily), default=None)


@dataclass(frozen=True)
class ProfileSummary:
    profile: Profile
    balance: int
    total: Tally
    daily_best: int | None


@dataclass(frozen=True)
class MatchSummary:
    id: int
    room: str
    game: str
    table: str  # the table, or the game's name where its only table is unnamed ("dominoes")
    mode: str
    kind: str
    stake: int
    status: str
    started: float
    ended: float | None
    names: tuple[str, ...]
    winners: tuple[int, ...]
    actions: int
    left: tuple[int, ...] = ()  # the seats whose person left before the end (a bot played on)


def _tally(row: Sequence[Any]) -> Tally:
    return Tally(*(int(x or 0) for x in row))


_TALLY_SQL = (
    "count(*), sum(result = 'win'), sum(result = 'loss'), sum(result = 'draw'),"
    " sum(result = 'left'), sum(coins)"
)


# ------------------------------------------------------------------ the writer of results rows


def _transfers_of(conn: sqlite3.Connection, match_id: int) -> list[Transfer]:
    out = []
    for key, reason, skind, sprof, dkind, dprof, amount, seat in conn.execute(
        "SELECT l.key, l.reason, s.kind, s.profile_id, d.kind, d.profile_id, l.amount, l.seat"
        " FROM ledger l JOIN accounts s ON s.id = l.src JOIN accounts d ON d.id = l.dst"
        " WHERE l.match_id = ? ORDER BY l.id",
        (match_id,),
    ):
        src: Account = sprof if skind == "player" else skind
        dst: Account = dprof if dkind == "player" else dkind
        out.append(Transfer(key, reason, src, dst, amount, seat))
    return out


def insert_results(conn: sqlite3.Connection, match_id: int) -> None:
    """Write the stats rows of a finished match (inside the caller's transaction)."""
    record = load_match(conn, match_id, actions=False)
    assert record.status == "finished" and record.outcome is not None and record.ended is not None
    rows = result_rows(record, record.outcome, _transfers_of(conn, match_id), record.ended)
    conn.executemany(
        "INSERT INTO results (match_id, seat, profile_id, game, tbl, mode, kind, result, winners,"
        " opponents, bot_level, points, turns, daily, coins, ended)"
        " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [
            (r.match_id, r.seat, r.profile_id, r.game, r.table, r.mode, r.kind, r.result, r.winners,
             r.opponents, r.bot_level, r.points, r.turns, r.daily, r.coins, r.ended)
            for r in rows
        ],
    )


# ------------------------------------------------------------------ opening


SQLITE_MAGIC = b"SQLite format 3\x00"


def _header(path: Path) -> tuple[int, int, bool] | None:
    """`(application_id, user_version, has a schema)` read from the file's header
    bytes, or None when the header cannot be trusted alone (a non-empty WAL
    file may hold newer pages) or the schema needs a closer look.

    Raises:
        NotAStore: not an sqlite database.
    """
    try:
        with open(path, "rb") as f:
            head = f.read(100)
    except OSError as e:
        raise StoreError(f"Cannot read {path}: {e.strerror or e}.") from None
    if not head:
        return 0, 0, False  # an empty file is an empty database
    if len(head) < 100 or not head.startswith(SQLITE_MAGIC):
        raise NotAStore(f"{path} is not a lanmatch store (it is not an sqlite database).")
    wal = Path(f"{path}-wal")
    if wal.exists() and wal.stat().st_size > 0:
        return None
    cookie = int.from_bytes(head[40:44], "big")
    version = int.from_bytes(head[60:64], "big", signed=True)
    app = int.from_bytes(head[68:72], "big", signed=True)
    if app == 0 and version == 0 and cookie != 0:
        return None  # someone's schema, or an emptied one: look at it
    return app, version, cookie != 0


def _probe(path: Path) -> tuple[int, int, bool]:
    """`(application_id, user_version, has tables)` of an existing file, read-only
    (nothing is written to it, not even the journal mode).

    Raises:
        NotAStore: not an sqlite database.
    """
    uri = "file:" + urllib.parse.quote(str(path.resolve())) + "?mode=ro"
    try:
        probe = sqlite3.connect(uri, uri=True)
    except sqlite3.Error as e:
        raise StoreError(f"Cannot open {path}: {e}.") from None
    try:
        app, version = read_version(probe)
        return app, version, has_tables(probe)
    except sqlite3.DatabaseError as e:
        if getattr(e, "sqlite_errorname", "") == "SQLITE_NOTADB":
            raise NotAStore(f"{path} is not a lanmatch store (it is not an sqlite database).") from None
        raise StoreError(f"Cannot read {path}: {e}.") from None
    finally:
        probe.close()


def _lock_file(path: Path) -> Path:
    """The file a host locks for the life of its store at `path`."""
    return Path(f"{path}.lock")


def _take_lock(path: Path) -> int | None:
    try:
        import fcntl
    except ImportError:  # not POSIX: no lock
        return None
    lock = _lock_file(path)
    fd = os.open(lock, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        os.close(fd)
        raise StoreBusy(f"Another lanmatch host is using {path} (it holds {lock}); stop it first.") from None
    return fd


def held_by_a_host(path: Path) -> bool:
    """Is a host using the store at `path` now (it holds `path.lock`)? A
    look only: the lock is not kept. False where there is no lock (not
    POSIX, or no lock file yet)."""
    try:
        import fcntl
    except ImportError:
        return False
    try:
        fd = os.open(_lock_file(path), os.O_RDONLY)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except OSError:
        return True
    finally:
        os.close(fd)  # (closing drops a lock taken here)
    return False


class Store:
    """The host's store. Open with `Store.open(file)` or `Store.open_dir(data_dir)`.

    `conn` is the sqlite connection (for diagnostics and tests; write only
    through the methods).
    """

    def __init__(self, conn: sqlite3.Connection, path: Path, *, durable: bool, lock_fd: int | None):
        self.conn = conn
        self.path = path
        self.durable = durable
        self._lock_fd = lock_fd
        self._mutex = threading.RLock()
        self._sync = ""
        # The host's policy: do practice matches move ratings? (`lanmatch host
        # --no-practice-ratings` sets it False; coin matches are always rated.)
        self.practice_ratings = True

    # -------------------------------------------------------------- opening and closing

    @classmethod
    def open(
        cls,
        path: str | os.PathLike[str],
        *,
        create: bool = True,
        lock: bool = False,
        durable: bool = True,
        busy_timeout: float = 5.0,
    ) -> Store:
        """Open (or make) the store in the file `path`, migrating it to this version.

        `create=False` refuses a missing file instead of making one. `lock=True`
        takes an exclusive lock on `path.lock` for the life of the store (the
        host does; readers such as `lanmatch stats` do not). `durable=False`
        commits everything with `synchronous=NORMAL` (tests).

        Raises:
            NoStore: no file and `create` is False.
            NotAStore: the file is not a lanmatch store.
            SchemaTooNew: the file was written by a newer lanmatch (untouched).
            StoreBusy: `lock` and another process holds the lock.
            MigrationFailed: an older file could not be upgraded (it keeps its version).
            StoreFailed: sqlite failed (a locked, read-only or damaged file, ...).
            StoreError: the file cannot be opened or put in WAL mode.
        """
        path = Path(path)
        if path.exists():
            # read without writing anything (a newer store must stay byte for byte as it is)
            app, version, tables = _header(path) or _probe(path)
            if app not in (0, APPLICATION_ID) or (app == 0 and version == 0 and tables):
                raise NotAStore(f"{path} is not a lanmatch store (it holds another program's tables).")
            if version > SCHEMA_VERSION:
                raise SchemaTooNew(str(path), version, SCHEMA_VERSION)
        elif not create:
            raise NoStore(
                f"There is no lanmatch store at {path} yet: `lanmatch host` makes it when it first runs"
                f" with this data directory ({path.parent}; --data DIR picks another)."
            )
        else:
            path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
            os.close(os.open(path, os.O_WRONLY | os.O_CREAT, 0o600))  # private from the start
        lock_fd = _take_lock(path) if lock else None
        try:
            conn = sqlite3.connect(path, isolation_level=None, check_same_thread=False, timeout=busy_timeout)
        except sqlite3.Error as e:
            if lock_fd is not None:
                os.close(lock_fd)
            raise StoreError(f"Cannot open {path}: {e}.") from None
        store = cls(conn, path, durable=durable, lock_fd=lock_fd)
        try:
            with store._failures():
                conn.execute("PRAGMA foreign_keys = ON")
                mode = conn.execute("PRAGMA journal_mode = WAL").fetchone()[0]
                if mode.lower() != "wal":
                    raise StoreError(f"Cannot put {path} in WAL mode (sqlite answered {mode!r}); is it on a network drive?")
                store._migrate()
        except BaseException:
            store.close()
            raise
        return store

    @classmethod
    def open_dir(cls, data_dir: str | os.PathLike[str], **kwargs: Any) -> Store:
        """Open the store of a data directory (`DIR/lanmatch.sqlite3`); see `open`."""
        return cls.open(db_path(data_dir), **kwargs)

    def _migrate(self) -> None:
        """Run the missing migrations, each in its own transaction (`schema.upgrade`),
        after a backup of a file that holds data.

        Raises:
            SchemaTooNew: another lanmatch upgraded the file past ours meanwhile.
            MigrationFailed: a migration failed (the file keeps its last complete version).
        """
        backed_up = read_version(self.conn)[1] == 0  # a new file has nothing to back up
        for _ in range(len(MIGRATIONS) + 1):
            _, version = read_version(self.conn)
            if version > SCHEMA_VERSION:
                raise SchemaTooNew(str(self.path), version, SCHEMA_VERSION)
            if version == SCHEMA_VERSION:
                return
            backup = Path(f"{self.path}.v{version}.bak")
            if version >= 1 and not backed_up:
                self._backup(backup)
                backed_up = True
            self._set_sync(True)
            try:
                upgrade(self.conn, version)
            except (sqlite3.Error, ValueError, KeyError, TypeError) as e:
                kept = f"; a copy from before the upgrade is {backup}" if backup.exists() else ""
                raise MigrationFailed(
                    f"Cannot upgrade the store {self.path} from version {version} to {version + 1}: "
                    f"{type(e).__name__}: {e}. It was left at version {version}{kept}."
                ) from e

    def _backup(self, target: Path) -> None:
        """A copy of a store about to be upgraded: `FILE.vN.bak` (kept if one exists)."""
        if target.exists():
            return
        dest = sqlite3.connect(target)
        try:
            self.conn.backup(dest)
        finally:
            dest.close()
        os.chmod(target, 0o600)

    @property
    def version(self) -> int:
        """Raises: StoreFailed."""
        with self._mutex, self._failures():
            return read_version(self.conn)[1]

    def close(self) -> None:
        with self._mutex:
            with contextlib.suppress(sqlite3.Error):
                self.conn.close()
            if self._lock_fd is not None:
                os.close(self._lock_fd)
                self._lock_fd = None

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -------------------------------------------------------------- transactions

    def _set_sync(self, money: bool) -> None:
        want = "FULL" if money and self.durable else "NORMAL"
        if want != self._sync:
            self.conn.execute(f"PRAGMA synchronous = {want}")
            self._sync = want

    @contextlib.contextmanager
    def _failures(self) -> Iterator[None]:
        """The store's boundary: sqlite's errors leave as `StoreFailed` (errors.py)."""
        try:
            yield
        except BaseException as e:
            self._reraise(e)
            raise

    def _reraise(self, e: BaseException) -> None:
        """Raise `StoreFailed` (from `e`) when `e` is sqlite's own error; else return,
        and the caller raises `e` again as it is."""
        if isinstance(e, sqlite3.Error) and not isinstance(e, StoreFailed):
            raise store_failed(e, self.path) from e

    def _rollback(self) -> None:
        """End a failed transaction (a connection too broken to say leaves nothing to end)."""
        with contextlib.suppress(sqlite3.Error):
            if self.conn.in_transaction:
                self.conn.execute("ROLLBACK")

    # _write and _read wrap sqlite's errors themselves, not through _failures:
    # they run for every action the host records, and one generator less is
    # a few µs less each time.

    @contextlib.contextmanager
    def _write(self, money: bool) -> Iterator[sqlite3.Connection]:
        with self._mutex:
            try:
                self._set_sync(money)
                self.conn.execute("BEGIN IMMEDIATE")  # may fail after opening the transaction
                yield self.conn
                self.conn.execute("COMMIT")
            except BaseException as e:
                self._rollback()
                self._reraise(e)
                raise

    @contextlib.contextmanager
    def _read(self) -> Iterator[sqlite3.Connection]:
        with self._mutex:
            try:
                self.conn.execute("BEGIN")
                yield self.conn
                self.conn.execute("COMMIT")
            except BaseException as e:
                self._rollback()
                self._reraise(e)
                raise

    # -------------------------------------------------------------- accounts

    def _account(self, acct: Account, match_id: int | None = None) -> int:
        if acct == "bank":
            return BANK
        if acct == "house":
            return HOUSE
        if acct == "pot":
            row = self.conn.execute("SELECT id FROM accounts WHERE match_id = ?", (match_id,)).fetchone()
        else:
            row = self.conn.execute("SELECT id FROM accounts WHERE profile_id = ?", (acct,)).fetchone()
        if row is None:
            raise StoreError(f"No account for {acct!r} (match {match_id}).")
        return row[0]

    def _move(self, t: Transfer, match_id: int | None, at: float) -> None:
        self.conn.execute(
            "INSERT INTO ledger (key, src, dst, amount, reason, match_id, seat, at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (t.key, self._account(t.src, match_id), self._account(t.dst, match_id), t.amount, t.reason,
             match_id, t.seat, at),
        )

    def _balance(self, profile_id: int) -> int:
        row = self.conn.execute("SELECT balance FROM accounts WHERE profile_id = ?", (profile_id,)).fetchone()
        if row is None:
            raise UnknownProfile(f"There is no profile {profile_id} in this store.")
        return row[0]

    def balance(self, profile_id: int) -> int:
        """A profile's coins (its account's balance, which `check` proves equals its ledger sum).

        Raises:
            UnknownProfile: no such profile.
        """
        with self._read():
            return self._balance(profile_id)

    def house_balance(self) -> int:
        """The house's coins: stakes posted for bots, fees, odd coins, forfeits (may be negative)."""
        with self._read() as c:
            return c.execute("SELECT balance FROM accounts WHERE id = ?", (HOUSE,)).fetchone()[0]

    def coins_issued(self) -> int:
        """Every coin the bank ever granted (minus the bank's balance)."""
        with self._read() as c:
            return -c.execute("SELECT balance FROM accounts WHERE id = ?", (BANK,)).fetchone()[0]

    def pot(self, match_id: int) -> int:
        """Coins in a match's pot (0 for a practice match)."""
        with self._read() as c:
            row = c.execute("SELECT balance FROM accounts WHERE match_id = ?", (match_id,)).fetchone()
            return row[0] if row else 0

    def ledger(self, *, profile_id: int | None = None, match_id: int | None = None) -> list[LedgerRow]:
        """Ledger rows in order, all or those of one profile or one match."""
        sql = (
            "SELECT l.id, l.key, l.reason, s.kind, s.profile_id, d.kind, d.profile_id, l.amount, l.match_id, l.seat, l.at"
            " FROM ledger l JOIN accounts s ON s.id = l.src JOIN accounts d ON d.id = l.dst"
        )
        args: tuple[Any, ...] = ()
        if profile_id is not None:
            sql += " WHERE s.profile_id = ? OR d.profile_id = ?"
            args = (profile_id, profile_id)
        elif match_id is not None:
            sql += " WHERE l.match_id = ?"
            args = (match_id,)
        with self._read() as c:
            return [
                LedgerRow(i, k, r, sp if sk == "player" else sk, dp if dk == "player" else dk, a, m, s, at)
                for i, k, r, sk, sp, dk, dp, a, m, s, at in c.execute(sql + " ORDER BY l.id", args)
            ]

    # -------------------------------------------------------------- profiles

    def profile(self, name: str, key: str, now: float) -> Profile:
        """The profile called `name`: made on first use (with its 1,000 coins,
        granted by the bank in the same transaction), recognised on return.

        `key` is the secret the player's machine keeps in its profile file
        (`lanmatch/net/profile.py`); the store keeps only its hash. Names are unique
        without regard to case.

        Raises:
            BadName: an unusable name.
            WrongKey: the name is taken and the key does not match.
            ValueError: a key shorter than 16 or longer than 256 characters.
        """
        if not isinstance(key, str) or not KEY_MIN <= len(key) <= KEY_MAX:
            raise ValueError(f"a profile key is {KEY_MIN}-{KEY_MAX} characters")
        return self.profile_from_verifier(name, key_hash(key), now)

    def profile_from_verifier(self, name: str, verifier: str, now: float) -> Profile:
        """`profile(name, key, now)` for a peer that sends the key's hash
        (`key_hash(key)`, its verifier: protocol 2's `register`) instead of the key.

        Raises:
            BadName: an unusable name.
            WrongKey: the name is taken with another verifier.
            ValueError: a verifier that is not 64 lowercase hex digits.
        """
        name = check_name(name)
        if not isinstance(verifier, str) or len(verifier) != 64 or verifier.strip("0123456789abcdef"):
            raise ValueError("a profile verifier is 64 lowercase hex digits")
        digest = verifier
        with self._write(money=True) as c:
            row = c.execute("SELECT id, name, key_hash, created FROM profiles WHERE name = ?", (name,)).fetchone()
            if row is not None:
                if not hmac.compare_digest(row[2], digest):
                    raise WrongKey(
                        f"The name {row[1]!r} is taken on this host by another player's profile "
                        "(the profile key does not match); pick another name."
                    )
                return Profile(row[0], row[1], row[3])
            pid = c.execute(
                "INSERT INTO profiles (name, key_hash, created) VALUES (?, ?, ?)", (name, digest, now)
            ).lastrowid
            c.execute("INSERT INTO accounts (kind, profile_id) VALUES ('player', ?)", (pid,))
            self._move(Transfer(f"grant:{pid}", "grant", "bank", pid, NEW_PROFILE_COINS), None, now)
            return Profile(pid, name, now)

    def find_profile(self, name: str) -> Profile | None:
        """The profile called `name` (any case), or None."""
        with self._read() as c:
            row = c.execute("SELECT id, name, created FROM profiles WHERE name = ?", (" ".join(str(name).split()),)).fetchone()
            return Profile(*row) if row else None

    def rekey(self, profile_id: int, old: str, new: str) -> bool:
        """Replace profile `profile_id`'s verifier `old` by `new` (protocol 3's
        per-host key); False (nothing changed) if it is no longer `old`.

        Raises:
            ValueError: `new` is not 64 lowercase hex digits.
        """
        if not isinstance(new, str) or len(new) != 64 or new.strip("0123456789abcdef"):
            raise ValueError("a profile verifier is 64 lowercase hex digits")
        with self._write(money=True) as c:
            return c.execute("UPDATE profiles SET key_hash = ? WHERE id = ? AND key_hash = ?",
                             (new, profile_id, old)).rowcount == 1

    def verifier_of(self, name: str) -> tuple[Profile, str] | None:
        """The profile called `name` (any case) and the hash of its key (its
        verifier: protocol 2's proofs are checked against it), or None."""
        with self._read() as c:
            row = c.execute("SELECT id, name, created, key_hash FROM profiles WHERE name = ?",
                            (" ".join(str(name).split()),)).fetchone()
            return (Profile(*row[:3]), row[3]) if row else None

    def get_profile(self, profile_id: int) -> Profile:
        """Raises: UnknownProfile."""
        with self._read() as c:
            row = c.execute("SELECT id, name, created FROM profiles WHERE id = ?", (profile_id,)).fetchone()
        if row is None:
            raise UnknownProfile(f"There is no profile {profile_id} in this store.")
        return Profile(*row)

    def profiles(self) -> list[Profile]:
        with self._read() as c:
            return [Profile(*r) for r in c.execute("SELECT id, name, created FROM profiles ORDER BY name")]

    def _resolve(self, profile: Profile | int | str) -> Profile:
        if isinstance(profile, Profile):
            return profile
        if isinstance(profile, str):
            found = self.find_profile(profile)
            if found is None:
                raise UnknownProfile(f"There is no profile named {profile!r} in {self.path}.")
            return found
        return self.get_profile(profile)

    # -------------------------------------------------------------- matches

    def begin_match(
        self,
        *,
        game: str,
        table: str | None,
        seats: Sequence[SeatSpec],
        seed: int,
        now: float,
        options: dict[str, Any] | None = None,
        kind: str = "practice",
        stake: int = 0,
        room: str = "",
        settings: dict[str, Any] | None = None,
        first_seat: int | None = None,
    ) -> int:
        """Store a match that starts now and return its id.

        `seats` lists who sits at each seat (`SeatSpec.player/guest/bot`);
        `seed`, `options` and `first_seat` are what the engine was given, so
        the match can be dealt again. A coin room (`kind="coins"`, `stake` > 0)
        posts every seat's stake into the match's pot in the same transaction
        (the house posts for bots). `settings` is anything the host wants back
        to rebuild its room after a crash (clock, bot level, ...), as JSON.

        Raises:
            InsufficientCoins: a player holds less than the stake (nothing is written).
            UnknownProfile: a seat names a profile that does not exist.
            ValueError: bad arguments: an unknown game, table, option or bot
                level, a seat count the game does not seat, a guest in a coin
                room, a stake that does not fit the kind, a profile seated
                twice, options or settings that are not JSON.
        """
        if kind not in ("practice", "coins"):
            raise ValueError(f"kind is 'practice' or 'coins', not {kind!r}")
        if type(stake) is not int or (stake > 0) != (kind == "coins") or stake < 0:
            raise ValueError(f"a {kind} match takes {'a positive' if kind == 'coins' else 'no'} stake, not {stake!r}")
        if type(seed) is not int:
            raise ValueError(f"seed must be an int, not {seed!r}")
        table = get_game(game).table_name(table)  # the registry's: None for a game's only, unnamed table
        seats = list(seats)
        profiles = [s.profile_id for s in seats if s.kind == "player"]
        if len(set(profiles)) != len(profiles):
            raise ValueError("a profile can sit at one seat of a match only")
        for s in seats:
            if s.kind not in SEAT_KINDS:
                raise ValueError(f"a seat is a player, guest or bot, not {s.kind!r}")
            if (s.kind == "player") != (s.profile_id is not None):
                raise ValueError("a player's seat names its profile, and only a player's")
            if s.kind == "bot" and s.bot_level not in (None, *BOT_LEVELS):
                raise ValueError(f"unknown bot level {s.bot_level!r}")
            if s.kind == "guest" and kind == "coins":
                raise ValueError("a coin room needs a profile at every person's seat (guests play practice rooms)")
        options = dict(options or {})
        try:
            options_text, settings_text = dumps(options), dumps(settings or {})
        except (TypeError, ValueError) as e:
            raise ValueError(f"options and settings must be JSON: {e}") from None
        # the engine checks players, table, options and first seat, as it will deal them again
        new_game(game, table=table, players=len(seats), seed=seed, options=options, first_seat=first_seat)

        with self._write(money=kind == "coins") as c:
            match_id = c.execute(
                "INSERT INTO matches (room, game, tbl, players, options, seed, first_seat, kind, stake, settings, started)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (room, game, table, len(seats), options_text, str(seed), first_seat, kind, stake, settings_text, now),
            ).lastrowid
            for i, s in enumerate(seats):
                if s.kind == "player" and c.execute("SELECT 1 FROM profiles WHERE id = ?", (s.profile_id,)).fetchone() is None:
                    raise UnknownProfile(f"There is no profile {s.profile_id} in this store.")
                c.execute(
                    "INSERT INTO match_seats (match_id, seat, kind, profile_id, name, bot_level, token)"
                    " VALUES (?, ?, ?, ?, ?, ?, ?)",
                    (match_id, i, s.kind, s.profile_id, s.name, s.bot_level, s.token),
                )
            if kind == "coins":
                c.execute("INSERT INTO accounts (kind, match_id) VALUES ('pot', ?)", (match_id,))
                record = load_match(c, match_id, actions=False)
                for s in record.seats:
                    if s.kind == "player":
                        held = self._balance(s.profile_id)  # type: ignore[arg-type]
                        if held < stake:
                            raise InsufficientCoins(
                                f"{s.name} holds {held} coins, less than the stake of {stake}; "
                                "pick a smaller stake or a practice room."
                            )
                for t in stake_transfers(match_id, stake, record.seats):
                    self._move(t, match_id, now)
            return match_id

    def _live(self, match_id: int) -> MatchRecord:
        record = load_match(self.conn, match_id, actions=False)
        if record.status != "live":
            raise MatchClosed(f"Match {match_id} is {record.status}.")
        return record

    def record_action(self, match_id: int, index: int, seat: int, action: dict[str, Any], by: str = "seat") -> bool:
        """Store the `index`-th action of a live match (0, 1, 2, ... in order).

        Idempotent: the same action again at an index already stored changes
        nothing. Returns True when a row was written.

        Raises:
            UnknownMatch, MatchClosed: no such match, or it is no longer live.
            LogMismatch: a different action is stored at `index`, or `index`
                leaves a gap.
            ValueError: a seat outside the match or an action that is not a dict.
        """
        return self.record_actions(match_id, index, [(seat, action, by)]) == 1

    def record_actions(self, match_id: int, first_index: int, actions: Iterable[Sequence[Any]]) -> int:
        """Store several actions in one transaction: `(seat, action)` or
        `(seat, action, by)` each, the first at `first_index`. Returns how many
        were new (see `record_action`; the Referee's `log[i][1:]` fits)."""
        items = [tuple(a) for a in actions]
        with self._write(money=False) as c:
            # (the host calls this after every action: read only what it needs)
            row = c.execute("SELECT status, players FROM matches WHERE id = ?", (match_id,)).fetchone()
            if row is None:
                raise UnknownMatch(f"There is no match {match_id} in this store.")
            if row[0] != "live":
                raise MatchClosed(f"Match {match_id} is {row[0]}.")
            players = row[1]
            count = c.execute(
                "SELECT COALESCE(max(idx), -1) + 1 FROM match_actions WHERE match_id = ?", (match_id,)
            ).fetchone()[0]
            if type(first_index) is not int or not 0 <= first_index <= count:
                raise LogMismatch(
                    f"Match {match_id} holds {count} actions; the next is number {count}, not {first_index!r}."
                )
            written = 0
            for i, item in enumerate(items):
                seat, action = item[0], item[1]
                by = str(item[2]) if len(item) > 2 else "seat"
                if type(seat) is not int or not 0 <= seat < players:
                    raise ValueError(f"match {match_id} has seats 0-{players - 1}, not {seat!r}")
                if not isinstance(action, dict):
                    raise ValueError(f"an action is a dict, not {action!r}")
                text = dumps(action)
                index = first_index + i
                if index < count:
                    old = c.execute(
                        "SELECT seat, action FROM match_actions WHERE match_id = ? AND idx = ?", (match_id, index)
                    ).fetchone()
                    if old != (seat, text):
                        raise LogMismatch(
                            f"Match {match_id} already holds action {index} (seat {old[0]}: {old[1]}), "
                            f"not seat {seat}: {text}."
                        )
                    continue
                c.execute(
                    "INSERT INTO match_actions (match_id, idx, seat, action, by) VALUES (?, ?, ?, ?, ?)",
                    (match_id, index, seat, text, by),
                )
                written += 1
            return written

    def leave(self, match_id: int, seat: int, now: float) -> int:
        """The person at `seat` leaves a running match: from now on the seat is
        the house's (a room bot plays it). In a coin match they forfeit the
        stake and pay the leaving fee (10 % of the stake, rounded up, or what
        they have left when less). Returns the fee charged; leaving again
        changes nothing and returns the same fee.

        Raises:
            UnknownMatch, MatchClosed: no such match, or it is over.
            ValueError: no such seat, or a bot's seat.
        """
        with self._write(money=True) as c:
            record = self._live(match_id)
            if type(seat) is not int or not 0 <= seat < record.players:
                raise ValueError(f"match {match_id} has seats 0-{record.players - 1}, not {seat!r}")
            s = record.seats[seat]
            if s.kind == "bot":
                raise ValueError(f"seat {seat} of match {match_id} is a bot's; only people leave")
            if s.left:
                row = c.execute("SELECT amount FROM ledger WHERE key = ?", (f"fee:{match_id}:{seat}",)).fetchone()
                return row[0] if row else 0
            c.execute("UPDATE match_seats SET left_at = ? WHERE match_id = ? AND seat = ?", (now, match_id, seat))
            fee = 0
            if record.kind == "coins" and s.profile_id is not None:
                fee = fee_charged(record.stake, self._balance(s.profile_id))
                if fee:
                    self._move(Transfer(f"fee:{match_id}:{seat}", "fee", s.profile_id, "house", fee, seat), match_id, now)
            return fee

    def finish_match(
        self, match_id: int, outcome: dict[str, Any] | None, now: float, *, verify: bool = True
    ) -> Settlement:
        """Close a match that ended: write its outcome and its stats rows and,
        in a coin match, pay the pot, all in one transaction.

        With `verify` (the default) the recorded actions are replayed first and
        must end the game with this very outcome (`outcome=None` takes the
        replayed one); pass `verify=False` only for a log that is incomplete
        on purpose. Finishing a finished match again with the same outcome
        (or None) changes nothing and returns the same settlement.

        Raises:
            UnknownMatch: no such match.
            MatchClosed: the match was abandoned.
            LogMismatch: the actions do not end the game, or end it otherwise;
                or the match was finished with another outcome.
            ReplayError: the engine refuses a recorded action.
            ValueError: an outcome without proper `winners` (or None without `verify`).
        """
        with self._write(money=True) as c:
            record = load_match(c, match_id, actions=verify)
            if record.status == "finished":
                if outcome is not None and dumps(outcome) != dumps(record.outcome):
                    raise LogMismatch(f"Match {match_id} was finished with another outcome: {dumps(record.outcome)}.")
                return self._settlement(record)
            if record.status != "live":
                raise MatchClosed(f"Match {match_id} is {record.status}.")
            if verify:
                g = rebuild_game(record)
                if g.outcome is None:
                    raise LogMismatch(
                        f"The {len(record.actions)} actions recorded for match {match_id} do not end the game; "
                        "record every action before finishing it."
                    )
                if outcome is None:
                    outcome = g.outcome
                elif dumps(outcome) != dumps(g.outcome):
                    raise LogMismatch(
                        f"Match {match_id} replays to the outcome {dumps(g.outcome)}, not {dumps(outcome)}."
                    )
            elif outcome is None:
                raise ValueError("finish_match needs the outcome when verify is False")
            winners = check_winners(record, outcome)
            transfers = payout_transfers(record, winners)
            for t in transfers:
                self._move(t, match_id, now)
            left = c.execute("SELECT balance FROM accounts WHERE match_id = ?", (match_id,)).fetchone()
            if left is not None and left[0] != 0:
                raise StoreError(f"Match {match_id}'s pot holds {left[0]} coins after paying out (a store bug).")
            c.execute(
                "UPDATE matches SET status = 'finished', ended = ?, outcome = ? WHERE id = ? AND status = 'live'",
                (now, dumps(outcome), match_id),
            )
            insert_results(c, match_id)
            if record.kind == "coins" or self.practice_ratings:
                rate_match(c, match_id, now)
            return self._settlement(load_match(c, match_id, actions=False))

    def abandon_match(self, match_id: int, now: float) -> Settlement:
        """Close a match that will not be played to its end (e.g. the engine can
        no longer replay it): every stake goes back to whoever posted it (a
        leaver's to the house). No stats are counted. Abandoning an abandoned
        match changes nothing.

        Raises:
            UnknownMatch: no such match.
            MatchClosed: the match is finished.
        """
        with self._write(money=True) as c:
            record = load_match(c, match_id, actions=False)
            if record.status == "abandoned":
                return self._settlement(record)
            if record.status != "live":
                raise MatchClosed(f"Match {match_id} is {record.status}.")
            for t in payout_transfers(record, []):
                self._move(t, match_id, now)
            c.execute("UPDATE matches SET status = 'abandoned', ended = ? WHERE id = ? AND status = 'live'", (now, match_id))
            return self._settlement(load_match(c, match_id, actions=False))

    def _settlement(self, record: MatchRecord) -> Settlement:
        paid = tuple(t for t in _transfers_of(self.conn, record.id) if t.reason in ("win", "odd", "refund"))
        return Settlement(record.id, record.status, record.outcome, paid)

    def match(self, match_id: int, *, actions: bool = True) -> MatchRecord:
        """Raises: UnknownMatch."""
        with self._read() as c:
            return load_match(c, match_id, actions=actions)

    def unfinished(self) -> list[MatchRecord]:
        """Every live match with its actions, oldest first: what a restarted host resumes."""
        with self._read() as c:
            ids = [r[0] for r in c.execute("SELECT id FROM matches WHERE status = 'live' ORDER BY id")]
            return [load_match(c, i) for i in ids]

    def rebuild(self, match_id: int) -> Any:
        """The engine game of a match with every recorded action applied.

        Raises:
            UnknownMatch, ReplayError.
        """
        return rebuild_game(self.match(match_id))

    def replay(self, match_id: int) -> Iterator[ReplayStep]:
        """The match step by step, every seat's view at each (see `replay.iter_replay`).

        Raises:
            UnknownMatch; ReplayError (when the bad step is reached).
        """
        return iter_replay(self.match(match_id))

    # -------------------------------------------------------------- stats and history

    def stats(self, profile: Profile | int | str) -> ProfileStats:
        """A profile's wins and losses: in all, by table, by the bots' level, by
        the number of opponents, by room kind, and its daily bests. Counted
        from finished matches (a first-to-N match counts once, at its end).

        Raises:
            UnknownProfile.
        """
        p = self._resolve(profile)
        with self._read() as c:

            def grouped(column: str) -> list[tuple[Any, ...]]:
                return c.execute(
                    f"SELECT {column}, {_TALLY_SQL} FROM results WHERE profile_id = ? GROUP BY {column} ORDER BY {column}",
                    (p.id,),
                ).fetchall()

            total = _tally(c.execute(f"SELECT {_TALLY_SQL} FROM results WHERE profile_id = ?", (p.id,)).fetchone())
            by_table = [(r[0], r[1], _tally(r[2:])) for r in grouped("game, tbl")]
            by_bots = [(r[0], _tally(r[1:])) for r in grouped("bot_level")]
            by_opponents = [(r[0], _tally(r[1:])) for r in grouped("opponents")]
            by_kind = [(r[0], _tally(r[1:])) for r in grouped("kind")]
            daily = c.execute(
                "SELECT daily, min(turns) FROM results WHERE profile_id = ? AND daily IS NOT NULL"
                " AND result = 'win' AND turns IS NOT NULL GROUP BY daily ORDER BY daily DESC",
                (p.id,),
            ).fetchall()
            return ProfileStats(p, self._balance(p.id), total, by_table, by_bots, by_opponents, by_kind,
                                [(d, t) for d, t in daily], ratings_of(c, p.id))

    def rating(self, profile: Profile | int | str, game: str) -> StoredRating | None:
        """A profile's rating at `game` (None: it has played no rated match of it).

        Raises:
            UnknownProfile.
        """
        p = self._resolve(profile)
        with self._read() as c:
            return read_rating(c, p.id, game)

    def ratings(self, profile: Profile | int | str) -> list[StoredRating]:
        """A profile's ratings, one per game it has played rated matches of.

        Raises:
            UnknownProfile.
        """
        p = self._resolve(profile)
        with self._read() as c:
            return ratings_of(c, p.id)

    def rating_changes(self, match_id: int) -> list[tuple[int, float, float]]:
        """What a finished match did to its profiles' ratings: `[(profile_id, before, after)]`."""
        with self._read() as c:
            return [tuple(r) for r in c.execute(
                "SELECT profile_id, before, after FROM rating_changes WHERE match_id = ? ORDER BY seat", (match_id,)
            )]

    def summaries(self) -> list[ProfileSummary]:
        """One line per profile: balance, matches counted, best daily."""
        with self._read() as c:
            out = []
            for pid, name, created, balance in c.execute(
                "SELECT p.id, p.name, p.created, a.balance FROM profiles p JOIN accounts a ON a.profile_id = p.id ORDER BY p.name"
            ).fetchall():
                total = _tally(c.execute(f"SELECT {_TALLY_SQL} FROM results WHERE profile_id = ?", (pid,)).fetchone())
                best = c.execute(
                    "SELECT min(turns) FROM results WHERE profile_id = ? AND daily IS NOT NULL AND result = 'win'",
                    (pid,),
                ).fetchone()[0]
                out.append(ProfileSummary(Profile(pid, name, created), balance, total, best))
            return out

    def daily_best(self, date: str) -> list[tuple[str, int]]:
        """The day's daily wins by profile, fewest turns first: `[(name, turns)]`."""
        with self._read() as c:
            return c.execute(
                "SELECT p.name, min(r.turns) AS t FROM results r JOIN profiles p ON p.id = r.profile_id"
                " WHERE r.daily = ? AND r.result = 'win' AND r.turns IS NOT NULL GROUP BY p.id ORDER BY t, p.name",
                (date,),
            ).fetchall()

    def history(self, limit: int = 20, *, profile: Profile | int | str | None = None) -> list[MatchSummary]:
        """The latest matches, newest first (of one profile if given).

        Raises:
            UnknownProfile.
        """
        where, args = "", [limit]
        if profile is not None:
            p = self._resolve(profile)
            where = "WHERE id IN (SELECT match_id FROM match_seats WHERE profile_id = ?)"
            args = [p.id, limit]
        with self._read() as c:
            rows = c.execute(
                f"SELECT id FROM matches {where} ORDER BY id DESC LIMIT ?", args
            ).fetchall()
            out = []
            for (mid,) in rows:
                r = load_match(c, mid, actions=False)
                n = c.execute("SELECT count(*) FROM match_actions WHERE match_id = ?", (mid,)).fetchone()[0]
                winners = tuple((r.outcome or {}).get("winners") or ())
                out.append(MatchSummary(r.id, r.room, r.game, r.label, r.mode, r.kind, r.stake, r.status,
                                        r.started, r.ended, tuple(r.names()), winners, n,
                                        tuple(x.seat for x in r.seats if x.left)))
            return out

    # -------------------------------------------------------------- tournaments

    def begin_tournament(self, name: str, matches: int, rooms: list[str], now: float) -> int:
        """Keep a new tournament; returns its id."""
        with self._write(money=False) as c:
            return c.execute("INSERT INTO tournaments (name, matches, rooms, created) VALUES (?, ?, ?, ?)",
                             (name, matches, json.dumps(list(rooms)), now)).lastrowid

    def tournament_result(self, tournament_id: int, result: dict[str, Any]) -> None:
        """Keep one match's result (`Tournament.record`'s): its number, match, room and seats."""
        with self._write(money=False) as c:
            c.execute("INSERT INTO tournament_results (tournament_id, number, match_id, room, seats) "
                      "VALUES (?, ?, ?, ?, ?)", (tournament_id, result["match"], result.get("match_id"),
                                                 result["room"], json.dumps(result["seats"])))

    def tournaments(self, limit: int = 20) -> list[dict[str, Any]]:
        """The latest tournaments, newest first: `{id, name, matches, rooms, created, results}`."""
        with self._read() as c:
            rows = c.execute("SELECT id, name, matches, rooms, created FROM tournaments ORDER BY id DESC LIMIT ?",
                             (limit,)).fetchall()
            out = []
            for tid, name, matches, rooms, created in rows:
                results = [{"match": n, "match_id": mid, "room": room, "seats": json.loads(seats)}
                           for n, mid, room, seats in c.execute(
                               "SELECT number, match_id, room, seats FROM tournament_results"
                               " WHERE tournament_id = ? ORDER BY number", (tid,))]
                out.append({"id": tid, "name": name, "matches": matches, "rooms": json.loads(rooms),
                            "created": created, "results": results})
            return out

    # -------------------------------------------------------------- open rooms

    def keep_room(self, name: str, data: dict[str, Any], now: float) -> None:
        """Keep what a host needs to open room `name` again after a restart
        (`data`: plain JSON data; the host's own), replacing what was kept."""
        with self._write(money=False) as c:
            c.execute("INSERT OR REPLACE INTO open_rooms (name, data, saved) VALUES (?, ?, ?)",
                      (name, json.dumps(data, separators=(",", ":")), now))

    def forget_room(self, name: str) -> None:
        """The room `name` closed: nothing of it to open again."""
        with self._write(money=False) as c:
            c.execute("DELETE FROM open_rooms WHERE name = ?", (name,))

    def open_rooms(self) -> list[tuple[str, dict[str, Any], float]]:
        """Every room kept (`keep_room`), oldest first: `(name, data, saved)`;
        a row whose data does not read as a JSON object is left out."""
        with self._read() as c:
            rows = c.execute("SELECT name, data, saved FROM open_rooms ORDER BY saved, name").fetchall()
        out = []
        for name, text, saved in rows:
            with contextlib.suppress(ValueError):
                data = json.loads(text)
                if isinstance(data, dict):
                    out.append((name, data, saved))
        return out

    # -------------------------------------------------------------- checking

    def check(self) -> list[str]:
        """Every invariant of the store, checked from scratch; returns the problems
        found (an empty list: all is well). The host may run it at start.

        Checks sqlite's integrity and foreign keys; that each account's balance
        equals its ledger sum and all balances sum to 0; that no player or pot
        is below 0; one grant per profile; in every coin match one stake per
        seat, a pot holding every stake while live and empty once closed, and
        payouts equal to the pot; finished matches have one stats row per seat;
        actions are numbered without gaps.
        """
        problems: list[str] = []
        with self._read() as c:
            ok = c.execute("PRAGMA integrity_check").fetchall()
            if ok != [("ok",)]:
                problems += [f"integrity: {r[0]}" for r in ok]
            problems += [f"foreign key: {r}" for r in c.execute("PRAGMA foreign_key_check").fetchall()]
            for aid, kind, balance, derived in c.execute(
                "SELECT a.id, a.kind, a.balance,"
                " COALESCE((SELECT sum(amount) FROM ledger WHERE dst = a.id), 0)"
                " - COALESCE((SELECT sum(amount) FROM ledger WHERE src = a.id), 0) FROM accounts a"
            ):
                if balance != derived:
                    problems.append(f"account {aid} ({kind}) holds {balance} but its ledger sums to {derived}")
                if kind in ("player", "pot") and balance < 0:
                    problems.append(f"account {aid} ({kind}) is negative: {balance}")
            total = c.execute("SELECT COALESCE(sum(balance), 0) FROM accounts").fetchone()[0]
            if total != 0:
                problems.append(f"the accounts sum to {total}, not 0")
            profiles = c.execute("SELECT count(*) FROM profiles").fetchone()[0]
            grants = c.execute("SELECT count(*), COALESCE(sum(amount), 0) FROM ledger WHERE reason = 'grant'").fetchone()
            if grants != (profiles, profiles * NEW_PROFILE_COINS):
                problems.append(f"{profiles} profiles but {grants[0]} grants of {grants[1]} coins")
            for mid, players, stake, status, pot in c.execute(
                "SELECT m.id, m.players, m.stake, m.status, a.balance FROM matches m"
                " LEFT JOIN accounts a ON a.match_id = m.id WHERE m.kind = 'coins'"
            ).fetchall():
                stakes = c.execute(
                    "SELECT count(*), COALESCE(sum(amount), 0) FROM ledger WHERE match_id = ? AND reason = 'stake'", (mid,)
                ).fetchone()
                if stakes != (players, players * stake):
                    problems.append(f"match {mid}: {stakes[0]} stakes of {stakes[1]} coins for {players} seats at {stake}")
                want = players * stake if status == "live" else 0
                if pot != want:
                    problems.append(f"match {mid} ({status}): the pot holds {pot}, not {want}")
                out = c.execute(
                    "SELECT COALESCE(sum(amount), 0) FROM ledger WHERE match_id = ? AND reason IN ('win', 'odd', 'refund')",
                    (mid,),
                ).fetchone()[0]
                if out != players * stake - want:
                    problems.append(f"match {mid} ({status}): paid out {out} of a pot of {players * stake}")
            for mid, players, n in c.execute(
                "SELECT m.id, m.players, (SELECT count(*) FROM results r WHERE r.match_id = m.id)"
                " FROM matches m WHERE m.status = 'finished'"
            ).fetchall():
                if n != players:
                    problems.append(f"match {mid}: {n} stats rows for {players} seats")
            for mid, n, top in c.execute(
                "SELECT match_id, count(*), max(idx) FROM match_actions GROUP BY match_id"
            ).fetchall():
                if top != n - 1:
                    problems.append(f"match {mid}: {n} actions numbered up to {top}")
        return problems


__all__ = [
    "MatchSummary",
    "ProfileStats",
    "ProfileSummary",
    "Store",
    "Tally",
    "check_name",
    "insert_results",
    "key_hash",
]
