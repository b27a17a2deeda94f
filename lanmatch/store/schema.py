"""The store's schema and its migrations (sqlite only: nothing here reads the store's code).

How this works. The schema version is sqlite's `PRAGMA user_version` and the
file is marked as lanmatch's with `PRAGMA application_id`. `MIGRATIONS[i]`
takes a database from version `i` to `i + 1`; `upgrade` runs one in its own
transaction together with the version bump, so a crash mid-upgrade leaves
the last complete version. Migrations only go forward, and a shipped one is
never edited: a change is a new one appended to the list.

Each migration is frozen: its SQL, and whatever it computes, are written out
inside it as they were when it shipped. None calls the store's live code (a
writer in `db.py`, a rule in `settle.py`, the game registry), so a migration
does the same to an old file whatever the code around it has become. This
module imports nothing of lanmatch.

Version 1: profiles, accounts, the ledger, matches, their seats and actions.
Version 2: `results` (one stats row per seat per finished match), filled
from the matches finished under version 1 (in SQL: the stats rules of that
version, frozen).
Version 3: `matches` rebuilt without `CHECK (game IN (...))` and with
`players >= 1` for `players BETWEEN 2 AND 6`: which games exist, and how
many seats each takes, is the game registry's to say (the store checks a
match against it in code), so a game registered later can be stored.
Version 4: `ratings` (a Glicko-2 rating per profile and game) and
`rating_changes` (what each rated match did to each profile's rating, once
per match and profile). Nothing is filled in: matches finished before
version 4 are not rated (ratings start at the upgrade; docs/store.md).
Version 5: `tournaments` and `tournament_results`.
Version 6: `open_rooms` (each room the host had open, as the host saved it:
its settings, seats and tokens, running score; one JSON text per room),
so that a room between games survives a restart of the host.

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
from dataclasses import dataclass

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


# Version 2's stats rows for the matches finished before it, as that version
# counted them (settle.result_rows then): one row per seat; a seat whose
# player left is `left`; no winners is a `draw`; `bot_level` is the level of
# the bots among the other seats (`remote` for a bot of unknown level, `none`,
# or `mixed`); `coins` is the seat's net over the match's ledger rows for that
# seat, for its player (or the house, for a bot). In version 1 a match was
# Color Match (always at a named table) or Dominoes (no table; every game a
# match to a target).
_V2_RESULTS = """
WITH f AS (
    SELECT id, game, tbl, players, options, kind, ended, outcome,
        CASE WHEN game = 'dominoes' THEN 'match'
             WHEN COALESCE(json_extract(options, '$.mode'), 'single') = 'single'
                  AND json_extract(options, '$.target') THEN 'match'
             ELSE COALESCE(json_extract(options, '$.mode'), 'single') END AS mode
    FROM matches WHERE status = 'finished'
)
INSERT INTO results (match_id, seat, profile_id, game, tbl, mode, kind, result, winners,
                     opponents, bot_level, points, turns, daily, coins, ended)
SELECT f.id, s.seat, s.profile_id, f.game, COALESCE(f.tbl, 'dominoes'), f.mode, f.kind,
    CASE
        WHEN s.left_at IS NOT NULL THEN 'left'
        WHEN COALESCE(json_array_length(f.outcome, '$.winners'), 0) = 0 THEN 'draw'
        WHEN EXISTS (SELECT 1 FROM json_each(f.outcome, '$.winners') w WHERE w.value = s.seat) THEN 'win'
        ELSE 'loss'
    END,
    COALESCE(json_array_length(f.outcome, '$.winners'), 0),
    f.players - 1,
    (SELECT CASE count(DISTINCT COALESCE(o.bot_level, 'remote'))
                WHEN 0 THEN 'none' WHEN 1 THEN min(COALESCE(o.bot_level, 'remote')) ELSE 'mixed' END
       FROM match_seats o WHERE o.match_id = f.id AND o.kind = 'bot' AND o.seat <> s.seat),
    CASE WHEN json_type(f.outcome, '$.points[' || s.seat || ']') = 'integer'
         THEN json_extract(f.outcome, '$.points[' || s.seat || ']') END,
    CASE WHEN json_type(f.outcome, '$.turns[' || s.seat || ']') = 'integer'
         THEN json_extract(f.outcome, '$.turns[' || s.seat || ']') END,
    CASE WHEN f.mode = 'daily' THEN json_extract(f.options, '$.date') END,
    COALESCE((SELECT sum(CASE WHEN l.dst = own.id THEN l.amount WHEN l.src = own.id THEN -l.amount ELSE 0 END)
                FROM ledger l WHERE l.match_id = f.id AND l.seat = s.seat), 0),
    f.ended
FROM f
JOIN match_seats s ON s.match_id = f.id
LEFT JOIN accounts own ON own.id = CASE WHEN s.kind = 'player' AND s.profile_id IS NOT NULL
                                        THEN (SELECT id FROM accounts WHERE profile_id = s.profile_id)
                                        ELSE 2 END  -- the house (account 2 since version 1)
"""

# Version 3: `matches` as version 1 made it, but for the two CHECKs on the game and the seats.
_V3_CHANGES = (
    ("CREATE TABLE matches (", "CREATE TABLE new_matches ("),
    (" CHECK (game IN ('colormatch', 'dominoes'))", ""),
    ("CHECK (players BETWEEN 2 AND 6)", "CHECK (players >= 1)"),
)


_V4 = [
    """CREATE TABLE ratings (
        profile_id INTEGER NOT NULL REFERENCES profiles(id),
        game TEXT NOT NULL,
        rating REAL NOT NULL,
        rd REAL NOT NULL CHECK (rd > 0),
        volatility REAL NOT NULL CHECK (volatility > 0),
        matches INTEGER NOT NULL DEFAULT 0 CHECK (matches >= 0),
        updated REAL NOT NULL,
        PRIMARY KEY (profile_id, game)
    ) WITHOUT ROWID""",
    """CREATE TABLE rating_changes (
        match_id INTEGER NOT NULL REFERENCES matches(id),
        profile_id INTEGER NOT NULL REFERENCES profiles(id),
        game TEXT NOT NULL,
        seat INTEGER NOT NULL,
        before REAL NOT NULL,
        after REAL NOT NULL,
        rd_after REAL NOT NULL,
        PRIMARY KEY (match_id, profile_id)
    ) WITHOUT ROWID""",
    "CREATE INDEX rating_changes_profile ON rating_changes(profile_id)",
    """CREATE TRIGGER rating_changes_no_update BEFORE UPDATE ON rating_changes
       BEGIN SELECT RAISE(ABORT, 'rating changes are append-only'); END""",
    """CREATE TRIGGER rating_changes_no_delete BEFORE DELETE ON rating_changes
       BEGIN SELECT RAISE(ABORT, 'rating changes are append-only'); END""",
]


_V5 = [
    """CREATE TABLE tournaments (
        id INTEGER PRIMARY KEY,
        name TEXT NOT NULL,
        matches INTEGER NOT NULL CHECK (matches BETWEEN 1 AND 99),
        rooms TEXT NOT NULL,
        created REAL NOT NULL
    )""",
    """CREATE TABLE tournament_results (
        tournament_id INTEGER NOT NULL REFERENCES tournaments(id),
        number INTEGER NOT NULL CHECK (number >= 1),
        match_id INTEGER REFERENCES matches(id),
        room TEXT NOT NULL,
        seats TEXT NOT NULL,
        PRIMARY KEY (tournament_id, number)
    ) WITHOUT ROWID""",
    """CREATE TRIGGER tournament_results_no_update BEFORE UPDATE ON tournament_results
       BEGIN SELECT RAISE(ABORT, 'tournament results are append-only'); END""",
]


_V6 = [
    """CREATE TABLE open_rooms (
        name TEXT PRIMARY KEY,
        data TEXT NOT NULL,
        saved REAL NOT NULL
    ) WITHOUT ROWID""",
]


def _edited(sql: str, changes: tuple[tuple[str, str], ...]) -> str:
    for old, new in changes:
        if sql.count(old) != 1:
            raise ValueError(f"{old!r} is not once in {sql[:40]!r}...")
        sql = sql.replace(old, new)
    return sql


_V3_MATCHES = _edited(_V1[1], _V3_CHANGES)
_V3_COLUMNS = "id, room, game, tbl, players, options, seed, first_seat, kind, stake, settings, status, started, ended, outcome"


def _v3(conn: sqlite3.Connection) -> None:
    """Rebuild `matches` by sqlite's 12-step procedure (www.sqlite.org/lang_altertable.html,
    "Making Other Kinds Of Table Schema Changes"). Steps 1-2 and 10-12 (foreign
    keys off, the transaction, `foreign_key_check`, commit, foreign keys back
    on) are `upgrade`'s, for every migration with `rebuilds`."""
    # 3. remember the indexes and triggers of the table (sqlite's own autoindexes have no sql)
    keep = [sql for (sql,) in conn.execute(
        "SELECT sql FROM sqlite_master WHERE tbl_name = 'matches' AND type IN ('index', 'trigger')"
        " AND sql IS NOT NULL ORDER BY type, name"
    )]
    conn.execute(_V3_MATCHES)  # 4. the table in its new form
    conn.execute(f"INSERT INTO new_matches ({_V3_COLUMNS}) SELECT {_V3_COLUMNS} FROM matches")  # 5. every row
    conn.execute("DROP TABLE matches")  # 6. (with it go its own indexes and triggers)
    # 7. the new table takes the old name. legacy_alter_table: other tables'
    # triggers that read `matches` (match_actions_live) are neither checked
    # against the table that is gone nor rewritten: they name `matches`, which
    # exists again once the rename is done.
    conn.execute("PRAGMA legacy_alter_table = ON")
    try:
        conn.execute("ALTER TABLE new_matches RENAME TO matches")
    finally:
        conn.execute("PRAGMA legacy_alter_table = OFF")
    for sql in keep:  # 8. its indexes and triggers again (9: no views)
        conn.execute(sql)


@dataclass(frozen=True)
class Migration:
    """One step up: `run(conn)` takes the file from the version before to the next.
    `rebuilds`: it remakes a table, so it runs with foreign keys off and ends
    with a `foreign_key_check` (sqlite's procedure for it)."""

    run: Callable[[sqlite3.Connection], None]
    rebuilds: bool = False

    def __call__(self, conn: sqlite3.Connection) -> None:
        self.run(conn)


def _statements(*statements: str) -> Callable[[sqlite3.Connection], None]:
    def run(conn: sqlite3.Connection) -> None:
        for sql in statements:
            conn.execute(sql)

    return run


MIGRATIONS: list[Migration] = [
    Migration(_statements(*_V1)),
    Migration(_statements(*_V2, _V2_RESULTS)),
    Migration(_v3, rebuilds=True),
    Migration(_statements(*_V4)),
    Migration(_statements(*_V5)),
    Migration(_statements(*_V6)),
]
SCHEMA_VERSION = len(MIGRATIONS)


def upgrade(conn: sqlite3.Connection, version: int) -> bool:
    """Run `MIGRATIONS[version]` on a file at `version`, in one transaction with
    the version bump. Returns False when the file was no longer at `version`
    (another process upgraded it meanwhile; nothing done).

    Raises:
        sqlite3.Error, ValueError: the migration failed (rolled back: the file
            stays at `version`); ValueError for foreign keys a rebuild broke.
    """
    migration = MIGRATIONS[version]
    foreign_keys = conn.execute("PRAGMA foreign_keys").fetchone()[0]
    if migration.rebuilds and foreign_keys:
        conn.execute("PRAGMA foreign_keys = OFF")  # 1. (a no-op inside a transaction: before BEGIN)
    try:
        conn.execute("BEGIN IMMEDIATE")  # 2.
        try:
            if read_version(conn)[1] != version:
                conn.execute("ROLLBACK")
                return False
            migration(conn)
            if migration.rebuilds and foreign_keys:
                broken = conn.execute("PRAGMA foreign_key_check").fetchall()  # 10.
                if broken:
                    raise ValueError(f"migration {version + 1} would break foreign keys: {broken[:5]}")
            conn.execute(f"PRAGMA user_version = {version + 1}")
            conn.execute("COMMIT")  # 11.
        except BaseException:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise
    finally:
        if migration.rebuilds and foreign_keys:
            conn.execute("PRAGMA foreign_keys = ON")  # 12.
    return True


def read_version(conn: sqlite3.Connection) -> tuple[int, int]:
    """`(application_id, user_version)` of an open database."""
    app = conn.execute("PRAGMA application_id").fetchone()[0]
    version = conn.execute("PRAGMA user_version").fetchone()[0]
    return app, version


def has_tables(conn: sqlite3.Connection) -> bool:
    return conn.execute("SELECT count(*) FROM sqlite_master").fetchone()[0] > 0


__all__ = ["APPLICATION_ID", "MIGRATIONS", "SCHEMA_VERSION", "Migration", "has_tables", "read_version", "upgrade"]
