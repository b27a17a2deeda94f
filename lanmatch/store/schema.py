"""The store's schema and its migrations.

How this works. The schema version is sqlite's `PRAGMA user_version` and the
file is marked as lanmatch's with `PRAGMA application_id`. `MIGRATIONS[i]`
takes a database from version `i` to `i + 1`; `migrate` applies the missing
ones in order, each in its own transaction together with the version bump,
so a crash mid-upgrade leaves the last complete version. Migrations only go
forward and a shipped migration is never edited: a change is a new one
appended to the list. A file whose version is above `SCHEMA_VERSION` was
written by a newer lanmatch and is refused untouched (`SchemaTooNew`).

Version 1: profiles, accounts, the ledger, matches, their seats and actions.
Version 2: `results` (one stats row per seat per finished match), filled
from the matches finished under version 1.

Invariants held by the schema itself (not only by the code that writes):

- the ledger is append-only (triggers refuse UPDATE and DELETE); each row
  moves a positive amount between two different accounts, and a trigger
  applies it to both accounts' `balance` in the same statement, so the sum
  of all balances is always 0 (the bank's is minus every coin it minted);
- a player's or a pot's balance can never go below 0 (a CHECK: the
  statement that would do it fails and its transaction rolls back);
- every ledger row has a unique `key` (`stake:M:S`, `win:M:S`, `odd:M`,
  `refund:M:S`, `fee:M:S`, `grant:P`) and at most one row per (match, seat,
  reason): a pot cannot be paid twice;
- a match leaves `live` once and for all (finished or abandoned);
- match actions are numbered 0, 1, 2, ... without gaps, are append-only, and
  only a live match takes them.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable

APPLICATION_ID = 0x4C4D5443  # "LMTC"

_V1 = [
    """CREATE TABLE profiles (
        id INTEGER PRIMARY KEY,
        name TEXT NOT NULL UNIQUE COLLATE NOCASE,
        key_hash TEXT NOT NULL,
        created REAL NOT NULL
    )""",
    """CREATE TABLE matches (
        id INTEGER PRIMARY KEY,
        room TEXT NOT NULL DEFAULT '',
        game TEXT NOT NULL CHECK (game IN ('colormatch', 'dominoes')),
        tbl TEXT,
        players INTEGER NOT NULL CHECK (players BETWEEN 2 AND 6),
        options TEXT NOT NULL DEFAULT '{}',
        seed TEXT NOT NULL,
        first_seat INTEGER,
        kind TEXT NOT NULL CHECK (kind IN ('practice', 'coins')),
        stake INTEGER NOT NULL DEFAULT 0 CHECK (stake >= 0),
        settings TEXT NOT NULL DEFAULT '{}',
        status TEXT NOT NULL DEFAULT 'live' CHECK (status IN ('live', 'finished', 'abandoned')),
        started REAL NOT NULL,
        ended REAL,
        outcome TEXT,
        CHECK ((kind = 'coins') = (stake > 0)),
        CHECK ((status = 'live') = (ended IS NULL))
    )""",
    "CREATE INDEX matches_live ON matches(status) WHERE status = 'live'",
    """CREATE TRIGGER matches_close_once BEFORE UPDATE OF status ON matches
       WHEN OLD.status <> 'live'
       BEGIN SELECT RAISE(ABORT, 'a finished or abandoned match stays closed'); END""",
    """CREATE TRIGGER matches_no_delete BEFORE DELETE ON matches
       BEGIN SELECT RAISE(ABORT, 'matches are never deleted'); END""",
    """CREATE TABLE match_seats (
        match_id INTEGER NOT NULL REFERENCES matches(id),
        seat INTEGER NOT NULL CHECK (seat >= 0),
        kind TEXT NOT NULL CHECK (kind IN ('player', 'guest', 'bot')),
        profile_id INTEGER REFERENCES profiles(id),
        name TEXT NOT NULL,
        bot_level TEXT,
        token TEXT,
        left_at REAL,
        PRIMARY KEY (match_id, seat),
        UNIQUE (match_id, profile_id),
        CHECK ((kind = 'player') = (profile_id IS NOT NULL)),
        CHECK (kind <> 'bot' OR left_at IS NULL)
    ) WITHOUT ROWID""",
    "CREATE INDEX match_seats_profile ON match_seats(profile_id) WHERE profile_id IS NOT NULL",
    """CREATE TABLE match_actions (
        match_id INTEGER NOT NULL REFERENCES matches(id),
        idx INTEGER NOT NULL,
        seat INTEGER NOT NULL,
        action TEXT NOT NULL,
        by TEXT NOT NULL DEFAULT 'seat',
        PRIMARY KEY (match_id, idx)
    ) WITHOUT ROWID""",
    """CREATE TRIGGER match_actions_in_order BEFORE INSERT ON match_actions
       WHEN NEW.idx IS NOT COALESCE((SELECT max(idx) FROM match_actions WHERE match_id = NEW.match_id), -1) + 1
       BEGIN SELECT RAISE(ABORT, 'match actions are recorded in order, without gaps'); END""",
    """CREATE TRIGGER match_actions_live BEFORE INSERT ON match_actions
       WHEN (SELECT status FROM matches WHERE id = NEW.match_id) IS NOT 'live'
       BEGIN SELECT RAISE(ABORT, 'only a live match takes actions'); END""",
    """CREATE TRIGGER match_actions_no_update BEFORE UPDATE ON match_actions
       BEGIN SELECT RAISE(ABORT, 'match actions are append-only'); END""",
    """CREATE TRIGGER match_actions_no_delete BEFORE DELETE ON match_actions
       BEGIN SELECT RAISE(ABORT, 'match actions are append-only'); END""",
    """CREATE TABLE accounts (
        id INTEGER PRIMARY KEY,
        kind TEXT NOT NULL CHECK (kind IN ('bank', 'house', 'player', 'pot')),
        profile_id INTEGER UNIQUE REFERENCES profiles(id),
        match_id INTEGER UNIQUE REFERENCES matches(id),
        balance INTEGER NOT NULL DEFAULT 0,
        CHECK (kind IN ('bank', 'house') OR balance >= 0),
        CHECK ((kind = 'player') = (profile_id IS NOT NULL)),
        CHECK ((kind = 'pot') = (match_id IS NOT NULL))
    )""",
    "INSERT INTO accounts (id, kind) VALUES (1, 'bank'), (2, 'house')",
    """CREATE TRIGGER accounts_no_delete BEFORE DELETE ON accounts
       BEGIN SELECT RAISE(ABORT, 'accounts are never deleted'); END""",
    """CREATE TABLE ledger (
        id INTEGER PRIMARY KEY,
        key TEXT NOT NULL UNIQUE,
        src INTEGER NOT NULL REFERENCES accounts(id),
        dst INTEGER NOT NULL REFERENCES accounts(id),
        amount INTEGER NOT NULL CHECK (amount > 0),
        reason TEXT NOT NULL CHECK (reason IN ('grant', 'stake', 'win', 'odd', 'refund', 'fee')),
        match_id INTEGER REFERENCES matches(id),
        seat INTEGER,
        at REAL NOT NULL,
        CHECK (src <> dst),
        CHECK ((reason = 'grant') = (match_id IS NULL))
    )""",
    "CREATE INDEX ledger_src ON ledger(src)",
    "CREATE INDEX ledger_dst ON ledger(dst)",
    "CREATE UNIQUE INDEX ledger_once ON ledger(match_id, seat, reason) WHERE match_id IS NOT NULL AND seat IS NOT NULL",
    "CREATE UNIQUE INDEX ledger_odd_once ON ledger(match_id) WHERE reason = 'odd'",
    """CREATE TRIGGER ledger_moves AFTER INSERT ON ledger BEGIN
        UPDATE accounts SET balance = balance - NEW.amount WHERE id = NEW.src;
        UPDATE accounts SET balance = balance + NEW.amount WHERE id = NEW.dst;
    END""",
    """CREATE TRIGGER ledger_no_update BEFORE UPDATE ON ledger
       BEGIN SELECT RAISE(ABORT, 'the ledger is append-only'); END""",
    """CREATE TRIGGER ledger_no_delete BEFORE DELETE ON ledger
       BEGIN SELECT RAISE(ABORT, 'the ledger is append-only'); END""",
    f"PRAGMA application_id = {APPLICATION_ID}",
]

_V2 = [
    """CREATE TABLE results (
        match_id INTEGER NOT NULL REFERENCES matches(id),
        seat INTEGER NOT NULL,
        profile_id INTEGER REFERENCES profiles(id),
        game TEXT NOT NULL,
        tbl TEXT NOT NULL,
        mode TEXT NOT NULL,
        kind TEXT NOT NULL,
        result TEXT NOT NULL CHECK (result IN ('win', 'loss', 'draw', 'left')),
        winners INTEGER NOT NULL,
        opponents INTEGER NOT NULL,
        bot_level TEXT NOT NULL,
        points INTEGER,
        turns INTEGER,
        daily TEXT,
        coins INTEGER NOT NULL DEFAULT 0,
        ended REAL NOT NULL,
        PRIMARY KEY (match_id, seat)
    ) WITHOUT ROWID""",
    "CREATE INDEX results_profile ON results(profile_id, game, tbl)",
    "CREATE INDEX results_daily ON results(daily, turns) WHERE daily IS NOT NULL AND result = 'win'",
]


def _run(statements: list[str]) -> Callable[[sqlite3.Connection], None]:
    def step(conn: sqlite3.Connection) -> None:
        for sql in statements:
            conn.execute(sql)

    return step


def _v2(conn: sqlite3.Connection) -> None:
    _run(_V2)(conn)
    # stats rows for the matches finished before the results table existed
    from lanmatch.store.db import insert_results  # the one writer of results rows

    for (match_id,) in conn.execute("SELECT id FROM matches WHERE status = 'finished' ORDER BY id").fetchall():
        insert_results(conn, match_id)


MIGRATIONS: list[Callable[[sqlite3.Connection], None]] = [_run(_V1), _v2]
SCHEMA_VERSION = len(MIGRATIONS)


def read_version(conn: sqlite3.Connection) -> tuple[int, int]:
    """`(application_id, user_version)` of an open database."""
    app = conn.execute("PRAGMA application_id").fetchone()[0]
    version = conn.execute("PRAGMA user_version").fetchone()[0]
    return app, version


def has_tables(conn: sqlite3.Connection) -> bool:
    return conn.execute("SELECT count(*) FROM sqlite_master").fetchone()[0] > 0


__all__ = ["APPLICATION_ID", "MIGRATIONS", "SCHEMA_VERSION", "has_tables", "read_version"]
